"""The helpers a lab notebook calls: `check` (correctness) and `bench` (bandwidth).

They run inside the student's kernel for instant feedback, on the same cases and with the
same comparisons as the grader; the grade itself is decided outside the notebook (runner).
"""

from __future__ import annotations

import os
from contextlib import contextmanager, nullcontext

import torch

from grader import check as checks
from grader import device as dev
from grader import manifest

# The setup cell imports this module before any kernel is defined: fix the device now, so
# that without a GPU Triton runs in its interpreter (TRITON_INTERPRET must precede @jit).
dev.use(dev.resolve())


class CheckFailed(AssertionError):
    """A failed check: its message is the whole story, no traceback needed."""


def _not_implemented(exc: BaseException) -> bool:
    return isinstance(exc, NotImplementedError) or "NotImplementedError" in repr(exc)


@contextmanager
def _environ(**values: str):
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def check(lab_id: str, impl: str, launcher, suite: str = "public") -> None:
    """Run `launcher` on every shape of `suite` and compare with the oracle; raise on failure.

    CUDA C without a GPU runs as the grader runs it: reads are bounds-checked, and every
    launch runs again with each block's threads in reverse order to expose races.
    """
    __tracebackhide__ = True  # noqa: F841 - IPython and pytest hide this frame
    lab = manifest.get(lab_id)
    device = dev.resolve()
    if suite == "gpu" and device != "gpu":
        print(f"{lab.id} {impl} [{suite}]: skipped: needs a GPU")
        return
    tdev = dev.torch_device(device)
    kernel = lab.impls[impl].kernel
    cpu_cuda = impl == "cuda" and device == "cpu"
    cases = checks.cases(lab, suite)

    def launch(inputs, shape):
        buffers, outputs = checks.alloc_outputs(lab, shape, torch.float32, tdev)
        try:
            launcher(*inputs.values(), *outputs.values())
            if tdev == "cuda":
                torch.cuda.synchronize()
        except Exception as exc:
            if _not_implemented(exc):
                raise CheckFailed(f"not implemented: fill in {kernel} ({impl})") from None
            raise
        return buffers

    def problem(buffers, expected, shape):
        return next(filter(None, (checks.compare(lab, shape, name, buffers[name], want,
                                                 "float32")
                                  for name, want in expected.items())), None)

    with _environ(TCLAB_CUDA_CHECKED="1") if cpu_cuda else nullcontext():
        for case in cases:
            inputs = {k: checks.to_device(v, tdev) for k, v in
                      checks.make_inputs(lab, case.shape, case.seed, torch.float32).items()}
            before = {k: v.clone() for k, v in inputs.items()}
            expected = checks.oracle(lab, inputs)
            found = problem(launch(inputs, case.shape), expected, case.shape)
            found = found or checks.mutated(before, inputs)
            if cpu_cuda and not checks.mutated(before, inputs):
                with _environ(TCLAB_CUDA_SCHEDULE="reverse"):
                    other = problem(launch(inputs, case.shape), expected, case.shape)
                if (found is None) != (other is None):
                    found = checks.race(f"{lab.id} [{lab.describe(case.shape)}]", "reverse",
                                        found is None)
            if found:
                raise CheckFailed(found)
    print(f"{lab.id} {impl} [{suite}]: {len(cases)}/{len(cases)} shapes correct "
          f"({device}{', Triton interpreter' if impl == 'triton' and device == 'cpu' else ''})")


def bench(lab_id: str, impl: str, launcher, graded: bool = False):
    """Bandwidth of `launcher` on the GPU, with a plot; on the CPU, says it cannot measure."""
    __tracebackhide__ = True  # noqa: F841
    lab = manifest.get(lab_id)
    if dev.resolve() != "gpu":
        if graded:
            raise CheckFailed(f"{lab.id} {impl} performance: not graded: needs a GPU")
        print(f"{lab.id} {impl} performance: skipped: needs a GPU")
        return None
    from grader import bench as timing

    return timing.notebook_report(lab, impl, launcher, graded=graded)
