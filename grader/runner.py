"""Process plumbing for the worker: spawn, feed the request, stream messages, time-limit, kill.

It decides nothing: `grader.grading` prepares the request and hands what came back to a
judge's `decide()`. Each run is a fresh process in its own session, killed with its whole
process group when it finishes, stops early or passes its deadline.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from grader import check, paths, sandbox, wire
from grader.judge.verdict import Message, Outcome

DEFAULT_TIMEOUT = {"cpu": 180.0, "gpu": 120.0}


@dataclass
class Request:
    """What the worker is asked to do; the first frame on its stdin, as JSON. It holds no
    case: inputs follow one frame at a time once the student's module is loaded."""

    lab: str
    exercise: str
    impl: str
    device: str
    mode: str  # "check" | "perf"
    sources: dict[str, str]
    manifest: str = ""  # the lab's lab.toml, as text: the worker cannot read labs/
    setup: str = ""  # the lab's setup cell, from the lab's own source
    workdir: str = ""
    seed_salt: str = ""
    dtype: str = "float32"
    cases: int = 0  # check: how many case frames will follow
    schedules: list = field(default_factory=list)  # check, CPU CUDA: ["reverse"]
    perf: dict = field(default_factory=dict)  # perf: {dtypes, repeat, sweep}
    role: str = "student"  # perf: "student", or "reference" (its own process; no student code)


def _child_env(extra: dict | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k != check.SECRET_ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(paths.ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    return {**env, **(extra or {})}


class Link:
    """The parent's end of a running worker: case frames go in on its stdin after the
    student's module is loaded, result frames come back on a pipe of their own."""

    def __init__(self, stdin, deadline: float):
        self._stdin = stdin
        self.deadline = deadline  # time.monotonic() at which the worker is killed

    def extend(self, seconds: float) -> None:
        """More time: a worker that checks several dtypes gets the time limit for each."""
        self.deadline += seconds

    def send(self, payload: bytes) -> None:
        """One frame to the worker (an empty one means "no more cases"), written by a thread:
        a worker that stops reading cannot stall the parent past its deadline."""
        import threading

        def write():
            try:
                self._stdin.write(wire.pack(payload))
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass  # the worker is gone: its outcome says why

        threading.Thread(target=write, daemon=True).start()


def _events(msg_fd: int, res_fd: int, link: Link):
    """(message, result frame or None) from the worker until both its pipes are closed;
    yields (None, None) once if the deadline passes. Both pipes are drained together, so a
    worker writing a large result never blocks on a parent waiting for a message; a case's
    result frame is written before its message, and the message waits here for it."""
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
        ready, _, _ = select.select(open_fds, [], [], min(left, 0.5))
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
                    results.append(bytes(frames[wire.HEADER.size: wire.HEADER.size + size]))
                    del frames[: wire.HEADER.size + size]
            else:
                lines += chunk
                while b"\n" in lines:
                    line, lines = lines.split(b"\n", 1)
                    msg = Message.from_json(line)
                    if msg is not None:  # a torn or forged line is ignored, never trusted
                        waiting.append(msg)
        yield from ready_messages()
    yield from ready_messages()


def _kill(proc: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def _tail(path: Path, lines: int) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.rstrip().splitlines()[-lines:])


def run(request: Request, timeout: float | None = None, on_loaded=None, on_message=None,
        wrapper: list[str] | None = None, env: dict | None = None) -> Outcome:
    """Run the worker on `request` until EOF, an error report, `on_message` returning False,
    or the deadline; the child is killed in every case.

    `on_loaded(link)` runs once the student's module has loaded (send the first case there);
    `on_message(msg, payload, link)` gets every later message, with its result frame."""
    timeout = timeout or DEFAULT_TIMEOUT[request.device]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tclab-") as own:
        workdir = Path(request.workdir or own)
        request.workdir = str(workdir)
        msg_r, msg_w = os.pipe()
        res_r, res_w = os.pipe()
        out_path = workdir / "output.txt"
        argv = [*(wrapper or []), sys.executable, "-m", "grader.worker", str(msg_w),
                str(res_w)]
        child_env = _child_env(env)
        readable = [paths.REFERENCE / request.lab] if request.role == "reference" else []
        boxed = sandbox.command(argv, workdir, request.device, child_env, readable)
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                boxed or argv, stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
                pass_fds=(msg_w, res_w), env=child_env, cwd=workdir, start_new_session=True)
        os.close(msg_w)
        os.close(res_w)
        link = Link(proc.stdin, started + timeout)
        link.send(json.dumps(request.__dict__).encode())
        outcome = Outcome(timeout=timeout, unsandboxed="" if boxed else
                          (sandbox.available() or "no sandbox"))
        for msg, payload in _events(msg_r, res_r, link):
            if msg is None:
                outcome.timed_out = True
                break
            if msg.event == "error":
                outcome.error = msg
                break
            if msg.event == "done":
                continue
            if msg.event == "loaded":
                if on_loaded is not None:
                    on_loaded(link)
                continue
            outcome.messages.append(msg)
            if on_message is not None and on_message(msg, payload, link) is False:
                break
        for fd in (msg_r, res_r):
            os.close(fd)
        _kill(proc)
        outcome.returncode = proc.returncode
        # Under a wrapper (compute-sanitizer) its report comes before the traceback it causes.
        outcome.output = _tail(out_path, 400 if wrapper else 15)
        outcome.seconds = round(time.monotonic() - started, 2)
        return outcome
