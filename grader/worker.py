"""The child side of the runner: loads ONE submission from source text and launches it.

Started by `grader.runner` in a fresh process group, it reads its request on stdin and writes
JSON lines to a pipe the parent opened. It never decides a verdict. In `check` mode it saves
what each launch wrote and the parent (which never loads student code) compares; in `perf`
mode it times the student against the reference with functions bound before the student's
code loaded.

    python -m grader.worker FD  < request.json
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from pathlib import Path


class Channel:
    """JSON lines to the parent; `os.write` is bound before any student code runs."""

    def __init__(self, fd: int):
        self.fd, self._write, self._dumps = fd, os.write, json.dumps

    def send(self, **msg) -> None:
        self._write(self.fd, (self._dumps(msg) + "\n").encode())


def classify(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, NotImplementedError) or "NotImplementedError" in text:
        return "not_implemented"
    if "CompileError" in text or "CompilationError" in text:
        return "compile_error"
    if "out-of-bounds read" in text:  # the CPU backend's checked mode
        return "memory_error"
    return "exception"


def summarize(exc: BaseException) -> str:
    """One line: the exception's type and the first line of its message (CUDA errors append
    several lines of advice after the one that matters)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


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


def run(request: dict, chan: Channel) -> None:
    from grader import device as dev

    dev.use(request["device"])
    import torch

    from grader import audit, check, manifest, submission, tamper

    lab = manifest.get(request["lab"])
    impl = lab.impls[request["impl"]]
    gpu = request["device"] == "gpu"
    tdev = dev.torch_device(request["device"])
    if gpu:
        torch.cuda.init()
    # Bound before any student code: the reference, the timer, what must not be replaced.
    watch = tamper.Watch(gpu)
    launches = audit.Launches()
    synchronize = torch.cuda.synchronize if gpu else (lambda: None)
    if request["mode"] == "perf":
        from grader import bench, reference

        timer = bench.Timer()
        ref_launcher = reference.load(lab, request["impl"])
    built = None
    try:
        built = submission.write_module(lab, request["sources"], Path(request["workdir"]))
        module = submission.import_module(built)
        launcher = getattr(module, impl.launcher, None)
        if not callable(launcher):
            raise NameError(f"the solution cells define no function {impl.launcher}()")
    except BaseException as exc:  # noqa: BLE001 - anything the student's code raises
        chan.send(event="error", index=None, kind=classify(exc), message=describe(exc, built),
                  summary=summarize(exc))
        return
    chan.send(event="loaded")
    cuda_counted = launches.watch_cuda(_cuda_function_class())

    def tampered(index) -> bool:
        names = watch.tampered() + ([] if launches.intact() else ["the launch counters"])
        if names:
            chan.send(event="error", index=index, kind="tampered",
                      message=f"the submission replaced {', '.join(names)}: grading functions "
                      "must not be patched (it changes nothing: grading happens elsewhere)")
        return bool(names)

    if tampered(None):
        return
    if request["mode"] == "perf":
        try:
            bench.run_child(lab, request, launcher, ref_launcher, timer, watch, launches,
                            request["impl"], chan.send)
        except BaseException as exc:  # noqa: BLE001
            chan.send(event="error", index=None, kind=classify(exc),
                      message=describe(exc, built), summary=summarize(exc))
        return
    dtype = check.DTYPES[request["dtype"]]
    for case in request["cases"]:
        saved = torch.load(case["file"])
        inputs = {k: check.to_device(v, tdev) for k, v in saved.items()}
        buffers, outputs = check.alloc_outputs(lab, case["shape"], dtype, tdev)
        start = time.perf_counter()
        counts = (launches.triton, launches.cuda)
        try:
            with audit.Audit() as seen:
                returned = launcher(*inputs.values(), *outputs.values())
            synchronize()
        except BaseException as exc:  # noqa: BLE001
            chan.send(event="error", index=case["index"], kind=classify(exc),
                      message=describe(exc, built), summary=summarize(exc))
            return
        seconds = time.perf_counter() - start
        ran = {"triton": launches.triton - counts[0]}
        if cuda_counted:
            ran["cuda"] = launches.cuda - counts[1]
        if tampered(case["index"]):
            return
        result = {"outputs": {k: b.cpu() for k, b in buffers.items()},
                  "inputs": {k: v.cpu() for k, v in inputs.items()}}
        # The same launch again with the threads of each block in reverse order at every
        # barrier (CPU backend): a result that depends on thread order is a race.
        for schedule in request.get("schedules", ()):
            os.environ["TCLAB_CUDA_SCHEDULE"] = schedule
            again, outputs = check.alloc_outputs(lab, case["shape"], dtype, tdev)
            try:
                launcher(*inputs.values(), *outputs.values())
            except BaseException as exc:  # noqa: BLE001
                chan.send(event="error", index=case["index"], kind=classify(exc),
                          message=describe(exc, built), summary=summarize(exc))
                return
            finally:
                os.environ.pop("TCLAB_CUDA_SCHEDULE", None)
            result.setdefault("schedules", {})[schedule] = {k: b.cpu() for k, b in again.items()}
        torch.save(result, case["result"])
        chan.send(event="case", index=case["index"], seconds=seconds, launches=ran,
                  foreign=seen.foreign, returned=_describe_returned(returned))


def _cuda_function_class():
    """The CUDA backend's kernel class for this device, whose calls are launches."""
    import importlib

    from grader import device as dev

    name = ("grader.cuda.gpu", "GpuFunction") if dev.resolve() == "gpu" else \
        ("grader.cuda.cpu", "CpuFunction")
    try:
        return getattr(importlib.import_module(name[0]), name[1], None)
    except ImportError:
        return None


def _describe_returned(value) -> str | None:
    import torch

    if isinstance(value, torch.Tensor):
        return f"a {str(value.dtype).removeprefix('torch.')} tensor of shape {tuple(value.shape)}"
    return None


def main() -> None:
    chan = Channel(int(sys.argv[1]))
    request = json.loads(sys.stdin.read())
    try:
        run(request, chan)
    finally:
        chan.send(event="done")


if __name__ == "__main__":
    main()
