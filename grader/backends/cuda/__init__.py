"""CUDA kernels for pycuda's SourceModule, on a GPU (pycuda) or on a CPU (our backend).

    from grader.backends.cuda import SourceModule
    fn = SourceModule(src).get_function("add_kernel")
    fn(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
       block=(256, 1, 1), grid=((n + 255) // 256, 1))

TCLAB_DEVICE=cpu|gpu|auto picks the backend (auto: the GPU when torch sees one). The CPU
backend compiles with g++ and runs every CUDA thread as a fiber: __syncthreads() is a real
barrier, warp intrinsics exchange among 32 lanes, atomics are atomic across blocks. It adds
race detection (run_twice_and_compare) and checked mode (checked=True or
TCLAB_CUDA_CHECKED=1: out-of-bounds reads raise LaunchError). See docs/cuda-cpu-backend.md.
"""

from __future__ import annotations

import os

from grader.backends.cuda.args import In, InOut, Out
from grader.backends.cuda.buffers import track
from grader.backends.cuda.errors import CompileError, CudaError, KernelNotFound, LaunchError
from grader.backends.cuda.race import ScheduleComparison, run_twice_and_compare

__all__ = [
    "CompileError", "CudaError", "In", "InOut", "KernelNotFound", "LaunchError", "Out",
    "ScheduleComparison", "SourceModule", "device", "functions", "run_twice_and_compare", "track",
]

CHOICES = ("auto", "cpu", "gpu")


def device() -> str:
    """'cpu' or 'gpu', from TCLAB_DEVICE (read on every call); auto = gpu iff torch sees one."""
    choice = (os.environ.get("TCLAB_DEVICE") or "auto").strip().lower()
    if choice not in CHOICES:
        raise ValueError(f"TCLAB_DEVICE={choice!r}: expected one of {', '.join(CHOICES)}")
    if choice == "auto":
        import torch

        return "gpu" if torch.cuda.is_available() else "cpu"
    return choice


def SourceModule(source: str, *, no_extern_c: bool = False, options=None, include_dirs=None,
                 checked: bool | None = None, schedule: str | None = None, **pycuda_kwargs):
    """Compile CUDA C source on the current backend; pycuda's SourceModule signature.

    no_extern_c=False wraps the source in extern "C" { } as pycuda does (plain kernel names).
    checked / schedule apply to the CPU backend only (see CpuFunction.__call__).
    Raises CompileError with the compiler's message, lines numbered from 1 in `source`."""
    if device() == "gpu":
        from grader.backends.cuda.gpu import GpuModule

        return GpuModule(source, no_extern_c, options, include_dirs, **pycuda_kwargs)
    from grader.backends.cuda.cpu import CpuModule

    return CpuModule(source, no_extern_c, options, include_dirs, checked=checked,
                     schedule=schedule)


def functions(source: str, **module_kwargs):
    """`get(name)`: function `name` of SourceModule(source, **module_kwargs), the module built at
    the first get (on the backend of that moment, not at import) and each function looked up
    once: for a launcher that picks among many kernels of one source, as the references'
    templates do."""
    module: list = []
    found: dict = {}

    def get(name: str):
        if not module:
            module.append(SourceModule(source, **module_kwargs))
        if name not in found:
            found[name] = module[0].get_function(name)
        return found[name]

    return get

