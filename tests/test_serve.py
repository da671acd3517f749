"""One worker server per submission (execution.runner.session): the checks it serves decide as
spawned workers do, a run that fails leaves nothing for the next one, and what a student's
code starts in the background does not outlive its check."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import pytest

from grader.execution import runner, sandbox
from grader.lab import manifest
from grader.pipeline import grading

LAB = manifest.get("lab01")
EX = LAB.exercise()
CELL = EX.impls["triton"].cells[0]

KERNEL = '''
@triton.jit
def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x {op} y).to(out_ptr.dtype.element_ty), mask=mask)


def vector_add_triton(x, y, out):
    n = out.numel()
    vector_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK_SIZE=1024)
'''
HONEST, WRONG = KERNEL.format(op="+"), KERNEL.format(op="-")
RAISES = HONEST.replace("    n = out.numel()\n", "    raise ValueError('no')\n")
CRASH = HONEST.replace("    n = out.numel()\n", "    import os\n    os._exit(3)\n")
KILLS_DEVICE = HONEST.replace("    n = out.numel()\n", "    import os, signal, time\n"
                              "    os.kill(os.getppid(), signal.SIGKILL)\n    time.sleep(60)\n")
# An error on its first case: the child ends having read its frame, and the server serves on.
RAISES = HONEST.replace("    n = out.numel()\n", "    raise ValueError('no')\n")
# At import: a grandchild in a session of its own, writing the time next to the check's folder
# every 20 ms, forever.
DAEMON = '''
import os as _os
import time as _time

if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _beat = _os.path.join(_os.path.dirname(_os.getcwd()), "heartbeat")
        while True:
            with open(_beat, "w") as _f:
                _f.write(repr(_time.time()))
            _time.sleep(0.02)
    _os._exit(0)
_time.sleep(0.3)  # it has beaten by the time the check runs
''' + HONEST


# What these tests check is the same in every dtype: one is graded (a third of the CPU time).
ONE_DTYPE = dataclasses.replace(EX, dtypes=EX.dtypes[:1])


def grade(source: str, device: str):
    return grading.grade_exercise(ONE_DTYPE, "triton", {CELL: source}, device, hidden=False,
                                  perf=False)


def summary(g) -> list:
    return [(v.status, v.dtype, v.reason) for v in g.checks]


def server(device):
    return runner.current().servers.get((device, "triton"))


def test_served_checks_decide_as_spawned_ones(device, monkeypatch):
    with runner.session():
        served = [summary(grade(s, device)) for s in (HONEST, WRONG)]
    monkeypatch.setenv("TCLAB_SERVE", "0")
    with runner.session():
        assert runner._SESSION.get() is None  # switched off: every run spawns its worker
        spawned = [summary(grade(s, device)) for s in (HONEST, WRONG)]
    assert served == spawned
    assert served[0][0][0] == "pass" and served[1][0][0] == "fail", served


def test_a_server_outlives_wrong_work_and_a_dead_launcher_but_not_a_crash(device):
    """A wrong case, an error report, or the student's host process dying ends the child (the
    device process) by itself: the server stays. A child that dies (or is killed at its
    deadline) takes the server with it."""
    with runner.session():
        assert grade(HONEST, device).correct
        first = server(device)
        assert not grade(WRONG, device).correct  # stopped at its first wrong case
        assert grade(RAISES, device).status == "exception"
        assert grade(HONEST, device).correct
        assert server(device) is first and first.jobs == 4  # no new start-up
        crashed = grade(CRASH, device)  # the launcher's process exits: the device says so
        assert crashed.status == "crash" and "exited (status 3)" in crashed.reason, \
            crashed.reason
        assert server(device) is first
        runner._kill(first.proc)  # the server's death, as a deadline's kill would bring
        assert grade(HONEST, device).correct
        assert server(device) is not first
        # A child that stopped with a frame still unread: that frame must not reach the
        # server as the next request (the next check would crash on it).
        assert grade(RAISES, device).status == "exception"
        assert grade(HONEST, device).correct



def test_a_server_started_by_a_thread_that_ended_serves_the_next_check(device):
    """Checks run in pool threads that end before the submission's session does; the sandbox
    kills a process when the thread that started it ends (bwrap --die-with-parent). The
    server a pool thread asked for must still serve the perf check after (it did not: every
    perf check on the H200 paid 7-10 s for a new server's imports)."""
    import contextvars
    import threading

    with runner.session():
        done = []
        one = threading.Thread(target=contextvars.copy_context().run,  # as grading's pools do
                               args=(lambda: done.append(grade(HONEST, device).correct),))
        one.start()
        one.join()
        first = server(device)
        assert done == [True] and first is not None
        time.sleep(1.0)  # the kill, if any, lands by now
        assert first.proc.poll() is None, f"the server died with its thread ({first.proc.poll()})"
        assert grade(HONEST, device).correct
        assert server(device) is first and first.jobs == 2  # served, not started again


def test_processes_kept_ahead_are_taken_once_and_closed_with_the_session():
    closed = []

    class Fake:
        def close(self):
            closed.append(self)

    a, b, c = Fake(), Fake(), Fake()
    with runner.session():
        own = runner.current()
        own.keep("x", {"student": a, "reference": None})
        own.keep("y", {"student": b})
        own.keep("y", {"student": c})  # replaces b, which is closed now
        assert closed == [b]
        assert own.take("x") == {"student": a, "reference": None} and own.take("x") is None
    assert closed == [b, c]  # c was never taken: closed with the session; a is the taker's

def test_a_process_left_running_by_a_check_is_killed_before_the_next(device):
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()} (outside one, a "
                    "process in a session of its own is out of the server's reach)")
    with runner.session():
        assert grade(DAEMON, device).correct
        srv = server(device)
        assert srv is not None, "the check passed: its server should have stayed"
        beat = srv.workdir / "heartbeat"
        assert beat.exists(), "the control did not work: its background process never ran"
        last = beat.read_text()
        time.sleep(0.3)
        assert beat.read_text() == last, "the check's background process outlived it"
        assert grade(HONEST, device).correct and server(device) is srv


def test_each_implementation_and_the_reference_get_servers_of_their_own(tmp_path):
    """A submission's implementations are served side by side, each by its own server; the
    hidden reference by one more, the only one whose sandbox holds the reference folder
    and the reference's compile cache (the negative control: a student's server has neither)."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    import psutil

    from grader.base import paths
    with runner.session():
        own = runner.current()
        triton, cuda = own.server("cpu", "triton"), own.server("cpu", "cuda")
        reference = own.server("cpu", "reference", LAB.id)
        assert len({id(triton), id(cuda), id(reference)}) == 3
        assert own.server("cpu", "triton") is triton  # kept, not started again
        where = str(paths.REFERENCE)  # every lab's: one reference server serves a session
        cache = str(paths.CACHE / "reference")

        def mounts(srv):
            # Right after Popen the child may still be the forked Python, not yet bwrap.
            deadline = time.monotonic() + 30
            while "bwrap" not in " ".join(argv := psutil.Process(srv.proc.pid).cmdline()[:1]) \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            argv = psutil.Process(srv.proc.pid).cmdline()
            return {(a, b) for a, b in zip(argv, argv[1:]) if a in ("--ro-bind", "--bind")} \
                | {(a, b) for a, b in zip(argv, argv[2:]) if a in ("--ro-bind", "--bind")}

        assert ("--ro-bind", where) in mounts(reference) and ("--bind", cache) in mounts(reference)
        for student in (triton, cuda):
            assert not {m for m in mounts(student) if where in m[1] or cache in m[1]}, \
                "a student's server can read the reference"
        # Each implementation's compile caches are its own (its server's and its profiled
        # run's), in the session's folder: never the other's, never the reference's.
        for impl, srv, other in (("triton", triton, "cuda"), ("cuda", cuda, "triton")):
            binds = {b for a, b in mounts(srv) if a == "--bind"}
            assert str(own.cache(impl)) in binds and str(own.cache(other)) not in binds
        assert not {b for _, b in mounts(reference) if "cache-" in b}
    assert all(s.proc.poll() is not None for s in (triton, cuda, reference))


def test_a_profiled_run_gets_its_implementations_caches_and_the_reference_none(monkeypatch):
    from grader.pipeline import profiling

    asked = []
    monkeypatch.setattr(runner, "start", lambda *a: asked.append(a))
    with runner.session():
        own = runner.current()
        profiling.start(EX, impl="cuda", tool="ncu")
        profiling.start(EX, reference=True, impl="cuda", tool="ncu")
    profiling.start(EX, impl="cuda", tool="ncu")  # outside a session: no submission's caches
    (_, _, _, lab, cache, _), (_, _, _, ref_lab, ref_cache, _), (*_, alone, _) = asked
    assert (lab, cache) == (None, own.cache("cuda"))
    assert (ref_lab, ref_cache) == (LAB.id, None)  # the reference: its own, by runner._mounts
    assert alone is None


def test_a_worker_told_to_start_cuda_says_when_and_still_answers_its_request():
    """`cuda_now` (the profiler's processes, started with the untimed checks): the worker
    starts CUDA while it waits and says so (`Started.ready`); one started without it is ready
    at once (its request starts CUDA). On the CPU it marks itself ready after its imports."""
    plain = runner.start("cpu")
    early = runner.start("cpu", cuda_now=True)
    try:
        assert plain.ready()
        assert not early.ready(), "ready before its imports could have ended"
        deadline = time.monotonic() + 120
        while not early.ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        # Alive, waiting for its request (the GPU's profile tests and course run send it).
        assert early.ready() and early.proc.poll() is None, early.out_path.read_text()
    finally:
        plain.close()
        early.close()


def test_timed_rounds_wait_for_every_profilers_cuda_start_and_close_the_late():
    """`profiling.quiet`: before timed rounds, every process `warm()` started (the one about
    to be used and those still kept in the session) has started CUDA, or is closed; a
    profile then starts its own process on request."""
    from grader.pipeline import profiling

    class Fake:
        def __init__(self, after):
            self.after, self.closed = after, False

        def ready(self):
            return time.monotonic() >= self.after

        def close(self):
            self.closed = True

    now = time.monotonic()
    soon, kept_soon, never = Fake(now + 0.3), Fake(now + 0.5), Fake(now + 3600)
    with runner.session():
        runner.current().keep(("profile", "other", "cuda"), {"student": kept_soon,
                                                             "reference": never})
        ahead = {"student": soon, "reference": None}
        begun = time.monotonic()
        profiling.quiet(ahead, wait=1.5)
        waited = time.monotonic() - begun
        assert 1.5 <= waited < 3, waited  # until `never` was given up on
        assert ahead == {"student": soon, "reference": None} and not soon.closed
        assert runner.current().take(("profile", "other", "cuda")) == {
            "student": kept_soon, "reference": None}
        assert never.closed and not kept_soon.closed
        # All ready: no wait.
        begun = time.monotonic()
        profiling.quiet({"student": soon})
        assert time.monotonic() - begun < 0.1


def test_a_request_is_served_by_its_own_role():
    student = runner.Request(lab=LAB.id, exercise=EX.key, impl="cuda", device="cpu",
                             mode="check", sources={})
    reference = runner.Request(lab=LAB.id, exercise=EX.key, impl="cuda", device="gpu",
                               mode="perf", sources={}, role="reference")
    assert runner.serve_role(student) == "cuda" and runner.serve_role(reference) == "reference"


# What a process imports before it forks must not start CUDA: a CUDA context does not survive
# a fork, and torch.cuda.is_available() alone starts it. (It did once: the student's setup
# cell, imported by the worker servers, asked whether there was a GPU.)
FORK_SAFE = '''
import sys, torch
calls = []
for name in ("is_available", "device_count", "init", "_lazy_init", "is_initialized",
             "current_device", "get_device_properties", "get_device_capability"):
    real = getattr(torch.cuda, name)
    setattr(torch.cuda, name, lambda *a, _n=name, _r=real, **k: calls.append(_n) or _r(*a, **k))
from grader.execution import worker
worker.preimport("gpu")  # a worker server, or a worker started ahead of its request
from grader.course import task  # a task server's imports, as serve() makes them
from nbgrader.apps import NbGraderAPI
from grader.course import regrade
assert "grader.notebook" in sys.modules
print("CUDA calls:", calls)
'''


def test_what_a_server_imports_before_it_forks_asks_cuda_nothing():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", FORK_SAFE], capture_output=True, text=True,
                          env={**__import__("os").environ, "TCLAB_DEVICE": "gpu"}, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "CUDA calls: []" in proc.stdout, proc.stdout


def test_a_process_that_fixed_its_device_asks_torch_nothing(monkeypatch):
    import subprocess
    import sys

    code = ("import os, torch; from grader.backends import device as dev; dev.use('gpu');"
            "torch.cuda.is_available = lambda: 1 / 0;"
            "print(dev.resolve(), dev.resolve('gpu'), dev.resolve('cpu'));"
            "os.environ['TCLAB_DEVICE'] = 'cpu'; print(dev.resolve())")
    env = {k: v for k, v in __import__("os").environ.items() if k != "TCLAB_DEVICE"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.stdout.split() == ["gpu", "gpu", "cpu", "cpu"], proc.stderr[-2000:]


def test_code_that_kills_the_device_process_crashes_and_the_next_check_gets_a_new_server(
        device):
    """The student's (host) process killing the device process that forked it, then waiting:
    a crash, not a hang, and the next check is served afresh (the server is discarded with a
    child that did not end by itself)."""
    if sandbox.available():
        pytest.skip(f"no sandbox on this machine: {sandbox.available()}")
    with runner.session():
        killed = grade(KILLS_DEVICE, device)
        assert server(device) is None, summary(killed)
        again = grade(HONEST, device)
    (bad,) = [v for v in killed.checks if not v.ok]
    assert bad.status == "crash" and "exit code -9" in bad.reason, bad.reason
    assert again.correct, summary(again)


def test_a_wrappers_report_after_the_worker_exits_is_kept():
    """ncu and compute-sanitizer print their report once the worker has exited: the run ends
    when the wrapper has (it holds the worker's pipes too), never with the worker alone."""
    wrapper = ["bash", "-c", '"$@"; sleep 0.5; echo WRAPPER-REPORT', "_"]
    request = runner.request(EX, "triton", "cpu", "check", {CELL: HONEST})
    out = grading._converse(request, grading.CaseMemo().get(EX, ["public"], "float32")[:1],
                            lambda *_: True, 120, wrapper=wrapper)
    assert out.error is None and "WRAPPER-REPORT" in out.output, out.output


@pytest.mark.parametrize("serve", ["1", "0"])
def test_a_traced_check_logs_where_its_seconds_went(device, monkeypatch, capfd, serve):
    """TCLAB_TRACE=1: the worker's time stamps reach the grading process's stderr (a task's
    log), labelled with the run, in order: request sent, module loaded, ended."""
    monkeypatch.setenv("TCLAB_TRACE", "1")
    monkeypatch.setenv("TCLAB_SERVE", serve)
    with runner.session():
        assert grade(HONEST, device).correct
    label = f"[{EX.key} triton check student {EX.dtypes[0]}]"
    stamps = {line.split(label, 1)[1].strip(): float(line.split()[1])
              for line in capfd.readouterr().err.splitlines()
              if line.startswith("tclab-trace ") and label in line}
    assert {"request sent", "loaded", "ended"} <= set(stamps), stamps
    assert stamps["request sent"] <= stamps["loaded"] <= stamps["ended"], stamps


def test_an_untraced_check_logs_nothing(device, capfd):
    with runner.session():
        assert grade(HONEST, device).correct
    assert "tclab-trace" not in capfd.readouterr().err


def test_every_case_set_is_made_once_and_the_sets_side_by_side(monkeypatch):
    """untimed_many makes each (exercise, dtype) case set ahead, several at once, and both
    implementations' checks use those very sets (one make each)."""
    import threading

    from grader.judge import correctness
    from grader.judge.verdict import Grade

    made, running, peak, lock = [], [0], [0], threading.Lock()

    def prepare(ex, suites, dtype, secret_=None):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.3)
        with lock:
            running[0] -= 1
            made.append((ex.key, dtype))
        return [dtype]

    used = []

    def untimed(ex, impl, src, device, hidden, timeout, memcheck_pool=None, memo=None,
                profile_pool=None):
        used.append((impl, [memo.get(ex, ["public"], dt) for dt in ex.dtypes]))
        return Grade(ex.lab_id, ex.key, impl, device)

    monkeypatch.setattr(correctness, "prepare", prepare)
    monkeypatch.setattr(grading, "untimed", untimed)
    work = [(EX, impl, {}) for impl in EX.impls]
    grades = grading.untimed_many(work, "cpu", hidden=False)
    assert set(grades) == {(EX.key, impl) for impl in EX.impls}
    assert sorted(made) == sorted((EX.key, dt) for dt in EX.dtypes)  # once each
    assert peak[0] > 1  # not one after another
    assert all(sets == [[dt] for dt in EX.dtypes] for _, sets in used)


# --- processes a task server starts ahead for the next task's memcheck runs ------------------

# A stand-in for compute-sanitizer (none on the CPU): it runs the worker, then exits with
# memcheck's --error-exitcode, as the sanitizer does when it found an error.
FINDS = ["bash", "-c", '"$@"; exit 86', "_"]


def test_a_wrapped_runs_exit_status_is_the_one_it_exits_with():
    """A run ends when the pipes of its process close, a moment before the process exits (in
    the sandbox, bwrap's outer process ends after the worker): its status is the one it exits
    with (memcheck's verdict reads the sanitizer's --error-exitcode), not the kill's -9 (it
    was -9 in every run before `runner.EXIT_GRACE`)."""
    case = grading.CaseMemo().get(EX, ["public"], EX.dtypes[0])[:1]
    request = runner.request(EX, "triton", "cpu", "check", {CELL: HONEST})
    out = grading._converse(request, case, lambda *_: True, 120, wrapper=FINDS)
    assert [m.event for m in out.messages] == ["case"] and out.returncode == 86, out


def test_a_process_started_ahead_serves_a_forked_task_with_its_real_exit_status():
    """The task server starts a memcheck run's process (`runner.prestart`), then forks the
    task that uses it: not its parent, the task cannot wait for it, and there Popen says 0
    whatever the status was, while memcheck's verdict rests on it (--error-exitcode). The
    recorder's file gives the task the real status. The control, a process started the same
    way, under the same wrapper, without the recorder: the task reads no status (Popen: 0)
    and the verdict passes."""
    import json
    import os

    from grader.judge import memcheck

    case = grading.CaseMemo().get(EX, ["public"], EX.dtypes[0])[:1]
    warm = runner.prestart("cpu", [], [(("triton", "memcheck"), FINDS, {})])
    (recorded,) = warm.started[("triton", "memcheck")]
    bare = runner._start("cpu", FINDS, None, None, None)  # the control: no recorder
    warm.started[("triton", "bare")] = [bare]
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the task
        code = 1
        try:
            os.close(r)
            runner.adopt(warm)
            seen = {}
            with runner.session():
                for check in ("memcheck", "bare"):
                    started = runner.current().take_warm("triton", check)
                    request = runner.request(EX, "triton", "cpu", "check", {CELL: HONEST})
                    out = grading._converse(request, case, lambda *_: True, 120,
                                            started=started)
                    verdict = memcheck.decide(EX, "triton", EX.dtypes[0], case[0].case.shape,
                                              out)
                    seen[check] = {"served": [m.event for m in out.messages],
                                   "loaded": out.loaded is not None, "status": out.returncode,
                                   "popen": started.proc.wait(), "verdict": verdict.status}
            os.write(w, json.dumps(seen).encode())
            code = 0
        except BaseException:  # noqa: BLE001 - said here; the parent finds nothing written
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    os.close(w)
    runner.forget(warm)
    _, status = os.waitpid(pid, 0)
    with os.fdopen(r, "rb") as f:
        seen = json.loads(f.read() or b"{}")
    runner.reap(warm)
    assert status == 0 and seen, "the task failed"
    assert seen["memcheck"] == {"served": ["case"], "loaded": True, "status": 86, "popen": 0,
                                "verdict": "memory_error"}, seen
    assert seen["bare"] == {"served": ["case"], "loaded": True, "status": None, "popen": 0,
                            "verdict": "pass"}, seen
    for one in (recorded, bare):  # reaped, their folders gone
        assert one.proc.returncode is not None
        assert not Path(one.folder.name).exists()


def test_a_process_started_ahead_that_ended_is_never_the_one_that_decides(monkeypatch):
    """A memcheck run's process started ahead that ended before its request (its pipes at
    their end) is closed unused, and the check runs in a process of its own: had it been
    used, its silence would have passed. The control: a live one serves the check itself
    (the one left over is closed with the session). And one that ends as its request comes,
    without a word, does not decide either: the check runs again in a process of its own."""
    import select

    real_request, real_run = runner.request, runner.run
    monkeypatch.setattr(runner, "request",  # the CPU's worker: the mechanism is the same
                        lambda ex, impl, device, *a, **k: real_request(ex, impl, "cpu", *a, **k))
    monkeypatch.setattr(grading, "memcheck_wrapper", lambda tool, check_: FINDS)
    which = grading.shutil.which  # the sanitizer "found"; g++ (the CPU runtime) still real
    monkeypatch.setattr(grading.shutil, "which", lambda name, *a, **k:
                        f"/opt/{name}" if name == "compute-sanitizer" else which(name, *a, **k))
    runs = []

    def run(request, *a, started=None, **k):
        runs.append(started)
        return real_run(request, *a, started=started, **k)

    monkeypatch.setattr(runner, "run", run)
    key = ("triton", "memcheck")

    def check(*wrappers):
        warm = runner.prestart("cpu", [], [(key, w, {}) for w in wrappers])
        runner.adopt(warm)
        runs.clear()
        try:
            with runner.session():
                verdict = grading.memcheck_check(EX, "triton", {CELL: HONEST})
        finally:
            runner.reap(warm)
        return verdict, warm.started[key]

    ended = ["bash", "-c", "exit 0", "_"]
    dead = runner.prestart("cpu", [], [(key, ended, {})])
    (gone,) = dead.started[key]
    assert select.select([gone.msg_fd], [], [], 60)[0], "it did not end"
    assert gone.returncode() == 0  # had it been used: no report, status 0, a pass
    runner.adopt(dead)
    try:
        with runner.session():
            verdict = grading.memcheck_check(EX, "triton", {CELL: HONEST})
    finally:
        runner.reap(dead)
    assert verdict.status == "memory_error", verdict.reason
    assert runs == [None] and gone.msg_fd == -1  # closed unused; a process of its own ran

    verdict, (live, spare) = check(FINDS, FINDS)  # the control: a live one is used
    assert verdict.status == "memory_error", verdict.reason
    assert runs == [live]  # its status, 86, read from its recorder, decided
    assert spare.msg_fd == -1 and spare.proc.returncode is not None  # closed, reaped

    # It reads its request, then ends without running the worker.
    verdict, (mute,) = check(["bash", "-c", "head -c 1 > /dev/null; exit 0", "_"])
    assert verdict.status == "memory_error", verdict.reason
    assert runs == [mute, None]  # it was used, said nothing, and the check ran again


def test_a_task_server_on_a_gpu_starts_each_memcheck_run_of_the_next_lab_ahead(monkeypatch):
    """For the next task on a GPU the task server starts, besides its worker servers, one
    process per memcheck run of the lab (every exercise, implementation and sanitizer tool),
    each as `memcheck_check` would start it. Controls: none on the CPU, none without the
    sanitizer, nothing at all with TCLAB_WARM_SERVERS=0 or when no task is to come."""
    import collections
    import shutil

    from grader.course import task
    from grader.judge import memcheck

    folders, made = [], []
    monkeypatch.setattr(runner, "Server", lambda device, root, *a: folders.append(root) or device)
    monkeypatch.setattr(runner, "_start", lambda *a, **k: made.append((a, k)) or len(made))
    monkeypatch.setattr(memcheck, "flags", lambda tool, check_="memcheck": ["--tool", check_])
    sanitizer = "/opt/cuda/bin/compute-sanitizer"
    # ncu absent: the profile's processes are test_profiles_are_started_ahead_too's
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **k: None if name == "ncu" else sanitizer)

    def warm(lab="lab01_vector_add", device="gpu", more=True):
        monkeypatch.setenv("TCLAB_DEVICE", device)
        made.clear()
        ahead = task._warm({"argv": ["course", lab, "student"], "more": more})
        return ahead, collections.Counter((a[0], tuple(a[1]), k.get("record")) for a, k in made)

    try:
        ahead, started = warm()
        assert set(ahead.servers) == {("gpu", "triton"), ("gpu", "cuda")}
        assert {key: len(procs) for key, procs in ahead.started.items()} == {
            ("triton", "memcheck"): 1, ("cuda", "memcheck"): 1, ("cuda", "synccheck"): 1}
        memcheck_argv = (sanitizer, "--tool", "memcheck")
        assert started == {("gpu", memcheck_argv, True): 2,
                           ("gpu", (sanitizer, "--tool", "synccheck"), True): 1}, started
        assert all(a[2:] == (memcheck.ENV, None, None) for a, _ in made)  # no reference
        ahead, started = warm("lab02_matrix_add")  # two exercises: two of each
        assert sorted(map(len, ahead.started.values())) == [2, 2, 2]
        ahead, started = warm(device="cpu")
        assert set(ahead.servers) == {("cpu", "triton"), ("cpu", "cuda")} and not made
        monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
        ahead, _ = warm()
        assert len(ahead.servers) == 2 and not ahead.started and not made
        monkeypatch.setattr(shutil, "which", lambda name, *a, **k: sanitizer)
        ahead, _ = warm(more=False)
        assert ahead == runner.Warm() and not made
        monkeypatch.setenv("TCLAB_WARM_SERVERS", "0")
        ahead, _ = warm()
        assert ahead == runner.Warm() and not made
    finally:
        for folder in set(folders):
            shutil.rmtree(folder, ignore_errors=True)


def test_profiles_are_started_ahead_too(monkeypatch):
    """With ncu, the task server also starts each (exercise, implementation)'s profile
    process ahead, under ncu, in its implementation's compile caches; none without ncu."""
    import shutil

    from grader.course import task

    made = []
    monkeypatch.setattr(runner, "Server", lambda device, root, *a: device)
    monkeypatch.setattr(runner, "_start", lambda *a, **k: made.append(a) or len(made))
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/opt/cuda/bin/{name}")
    monkeypatch.setenv("TCLAB_DEVICE", "gpu")
    ahead = task._warm({"argv": ["course", "lab01_vector_add", "student"], "more": True})
    try:
        assert len(ahead.started[("triton", "profile")]) == 1
        assert len(ahead.started[("cuda", "profile")]) == 1
        profiled = [a for a in made if a[1] and a[1][0].endswith("ncu")]
        assert sorted(a[4].name for a in profiled) == ["cache-cuda", "cache-triton"]
        monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
        made.clear()
        none = task._warm({"argv": ["course", "lab01_vector_add", "student"], "more": True})
        assert not any(key[1] == "profile" for key in none.started)
    finally:
        for folder in {a[4].parent for a in made if len(a) > 4 and a[4] is not None}:
            shutil.rmtree(folder, ignore_errors=True)
