"""The child side of the runner: loads ONE submission from source text and launches it.

Started by `grader.runner` in a fresh process group, it reads a `runner.Request` frame on
stdin and writes `Message` JSON lines to one pipe the parent opened, result frames to another
(`grader.wire`). It never decides a verdict: in `check` mode it loads the student's module,
says so, and only then reads the cases one frame at a time, sending back what each launch
wrote (`judge.correctness.launch`) for the parent to judge; no input ever sits on disk. In
`perf` mode it times the student's launcher (`judge.perf.measure`) with functions bound before
the student's code loaded, or, in a process of its own that holds no student code, the
reference.

    python -m grader.worker MESSAGE_FD RESULT_FD [DEVICE]  < frames   (DEVICE: preimport)
    python -m grader.worker --serve DEVICE MESSAGE_FD RESULT_FD STATUS_FD [--sandboxed]
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

from grader.trace import trace


class Channel:
    """Messages to the parent; `os.write` is bound before any student code runs."""

    def __init__(self, fd: int):
        self.fd, self._write = fd, os.write

    def send(self, msg) -> None:
        self._write(self.fd, (msg.to_json() + "\n").encode())


def describe(exc: BaseException, built) -> str:
    """The exception as the student needs it: the frames in their cells (cell-relative lines)
    and the message; our frames and the library's are left out. Causes are included."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    parts = []
    for e in reversed(chain):
        frames = [f for f in traceback.extract_tb(e.__traceback__)
                  if built is not None and f.filename == str(built.path)]
        lines = [f"  {built.locate(f.lineno)}, in {f.name}\n    {(f.line or '').strip()}"
                 for f in frames]
        parts.append("\n".join([*lines, *traceback.format_exception_only(e)]).rstrip())
    return "\n\nwhich caused:\n".join(parts)


def run(request: dict, chan: Channel, results_fd: int) -> None:
    from grader import device as dev

    trace("request read")
    dev.use(request["device"])
    import torch

    from grader import audit, manifest, submission, tamper, wire
    from grader.judge import correctness
    from grader.judge.verdict import Message

    trace("imported")

    lab = manifest.load(Path(request["lab"]) / "lab.toml", request["manifest"])
    ex = lab.exercise(request["exercise"].partition("/")[2] or None)
    impl = request["impl"]
    spec = ex.impls[impl]
    gpu = request["device"] == "gpu"
    if gpu:
        torch.cuda.init()
        trace("cuda initialised")
    # Bound before any student code: the reference, the timer, what must not be replaced.
    watch = tamper.Watch(gpu)
    # The hidden reference runs in a process of its own that holds no student code: timed
    # (perf), or profiled (judge.profile.run).
    reference_run = request["role"] == "reference"
    launches = audit.Launches(None if reference_run else list(request["sources"].values()))
    audit.watch_threads()  # a thread the student's import starts is relayed to the audit
    if request["mode"] == "perf":
        from grader import bench

        timer = bench.Timer()
        if reference_run:  # a process of its own: no student code in it
            from grader import reference

            _perf(ex, impl, reference.load(ex, impl), request, timer, watch, launches, chan,
                  str)
            return
    built = None
    try:
        if reference_run:
            from grader import reference

            launcher = reference.load(ex, impl)
        else:
            built = submission.write_module(request["setup"], request["sources"],
                                            Path(request["workdir"]))
            module = submission.import_module(built)
            launcher = getattr(module, spec.launcher, None)
        if not callable(launcher):
            raise NameError(f"the solution cells define no function {spec.launcher}()")
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        chan.send(correctness.error_message(exc, None, lambda e: describe(e, built)))
        return
    chan.send(Message(event="loaded"))
    trace("loaded")
    launches.watch_cuda(request["device"])

    def tampered(index) -> bool:
        names = watch.tampered() + ([] if launches.intact() else ["the launch counters"])
        if names:
            chan.send(Message(event="error", index=index, kind="tampered",
                              message=f"the submission replaced {', '.join(names)}: grading "
                              "functions must not be patched (it changes nothing: grading "
                              "happens elsewhere)", summary=f"tampered: {', '.join(names)}"))
        return bool(names)

    if tampered(None):
        return
    if request["mode"] == "perf":
        _perf(ex, impl, launcher, request, timer, watch, launches, chan,
              lambda e: describe(e, built))
        return
    if request["mode"] == "profile":
        _profile(ex, launcher, request, chan, lambda e: describe(e, built))
        return
    read, write, pack = wire.read, wire.write, wire.tensors  # bound before any launch
    while True:
        frame = read(0)
        if not frame:
            return  # no more cases
        case = wire.untensors(frame)
        trace(f"case {case['index']} read")
        msg, result = correctness.launch(
            ex, impl, launcher, case["shape"], case.get("dtype", request["dtype"]),
            case["inputs"],
            request["device"], launches, request.get("schedules", ()),
            lambda e: describe(e, built), case["index"], case.get("layouts"))
        trace(f"case {case['index']} launched")
        if result is None:
            chan.send(msg)
            return
        if tampered(case["index"]):
            return
        write(results_fd, pack(result.__dict__))  # before its message: the parent pairs them
        chan.send(msg)


def _perf(ex, impl, launcher, request, timer, watch, launches, chan, explain) -> None:
    from grader.judge import correctness, perf

    try:
        perf.measure(ex, impl, launcher, request["role"], timer, watch, launches,
                     request["perf"], request["seed_salt"], chan.send)
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        chan.send(correctness.error_message(exc, None, explain))


def _profile(ex, launcher, request, chan, explain) -> None:
    """One call of `launcher` under the profiler (judge.profile): its inputs made here, on
    the device (their values judge nothing), its outputs never sent back."""
    from grader import check
    from grader.judge import correctness, profile

    case = request["perf"]
    tdev = "cuda" if request["device"] == "gpu" else "cpu"
    inputs, layouts = check.make_values(ex, case["shape"], case["seed"], request["dtype"], tdev)
    args = [check.place(v, layouts.get(k), tdev) for k, v in inputs.items()]
    args += list(check.alloc_outputs(ex, case["shape"], request["dtype"], tdev)[1].values())
    args += list(ex.param_values(case["shape"]).values())
    trace("inputs made")
    from grader import wire
    from grader.judge.verdict import Message

    def gate(stage: str) -> None:
        """Say the profiled call is about to start, then wait for the parent's frame (it lets
        one profile at a time collect counters); say when it has ended."""
        chan.send(Message(event=stage))
        if stage == "profiling":
            wire.read(0)

    try:
        profile.profiled(launcher, gate)(*args)
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        chan.send(correctness.error_message(exc, None, explain))


def preimport(device: str) -> None:
    """Everything a check imports before the student's code runs, the student's setup cell
    included (`grader.notebook`): imported by a server once for all its children, or by a
    worker started ahead of its request (`runner.start`) while it waits. Not torch._dynamo:
    the audit's dispatch modes do without it (`audit._Mode`). No CUDA call: a CUDA context
    does not survive a fork."""
    from grader import device as dev

    dev.use(device)
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton  # noqa: F401
    import triton.language  # noqa: F401

    from grader import audit, bench, manifest, notebook, submission, tamper  # noqa: F401
    from grader.judge import correctness, perf  # noqa: F401
    # Not Triton's driver: choosing it asks torch.cuda.is_available(), which initialises CUDA.
    trace("preimported")


def start_cuda(device: str) -> None:
    """CUDA's start (1.5-2 s under a profiler on an H200 machine) done while the worker waits
    for its request, then said (`runner.Started.ready`): only for a process that does not
    fork, started where its start cannot overlap a timed round."""
    from grader import runner

    if device == "gpu":
        import torch

        torch.cuda.init()
        trace("cuda initialised ahead")
    Path(runner.READY).touch()


def serve(device: str, msg_fd: int, res_fd: int, ctl_fd: int, sandboxed: bool) -> None:
    """A worker server (`grader.runner.Server`): everything a check imports before the
    student's code, imported once; then, per request frame, a forked child runs it as a fresh
    worker would, and once it exits every other process it left is killed before its exit
    status goes out on `ctl_fd` (closed in the child: a child cannot fake its own end)."""
    from grader import wire

    preimport(device)
    while True:
        try:
            frame = wire.read(0)
        except wire.WireError:
            return  # the parent closed the pipe: the session is over
        if not frame.startswith(b"{"):
            continue  # a frame meant for a child that had already ended (no request)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.close(ctl_fd)
                os.setsid()  # its own group: the server kills it and what it started
                request = json.loads(frame)
                os.environ.update(request.get("env") or {})
                os.chdir(request["workdir"])
                answer(request, msg_fd, res_fd)
                code = 0
            except BaseException:  # noqa: BLE001 - reported like a worker's crash
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        _kill_rest(pid, sandboxed)
        os.write(ctl_fd, f"{os.waitstatus_to_exitcode(status)}\n".encode())


def _kill_rest(child: int, sandboxed: bool) -> None:
    """Every process the child left: in the sandbox's own pid namespace, all but the server
    and the namespace's init; outside one, the child's session."""
    import signal

    sig = signal.SIGKILL
    if not sandboxed:
        try:
            os.killpg(child, sig)
        except (ProcessLookupError, PermissionError):
            pass
        return
    for _ in range(3):  # a process may fork while the list is read
        others = [int(p) for p in os.listdir("/proc") if p.isdigit()
                  and int(p) not in (1, os.getpid())]
        for pid in others:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        if not others:
            return


def main() -> None:
    if sys.argv[1] == "--serve":
        serve(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]),
              "--sandboxed" in sys.argv[6:])
        return
    from grader import wire

    trace("started")
    if len(sys.argv) > 3:  # started ahead of its request: import while it waits
        preimport(sys.argv[3])
        if "--cuda-now" in sys.argv[4:]:
            start_cuda(sys.argv[3])
    answer(json.loads(wire.read(0)), int(sys.argv[1]), int(sys.argv[2]))


def answer(request: dict, msg_fd: int, res_fd: int) -> None:
    """One request, whether the worker was spawned for it or forked by a server: `done`
    follows whatever happened."""
    from grader.judge.verdict import Message

    chan = Channel(msg_fd)
    try:
        run(request, chan, res_fd)
    finally:
        chan.send(Message(event="done"))


if __name__ == "__main__":
    main()
