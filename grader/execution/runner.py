"""Process plumbing for the worker: spawn, feed the request, stream messages, time-limit, kill.

It decides nothing: `grader.pipeline.grading` prepares the request and hands what came back to a
judge's `decide()`. Each run is a fresh process: spawned for it in its own session, or, inside
`session()`, forked for it by a worker server that already imported torch and Triton (one
sandbox per submission, see `Server`). Either way it is killed with everything it started
when it finishes, stops early or passes its deadline.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import secrets
import select
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.base import paths, wire
from grader.execution import sandbox
from grader.judge.verdict import Message, Outcome
from grader.lab import cases, manifest, submission

DEFAULT_TIMEOUT = {"cpu": 180.0, "gpu": 120.0}
EXIT_GRACE = 1.0  # s a run that ended waits for its process to exit by itself


@dataclass
class Request:
    """What the worker is asked to do; the first frame on its stdin, as JSON. It holds no
    case: inputs follow one frame at a time once the student's module is loaded."""

    lab: str
    exercise: str
    impl: str
    device: str
    mode: str  # "check" | "perf" | "profile"
    sources: dict[str, str]
    manifest: str = ""  # the lab's lab.toml, as text: the worker cannot read labs/
    setup: str = ""  # the lab's setup cell, from the lab's own source
    workdir: str = ""
    seed_salt: str = ""
    dtype: str = "float32"
    cases: int = 0  # check: how many case frames will follow
    schedules: list = field(default_factory=list)  # check, CPU CUDA: ["reverse"]
    perf: dict = field(default_factory=dict)  # perf: {dtypes, repeat, sweep}
    #                                           profile: {shape, seed}
    role: str = "student"  # "student", or "reference" (its own process; no student code)
    env: dict = field(default_factory=dict)  # set in a served worker before anything runs


def request(ex: manifest.Exercise, impl: str, device: str, mode: str, sources: dict[str, str],
            **more) -> Request:
    """What a worker needs, all of it in the request: it cannot read the lab's folder."""
    lab = manifest.get(ex.lab_id)
    return Request(lab=ex.lab_id, exercise=ex.key, impl=impl, device=device, mode=mode,
                   sources=sources, manifest=(lab.dir / "lab.toml").read_text(),
                   setup=setup_source(lab.id), seed_salt=secrets.token_hex(16), **more)


@functools.cache
def setup_source(lab_id: str) -> str:
    """The lab's setup cell (`submission.setup_source`), read once per process."""
    return submission.setup_source(manifest.get(lab_id))


def _child_env(extra: dict | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != cases.SECRET_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return {**env, **(extra or {})}


class Link:
    """The parent's end of a running worker: case frames go in on its stdin after the
    student's module is loaded, result frames come back on a pipe of their own."""

    def __init__(self, stdin, deadline: float):
        self._stdin = stdin
        self.deadline = deadline  # time.monotonic() at which the worker is killed
        self.sent = 0  # frames sent, the request's included

    def extend(self, seconds: float) -> None:
        """More time: a worker that checks several dtypes gets the time limit for each."""
        self.deadline += seconds

    def send(self, payload: bytes) -> None:
        """One frame to the worker (an empty one means "no more cases"), written by a thread:
        a worker that stops reading cannot stall the parent past its deadline."""
        import threading

        self.sent += 1

        def write():
            try:
                self._stdin.write(wire.pack(payload))
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the worker is gone: its outcome says why

        threading.Thread(target=write, daemon=True).start()


def _events(msg_fd: int, res_fd: int, link: Link, exited: Server | None = None):
    """(message, result frame or None) from the worker until both its pipes are closed (or,
    for a served worker, its server says it exited and the pipes hold nothing more); yields
    (None, None) once if the deadline passes. Both pipes are drained together, so a worker
    writing a large result never blocks on a parent waiting for a message; a case's result
    frame is written before its message, and the message waits here for it."""
    # A bytearray grows in place: `bytes +=` copied the whole frame for each 64 KiB a pipe
    # returns, quadratic in the frame (two minutes for a 16M-element case's result).
    lines, frames, results, waiting = b"", bytearray(), [], []
    open_fds = [msg_fd, res_fd]

    def ready_messages():
        while waiting:
            if waiting[0].event == "case":
                if not results and res_fd in open_fds:
                    return  # its frame is still on the way
                yield waiting.pop(0), (results.pop(0) if results else None)
            else:
                yield waiting.pop(0), None

    while open_fds:
        left = link.deadline - time.monotonic()
        if left <= 0:
            yield None, None
            return
        watch = [exited.fd] if exited is not None and exited.status is None else []
        gone = exited is not None and exited.status is not None
        ready, _, _ = select.select(open_fds + watch, [], [], 0 if gone else min(left, 0.5))
        if watch and watch[0] in ready:  # the server reaped it: every byte it wrote is in
            exited.read_status()  # the pipes, read on below until none is left
            ready.remove(watch[0])
            continue
        if gone and not ready:
            break
        for fd in ready:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                open_fds.remove(fd)
            elif fd == res_fd:
                frames += chunk
                while len(frames) >= wire.HEADER.size:
                    (size,) = wire.HEADER.unpack_from(frames)
                    if len(frames) < wire.HEADER.size + size:
                        break
                    end = wire.HEADER.size + size
                    if len(frames) == end:  # the usual case: the frame and nothing after it
                        del frames[: wire.HEADER.size]
                        results.append(frames)
                        frames = bytearray()
                    else:
                        results.append(frames[wire.HEADER.size: end])
                        del frames[:end]
            else:
                lines += chunk
                while b"\n" in lines:
                    line, lines = lines.split(b"\n", 1)
                    msg = Message.from_json(line)
                    if msg is not None:  # a torn or forged line is ignored, never trusted
                        waiting.append(msg)
        yield from ready_messages()
    yield from ready_messages()


def _kill(proc: subprocess.Popen, wait: bool = True) -> None:
    """Kill the process group of `proc` (started in a session of its own), then reap it. Not
    once it has been reaped: its pid may by then name another process group. `wait=False`:
    `proc` is not our child (`adopt`): it cannot be waited for here, and its parent reaps it
    only after this process has ended, so until then its pid stays its own."""
    import signal

    if proc.returncode is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if wait:
        proc.wait()


def _exited(proc: subprocess.Popen, within: float) -> None:
    """Wait up to `within` s for our child `proc` to exit, without reaping it: its pid stays
    its own, for `_kill` to kill what is left of its process group, then reap it."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return
        except ChildProcessError:
            return
        time.sleep(0.005)


def _echo_trace(path: Path, offset: int, request: Request, begun: float) -> None:
    """`TCLAB_TRACE=1`: the worker's time stamps (`grader.base.trace`) for this run, copied
    to this process's stderr (a grading task's log) under a label naming the run, with the
    wall-clock time the request was sent: where a check's seconds went, read from one log."""
    from grader.base.trace import PREFIX, enabled

    if not enabled():
        return
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            stamps = [s[len(PREFIX):].split(" ", 1) for s in
                      f.read().decode(errors="replace").splitlines() if s.startswith(PREFIX)]
    except OSError:
        return
    label = f"{request.exercise} {request.impl} {request.mode} {request.role} {request.dtype}"
    stamps = [(f"{begun:.3f}", "request sent"), *stamps, (f"{time.time():.3f}", "ended")]
    sys.stderr.write("".join(f"{PREFIX}{when} [{label}] {what}\n" for when, what in stamps))
    sys.stderr.flush()


def _tail(path: Path, lines: int, offset: int = 0) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


class Server:
    """One sandboxed worker process that has imported torch, Triton and the grader, and forks
    a fresh child for each request: the start-up (2-3 s of imports, the sandbox) is paid once
    per submission instead of once per cases. It never imports student code itself; every
    child starts from that clean state, and once a child exits the server kills whatever else
    runs in the sandbox (`--sandboxed`: its own pid namespace) or in the child's session, then
    reports the exit status on a pipe no child holds. A run whose child does not end by
    itself with status 0 (a timeout, a crash, a kill) discards the server: the next run gets
    a new one. A wrong case or an error report ends the child cleanly and keeps it.

    One submission per server: the children of one server share its sandbox's files. A
    submission's implementations get a server each (their checks run side by side), and the
    hidden reference one of its own (`reference_lab`), which never runs student code."""

    def __init__(self, device: str, root: Path, reference_lab: str | None = None,
                 cache: Path | None = None):
        self.jobs = 0
        self.workdir = Path(tempfile.mkdtemp(prefix="serve-", dir=root))
        msg_r, msg_w = os.pipe()
        res_r, res_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        env = _child_env(None)
        readable, mounted = _mounts(reference_lab, cache)
        boxed = sandbox.command([], self.workdir, device, env,
                                [*readable, *_shared_runtime(device, env)], mounted)
        argv = [sys.executable, "-m", "grader.execution.worker", "--serve", device, str(msg_w),
                str(res_w),
                str(ctl_w), *(["--sandboxed"] if boxed else [])]
        self.out_path = self.workdir / "output.txt"
        with open(self.out_path, "wb") as out:
            self.proc = subprocess.Popen(
                [*boxed, *argv] if boxed else argv, stdin=subprocess.PIPE, stdout=out,
                stderr=subprocess.STDOUT, pass_fds=(msg_w, res_w, ctl_w), env=env,
                cwd=self.workdir, start_new_session=True)
        for fd in (msg_w, res_w, ctl_w):
            os.close(fd)
        self.msg_fd, self.res_fd, self.fd = msg_r, res_r, ctl_r
        self.unsandboxed = "" if boxed else (sandbox.available() or "no sandbox")
        self.status: int | None = None  # the current child's exit status, once reaped
        self.lost = False  # the server itself is gone
        self.cache = cache
        self.adopted = False  # started by another process (`prestart`): not our child
        self._ctl = b""

    def alive(self) -> bool:
        """Not known to be gone. A server this process did not start cannot be waited for:
        its control pipe's end says it is gone."""
        if not self.adopted:
            return not self.lost and self.proc.poll() is None
        if not self.lost and select.select([self.fd], [], [], 0)[0]:
            self.read_status()
        return not self.lost

    def read_status(self) -> None:
        chunk = os.read(self.fd, 64)
        if not chunk:  # the server itself is gone
            self.status, self.lost = -9, True
            return
        self._ctl += chunk
        if b"\n" in self._ctl:
            line, self._ctl = self._ctl.split(b"\n", 1)
            self.status = int(line)

    def close(self) -> None:
        _kill(self.proc)
        for fd in (self.msg_fd, self.res_fd, self.fd):
            os.close(fd)


class Session:
    """The servers of one submission, one per device and role (an implementation, or the
    reference), each started on first use; and processes started ahead of their request
    (`keep`, `take`; and those a task server started for its memcheck runs, `take_warm`).

    Every process of a session is started from one thread of its own, which lives as long as
    the session: the sandbox (bwrap --die-with-parent) kills its process when the *thread* that
    started it ends, and checks run in pool threads that end before the session does (a server
    started by one was gone by the perf checks after, each of which then started a new one:
    7-10 s of imports on an H200 machine)."""

    def __init__(self):
        from grader.base.trace import trace

        self._dir = tempfile.TemporaryDirectory(prefix="tclab-")
        warm = _ADOPTABLE.pop() if _ADOPTABLE else Warm()  # see `adopt`
        self.servers: dict[tuple[str, str], Server] = dict(warm.servers)
        self._warm = {key: list(procs) for key, procs in warm.started.items()}
        if self.servers:
            trace(f"adopted {len(self.servers)} worker servers started ahead")
        if self._warm:
            trace(f"adopted {sum(map(len, self._warm.values()))} memcheck processes started "
                  "ahead")
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tclab-spawn")
        self._kept: dict = {}
        self._lock = threading.Lock()

    def spawn(self, make, *args):
        """`make(*args)` (a process start) on the session's own thread; its result."""
        return self._spawner.submit(make, *args).result()

    def keep(self, key, started: dict) -> None:
        """Hold `started` ({name: a `Started` or None}) until `take(key)` hands it out;
        closed with the session if nobody takes it."""
        with self._lock:
            old, self._kept[key] = self._kept.get(key, {}), started
        _close_kept(old)

    def take(self, key) -> dict | None:
        with self._lock:
            return self._kept.pop(key, None)

    def kept(self, kind: str) -> list[dict]:
        """What is kept under a key whose first item is `kind`, still kept (not taken)."""
        with self._lock:
            return [started for key, started in self._kept.items() if key[0] == kind]

    def take_warm(self, impl: str, check: str) -> Started | None:
        """A process the task server started ahead (`prestart`) for a memcheck run of `impl`
        under the sanitizer tool `check`, or for its profile (`check` "profile"), or None: the
        run then starts its own. A process started ahead writes nothing before its request:
        one whose pipes can already be read (their end) has ended, whatever ended it. It is
        closed, never used (the run would find no report in it and pass), and the next one is
        tried."""
        from grader.base.trace import trace

        while True:
            with self._lock:
                waiting = self._warm.get((impl, check))
                if not waiting:
                    return None
                one = waiting.pop(0)
            if not select.select([one.msg_fd, one.res_fd], [], [], 0)[0]:
                return one
            trace(f"a {check} process of {impl} started ahead had ended before its request")
            one.close()

    def server(self, device: str, role: str = "", reference_lab: str | None = None) -> Server:
        """The server for (device, role), started now if there is none (it starts in the
        background: its imports overlap whatever runs next)."""
        srv = self.servers.get((device, role))
        if srv is None or not srv.alive():
            if srv is not None:
                srv.close()
            srv = self.servers[(device, role)] = self.spawn(
                Server, device, Path(self._dir.name), reference_lab, self.cache(role))
        return srv

    def cache(self, role: str) -> Path:
        """The compile caches (Triton's, pycuda's) of one implementation's processes in this
        submission, its server's and its profiled run's: theirs alone, gone with the session
        (an adopted server's, with the task that adopted it). (The reference keeps its own,
        between sessions: `_mounts`.)"""
        for (_, r), srv in self.servers.items():
            if r == role and srv.cache is not None:
                return srv.cache
        return Path(self._dir.name) / f"cache-{role}"

    def discard(self, device: str, role: str = "") -> None:
        srv = self.servers.pop((device, role), None)
        if srv is not None:
            srv.close()

    def close(self) -> None:
        for key in list(self.servers):
            self.discard(*key)
        with self._lock:
            kept, self._kept = list(self._kept.values()), {}
            warm, self._warm = [p for procs in self._warm.values() for p in procs], {}
        for started in kept:
            _close_kept(started)
        for one in warm:  # started ahead for a memcheck run this submission did not make
            one.close()
        self._spawner.shutdown()
        self._dir.cleanup()


@dataclass
class Warm:
    """What a task server starts for its next task while the task before runs (`prestart`),
    and the next task takes over (`adopt`): worker servers by (device, role), and processes
    for its memcheck runs, a list per (impl, sanitizer tool), for `Session.take_warm`."""

    servers: dict[tuple[str, str], Server] = field(default_factory=dict)
    started: dict[tuple[str, str], list[Started]] = field(default_factory=dict)


# What a grading task's session takes over when it starts (`adopt`): one Warm, or none.
_ADOPTABLE: list[Warm] = []


def prestart(device: str, roles, runs=()) -> Warm:
    """A server per role, for a submission not graded yet: a task server (one process per GPU
    slot, each task a fork of it) starts them while the task before runs, so that the next
    task's checks find their servers' imports done (8-11 s of a lab01 submission on an H200
    machine, with every other process of its start importing too). Each has a folder of its
    own (its work, its compile caches), and has run nothing: one submission per server, as
    ever. And a process for each of `runs`, ((impl, tool), wrapper, env), started as `run()`
    would start it under that wrapper (a memcheck run's process imports for 9-11 s under
    compute-sanitizer, a profile's 7 s under ncu), under `RECORD`: the task that uses it is
    not its parent and could not read its exit status otherwise. Started from the calling
    thread, which must outlive them (see Session)."""
    base = Path(tempfile.mkdtemp(prefix="tclab-warm-")) if roles else None
    warm = Warm({(device, role): Server(device, base, None, base / f"cache-{role}")
                 for role in roles})
    for key, wrapper, env, *shared in runs:
        # `shared` (a profile's process): the compile caches of its implementation's server
        cache = base / f"cache-{key[0]}" if shared and shared[0] and base else None
        if cache is not None:
            cache.mkdir(parents=True, exist_ok=True)
        warm.started.setdefault(key, []).append(_start(device, wrapper, env, None, cache,
                                                       record=True))
    return warm


def adopt(warm: Warm) -> None:
    """In the task forked to use `warm`: its next session (`session()`) serves with its
    servers and takes its processes. They are not its children: `Server.alive` reads their
    control pipes instead, and a process's exit status is the one its recorder wrote."""
    for srv in warm.servers.values():
        srv.adopted = True
    for procs in warm.started.values():
        for one in procs:
            one.adopted = True
    _ADOPTABLE[:] = [warm]


def forget(warm: Warm) -> None:
    """In the task server, once a task holds `warm`: its ends of their pipes closed, the
    processes left running (the task uses them; `reap` ends them after it)."""
    for srv in warm.servers.values():
        for fd in (srv.msg_fd, srv.res_fd, srv.fd):
            os.close(fd)
        srv.proc.stdin.close()
    for procs in warm.started.values():
        for one in procs:
            os.close(one.msg_fd)
            os.close(one.res_fd)
            one.msg_fd = one.res_fd = -1  # closed here: `reap`, not `close`, ends it
            one.proc.stdin.close()


def reap(warm: Warm) -> None:
    """In the task server, once the task that held `warm` has ended (or with what no task
    took): kill what is left of its processes, wait for them, remove their folders."""
    import shutil

    folders = {srv.workdir.parent for srv in warm.servers.values()}
    for srv in warm.servers.values():
        _kill(srv.proc)
    for procs in warm.started.values():
        for one in procs:
            _kill(one.proc)
            if one.msg_fd >= 0:  # not forgotten: no task took it
                os.close(one.msg_fd)
                os.close(one.res_fd)
                one.msg_fd = one.res_fd = -1
            one.folder.cleanup()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def _close_kept(started: dict) -> None:
    """Close each process of a kept dict (`Session.keep`)."""
    for one in started.values():
        if one is not None:
            one.close()


# Where the shared CUDA runtime appears inside the sandbox: a neutral place, not the
# machine's cache folder (which would show a home directory's name).
RUNTIME_MOUNT = Path("/tclab/cuda-runtime")


def _shared_runtime(device: str, env: dict) -> list[tuple[Path, Path]]:
    """On the CPU backend, the CUDA runtime built once for every worker of this machine
    (`compiler.shared_runtime`): its folder and where the sandbox shows it, to be put back
    read-only, and that place in `env`. Where it cannot be built, nothing: the worker builds
    its own and reports why it fails."""
    if device != "cpu":
        return []
    from grader.backends.cuda import compiler
    from grader.backends.cuda.errors import CompileError

    try:
        folder = compiler.shared_runtime()
    except CompileError:
        return []
    inside = RUNTIME_MOUNT if sandbox.available() is None else folder
    env[compiler.RUNTIME_DIR_ENV] = str(inside)
    return [(folder, inside)]


def _mounts(lab: str | None, cache: Path | None = None) -> tuple[list[Path], Path | None]:
    """What a run reads besides the grader, and its compile cache: for the reference (`lab`),
    the reference folder (a session's one reference server serves every lab it checks) and
    its cache kept between runs, so that it compiles once per machine (student code never
    gets either: see sandbox.command); for a student's run, the `cache` of its implementation
    in this submission, if any."""
    if lab is None:
        return [], cache
    return [paths.REFERENCE], paths.CACHE / "reference"


def serve_role(request: Request) -> str:
    """Which of the session's servers serves `request`: one per implementation (a student's
    checks of two implementations run side by side), one for the reference."""
    return "reference" if request.role == "reference" else request.impl


_SESSION: contextvars.ContextVar[Session | None] = contextvars.ContextVar("tclab_session",
                                                                          default=None)


@contextlib.contextmanager
def session():
    """Runs inside share a worker server (see `Server`): one submission's checks. Nested, the
    outer session serves. `TCLAB_SERVE=0` turns it off (every run spawns its own worker)."""
    if _SESSION.get() is not None or os.environ.get("TCLAB_SERVE", "1") == "0":
        yield
        return
    own = Session()
    token = _SESSION.set(own)
    try:
        yield
    finally:
        _SESSION.reset(token)
        own.close()


def current() -> Session | None:
    """The session runs are served in here, if any."""
    return _SESSION.get()


@dataclass
class Started:
    """A worker process started ahead of its request (`start`): it imports while it waits."""

    proc: subprocess.Popen
    msg_fd: int
    res_fd: int
    folder: tempfile.TemporaryDirectory
    out_path: Path
    unsandboxed: str
    wrapped: bool
    cuda_now: bool = False
    recorded: Path | None = None  # where its recorder writes its exit status (`RECORD`)
    adopted: bool = False  # started by another process (`prestart`): not our child

    def kill(self) -> None:
        """Kill it with everything it started; reaped only if it is our child (`_kill`)."""
        _kill(self.proc, wait=not self.adopted)

    def returncode(self) -> int | None:
        """Its exit status, once it has ended (`kill()` first): from its recorder if it was
        started under one (None where it wrote none: killed), else our child's own."""
        if self.recorded is None:
            return self.proc.returncode
        try:
            return int(self.recorded.read_text())
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        """Kill it and free what it held; once (a second call does nothing)."""
        if self.msg_fd < 0:
            return
        self.kill()
        for fd in (self.msg_fd, self.res_fd):
            os.close(fd)
        self.msg_fd = self.res_fd = -1
        self.folder.cleanup()

    def ready(self) -> bool:
        """Nothing more of its start-up will touch the GPU: started without `cuda_now` (its
        request starts CUDA), or its CUDA has started, or it is gone."""
        return (not self.cuda_now or (not self.adopted and self.proc.poll() is not None)
                or (self.out_path.parent / READY).exists())


READY = "cuda-started"  # written in its folder by a worker started with `cuda_now`
# A process started for a task that is not its parent (`prestart`) runs under this: in that
# task, Popen.wait() cannot read its status (CPython then says 0), and memcheck's verdict
# reads it (--error-exitcode). The shell writes the status to the file named by its $0,
# outside the sandbox; it holds the worker's pipes until it exits, so the run's end (their
# EOF) comes after the file is written. A process killed with its recorder has none.
RECORD = ["sh", "-c", '"$@"; echo $? > "$0"']


def start(device: str, wrapper: list[str] | None = None, env: dict | None = None,
          reference_lab: str | None = None, cache: Path | None = None,
          cuda_now: bool = False) -> Started:
    """A worker process (under `wrapper`, sandboxed) that imports what a check needs, then
    waits for its request: `run(..., started=)` sends it. `reference_lab`: the process will
    run that lab's hidden reference, and only that; `cache`: a student's compile caches
    (`Session.cache`); `cuda_now`: it starts CUDA too before it waits (`Started.ready()` says
    when), where its start cannot overlap a timed round."""
    own = _SESSION.get()
    if own is not None:  # from the session's own thread (see Session)
        return own.spawn(_start, device, wrapper, env, reference_lab, cache, cuda_now)
    return _start(device, wrapper, env, reference_lab, cache, cuda_now)


def _start(device: str, wrapper: list[str] | None, env: dict | None,
           reference_lab: str | None, cache: Path | None, cuda_now: bool = False,
           record: bool = False) -> Started:
    """`start()` from the calling thread. `record`: under `RECORD`, its status file in its
    folder, out of the sandbox's reach (the worker's own folder is one level down)."""
    folder = tempfile.TemporaryDirectory(prefix="tclab-")
    workdir = Path(folder.name) / "work" if record else Path(folder.name)
    workdir.mkdir(exist_ok=True)
    recorded = Path(folder.name) / "exit-status" if record else None
    msg_r, msg_w = os.pipe()
    res_r, res_w = os.pipe()
    out_path = workdir / "output.txt"
    argv = [*(wrapper or []), sys.executable, "-m", "grader.execution.worker", str(msg_w),
            str(res_w),
            device, *(["--cuda-now"] if cuda_now else [])]
    child_env = _child_env(env)
    readable, mounted = _mounts(reference_lab, cache)
    boxed = sandbox.command(argv, workdir, device, child_env,
                            [*readable, *_shared_runtime(device, child_env)], mounted)
    with open(out_path, "wb") as out:
        proc = subprocess.Popen(
            [*RECORD, str(recorded), *(boxed or argv)] if record else boxed or argv,
            stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
            pass_fds=(msg_w, res_w), env=child_env, cwd=workdir, start_new_session=True)
    os.close(msg_w)
    os.close(res_w)
    return Started(proc, msg_r, res_r, folder, out_path,
                   "" if boxed else (sandbox.available() or "no sandbox"), bool(wrapper), cuda_now,
                   recorded)


def run(request: Request, timeout: float | None = None, on_loaded=None, on_message=None,
        wrapper: list[str] | None = None, env: dict | None = None,
        started: Started | None = None) -> Outcome:
    """Run the worker on `request` until EOF, an error report, `on_message` returning False,
    or the deadline; the child is killed in every case.

    `on_loaded(link)` runs once the student's module has loaded (send the first case there);
    `on_message(msg, payload, link)` gets every later message, with its result frame.
    Inside `session()` a run is served, by the reference's own server for a reference run
    (a run under a wrapper never is). `started`: the process `start()` made for it (its
    wrapper and environment are the ones it was started with)."""
    timeout = timeout or DEFAULT_TIMEOUT[request.device]
    served = _SESSION.get()
    if served is not None and wrapper is None and started is None:
        return _served(served, request, timeout, on_loaded, on_message, env)
    if started is None:
        started = start(request.device, wrapper, env,
                        request.lab if request.role == "reference" else None)
    begun, sent = time.monotonic(), time.time()
    try:
        request.workdir = str(started.out_path.parent)
        link = Link(started.proc.stdin, begun + timeout)
        link.send(json.dumps(request.__dict__).encode())
        outcome = Outcome(timeout=timeout, unsandboxed=started.unsandboxed)
        end = _route(link, _events(started.msg_fd, started.res_fd, link), on_loaded,
                     on_message, outcome)
        if end == "end" and not started.adopted:
            # Its pipes close a moment before it exits (the sandbox's outer process ends
            # after the worker): killed at once, it read -9, never the sanitizer's
            # --error-exitcode. (One not our child: its recorder's status, `RECORD`.)
            _exited(started.proc, EXIT_GRACE)
        started.kill()
        outcome.returncode = started.returncode()
        # Under a wrapper (compute-sanitizer) its report comes before the traceback it causes.
        outcome.output = _tail(started.out_path, 400 if started.wrapped else 15)
        outcome.seconds = round(time.monotonic() - begun, 2)
        _echo_trace(started.out_path, 0, request, sent)
        return outcome
    finally:
        started.close()


def _route(link: Link, events, on_loaded, on_message, outcome: Outcome) -> str:
    """Route a worker's messages into `outcome`; how the run ended: "end" (the worker closed
    its pipes or exited), "error" (it reported one), "stopped" (`on_message` said so) or
    "timeout"."""
    for msg, payload in events:
        if msg is None:
            outcome.timed_out = True
            return "timeout"
        if msg.event == "error":
            outcome.error = msg
            return "error"
        if msg.event == "done":
            continue
        if msg.event == "loaded":
            outcome.loaded = time.monotonic()
            if on_loaded is not None:
                on_loaded(link)
            continue
        outcome.messages.append(msg)
        if on_message is not None and on_message(msg, payload, link) is False:
            return "stopped"
    return "end"


def _served(own: Session, request: Request, timeout: float, on_loaded, on_message,
            env: dict | None) -> Outcome:
    """`run()` through the session's server: the request goes to the server, which forks a
    child for it; the child's pipes are the server's, its end is the server's status line."""
    started, sent = time.monotonic(), time.time()
    role = serve_role(request)
    srv = own.server(request.device, role,
                     request.lab if request.role == "reference" else None)
    srv.jobs += 1
    workdir = srv.workdir / f"job-{srv.jobs}"  # its own folder: no stale module or .pyc
    workdir.mkdir()
    request.workdir, request.env = str(workdir), env or {}
    offset = srv.out_path.stat().st_size
    srv.status = None
    link = Link(srv.proc.stdin, started + timeout)
    link.send(json.dumps(request.__dict__).encode())
    outcome = Outcome(timeout=timeout, unsandboxed=srv.unsandboxed)
    events = _events(srv.msg_fd, srv.res_fd, link, srv)
    end = _route(link, events, on_loaded, on_message, outcome)
    if end in ("error", "stopped"):
        # A child that reported an error is on its way out; one stopped after a wrong case
        # waits for its next case frame: an empty one ends it. Either way its exit is
        # awaited (within the deadline): the server is kept only for a child that ended
        # having read every frame sent to it (a case sent after "loaded" and left unread by a
        # child that stopped at once would otherwise reach the server as the next request).
        read = sum(m.event == "case" for m in outcome.messages) + 1  # the request
        if outcome.error is not None and outcome.error.index is not None:
            read += 1  # the case it failed on
        if end == "stopped":
            link.send(b"")
            read += 1
        if any(msg is None for msg, _ in events):
            end = "timeout"
        elif read != link.sent:
            end = "unread"
    if end != "timeout" and (srv.status is None or srv.lost):  # the server itself died
        outcome.server_lost = True
        try:  # its own exit status (killed, crashed or ended), not a placeholder
            srv.status = -9 if srv.adopted else srv.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            srv.status = -9
    outcome.returncode = srv.status
    if end in ("timeout", "unread") or srv.status != 0 or outcome.server_lost:
        own.discard(request.device, role)  # killed now: nothing of this run reaches the next
    outcome.output = _tail(srv.out_path, 15, offset)  # this run's part of the server's output
    outcome.seconds = round(time.monotonic() - started, 2)
    _echo_trace(srv.out_path, offset, request, sent)
    return outcome
