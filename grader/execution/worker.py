"""The child side of the runner: loads ONE submission from source text and launches it.

Started by `grader.execution.runner` in a fresh process group, it reads a `runner.Request` frame on
stdin and writes `Message` JSON lines to one pipe the parent opened, result frames to another
(`grader.base.wire`). It is the DEVICE process of the trust boundary: it forks the host process
(`execution.host`, where the student's cells run against phantoms) before it holds any data, then
holds the inputs and outputs and replays the streams the host records (`execution.replay`). It
never decides a verdict: in `check` mode it waits for the host to load the cells, says so,
and only then reads the cases one frame at a time, sending back what each replay wrote
(`judge.correctness.launch`) for the parent to judge; no input ever sits on disk. In `perf`
mode it times the replayed stream (`judge.perf.measure`): no student code runs in this
process. The reference, in a process of its own that holds no student code, runs directly.

    python -m grader.execution.worker MESSAGE_FD RESULT_FD [DEVICE]  < frames   (DEVICE: preimport)
    python -m grader.execution.worker --serve DEVICE MESSAGE_FD RESULT_FD STATUS_FD [--sandboxed]
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

from grader.base.trace import trace


class Channel:
    """Messages to the parent; `os.write` is bound before any student code runs."""

    def __init__(self, fd: int):
        self.fd, self._write = fd, os.write

    def send(self, msg) -> None:
        self._write(self.fd, (msg.to_json() + "\n").encode())


def run(request: dict, chan: Channel, results_fd: int) -> None:
    from grader.backends import device as dev
    trace("request read")
    dev.use(request["device"])
    import torch

    from grader.base import wire
    from grader.judge import correctness
    from grader.judge.verdict import Message
    from grader.lab import manifest

    trace("imported")
    lab = manifest.load(Path(request["lab"]) / "lab.toml", request["manifest"])
    ex = lab.exercise(request["exercise"].partition("/")[2] or None)
    impl = request["impl"]
    gpu = request["device"] == "gpu"
    # The hidden reference runs in a process of its own that holds no student code: timed
    # (perf), or profiled (pipeline.profiling.run). A student's cells run in the host process only,
    # forked here before this process holds any data or CUDA context.
    reference_run = request["role"] == "reference"
    link = None
    if not reference_run:
        from grader.execution.host import HostLink

        link = HostLink.start(request, close=[0, chan.fd, results_fd])
    if gpu:
        torch.cuda.init()
        trace("cuda initialised")
    if reference_run:
        from grader.lab import reference
        try:
            launcher = reference.load(ex, impl)
        except BaseException as exc:  # noqa: BLE001
            chan.send(correctness.error_message(exc, None, str))
            return
        calls = Direct(launcher)
    else:
        calls = Replayed(ex, impl, request, link)
        err = calls.load()
        if err is not None:
            chan.send(err)
            return
    if not reference_run or request["mode"] != "perf":
        chan.send(Message(event="loaded"))
        trace("loaded")
    if request["mode"] == "perf":
        from grader.backends import bench
        from grader.judge import perf

        try:
            perf.measure(ex, impl, calls, request["role"], bench.Timer(), request["perf"],
                         request["seed_salt"], chan.send)
        except BaseException as exc:  # noqa: BLE001
            chan.send(calls.error(exc, None))
        return
    if request["mode"] == "profile":
        _profile(ex, calls, request, chan)
        return
    read, write, pack = wire.read, wire.write, wire.tensors
    while True:
        frame = read(0)
        if not frame:
            return  # no more cases
        case = wire.untensors(frame)
        trace(f"case {case['index']} read")
        msg, result = correctness.launch(
            ex, impl, calls, case["shape"], case.get("dtype", request["dtype"]),
            case["inputs"], request["device"], request.get("schedules", ()),
            case["index"], case.get("layouts"))
        trace(f"case {case['index']} launched")
        if result is None:
            chan.send(msg)
            return
        write(results_fd, pack(result.__dict__))  # before its message: the parent pairs them
        chan.send(msg)


class Direct:
    """Calls of a trusted launcher (the reference) on real tensors, in this process."""

    def __init__(self, launcher):
        self.launcher = launcher

    def __call__(self, tensors, params):
        from grader.execution.replay import Run

        self.launcher(*tensors, *params)
        return Run(launches={"triton": 1, "cuda": 1}), None

    def error(self, exc, index):
        from grader.judge import correctness

        return correctness.error_message(exc, index, str)


class Replayed:
    """Calls of the student's launcher: recorded by the host process on phantoms, replayed
    here on the real tensors (`replay.Calls`)."""

    def __init__(self, ex, impl: str, request: dict, link):
        from grader.execution import replay
        self.link = link
        self.device = replay.Device(ex, impl, request["device"], request["setup"],
                                    request["sources"], Path(request["workdir"]))
        self._calls = replay.Calls(self.device, self._record)
        self._gpu: dict | None = None  # what the host's torch.cuda says of the GPU

    def load(self):
        """None once the host has loaded the cells, else the error Message to send."""
        from grader.execution.host import HostDied
        from grader.judge.verdict import Message

        try:
            answer = self.link.loaded()
        except HostDied as exc:
            return Message(event="error", kind="exception", message=str(exc),
                           summary=str(exc))
        if "error" in answer:
            return _host_error(answer["error"], None)
        return None

    def __call__(self, tensors, params):
        """Replay the launcher's stream for these tensors: (Run, what it returned)."""
        return self._calls(tensors, params)

    def _record(self, shapes, params):
        if self._gpu is None:
            from grader.execution.replay import device_properties

            self._gpu = device_properties() if self.device.device == "gpu" else {}
        answer = self.link.record(shapes, params, self._gpu)
        if "error" in answer:
            raise HostError(answer["error"])
        return answer["stream"], answer.get("returned")

    def error(self, exc, index):
        from grader.execution.host import HostDied
        from grader.judge import correctness
        from grader.judge.verdict import Message
        from grader.lab import submission

        if isinstance(exc, HostError):
            return _host_error(exc.args[0], index)
        if isinstance(exc, HostDied):
            return Message(event="error", index=index, kind="host_died", message=str(exc),
                           summary=str(exc))
        built = self.device.built
        return correctness.error_message(exc, index, lambda e: submission.describe(e, built))


class HostError(Exception):
    """The host's launcher call failed: args[0] is its error (kind, message, summary)."""


def _host_error(err: dict, index):
    from grader.judge.verdict import Message

    return Message(event="error", index=index, kind=str(err.get("kind", "exception")),
                   message=str(err.get("message", "")), summary=str(err.get("summary", "")))


def _profile(ex, calls, request, chan) -> None:
    """One call of the launcher under the profiler (`pipeline.profiling.run`): its inputs made
    here, on the device (their values judge nothing), its outputs never sent back."""
    from grader.lab import cases

    case = request["perf"]
    tdev = "cuda" if request["device"] == "gpu" else "cpu"
    inputs, layouts = cases.make_values(ex, case["shape"], case["seed"], request["dtype"], tdev)
    args = [cases.place(v, layouts.get(k), tdev) for k, v in inputs.items()]
    args += list(cases.alloc_outputs(ex, case["shape"], request["dtype"], tdev)[1].values())
    params = list(ex.param_values(case["shape"]).values())
    trace("inputs made")
    from grader.base import wire
    from grader.judge.verdict import Message

    def gate(stage: str) -> None:
        """Say the profiled call is about to start, then wait for the parent's frame (it lets
        one profile at a time collect counters); say when it has ended."""
        chan.send(Message(event=stage))
        if stage == "profiling":
            wire.read(0)

    try:
        calls(args, params)  # recorded and built before the profiled call
        _profiled(lambda: calls(args, params), gate)()
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        chan.send(calls.error(exc, None))


def _profiled(launcher, gate=None):
    """`launcher` called twice: a warm-up (compiling, autotuning: not profiled), then the
    profiled call alone between cudaProfilerStart and cudaProfilerStop (`--profile-from-start
    off` makes ncu profile only there), `gate("profiling")` before it (it returns when this
    process may collect counters: see `GATE`) and `gate("profiled")` after it. Without a GPU,
    the two calls and nothing else."""
    import torch

    gpu = torch.cuda.is_available()

    def call(*args):
        launcher(*args)
        if not gpu:
            return launcher(*args)
        torch.cuda.synchronize()
        trace("warm-up call done")
        if gate is not None:
            gate("profiling")
        torch.cuda.profiler.start()
        try:
            return launcher(*args)
        finally:
            torch.cuda.synchronize()
            torch.cuda.profiler.stop()
            trace("profiled call done")
            if gate is not None:
                gate("profiled")

    return call


def preimport(device: str) -> None:
    """Everything a check imports before the student's code runs, the student's setup cell
    included (`grader.notebook`): imported by a server once for all its children, or by a
    worker started ahead of its request (`runner.start`) while it waits: the host process
    forked from it starts with them. No CUDA call: a CUDA context does not survive a fork."""
    from grader.backends import device as dev
    dev.use(device)
    import numpy  # noqa: F401
    import torch  # noqa: F401
    import triton  # noqa: F401
    import triton.language  # noqa: F401

    import grader.backends.bench
    import grader.execution.host
    import grader.execution.kernels
    import grader.execution.phantom
    import grader.execution.replay
    import grader.judge.correctness
    import grader.judge.perf
    import grader.lab.manifest
    import grader.lab.submission  # noqa: F401
    import grader.notebook  # noqa: F401 - the setup cell's import
    # Not Triton's driver: choosing it asks torch.cuda.is_available(), which initialises CUDA.
    trace("preimported")


def start_cuda(device: str) -> None:
    """CUDA's start (1.5-2 s under a profiler on an H200 machine) done while the worker waits
    for its request, then said (`runner.Started.ready`): only for a process that does not
    fork, started where its start cannot overlap a timed round."""
    from grader.execution import runner
    if device == "gpu":
        import torch

        torch.cuda.init()
        trace("cuda initialised ahead")
    Path(runner.READY).touch()


def serve(device: str, msg_fd: int, res_fd: int, ctl_fd: int, sandboxed: bool) -> None:
    """A worker server (`grader.execution.runner.Server`): everything a check imports before the
    student's code, imported once; then, per request frame, a forked child runs it as a fresh
    worker would, and once it exits every other process it left is killed before its exit
    status goes out on `ctl_fd` (closed in the child: a child cannot fake its own end)."""
    from grader.base import wire
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
    from grader.base import wire
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
