"""Reference CUDA row softmax launcher (hidden from students): the row in registers."""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "softmax.cu").read_text()
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels = {v: _module.get_function(f"softmax_kernel_v{v}") for v in (1, 2, 4, 8)}
_scalar = _module.get_function("softmax_kernel_scalar")
# Threads per block aim at THREADS_TARGET, float4s per thread grow with the row; sweep on an
# H200 (see docs/perf.md).
THREADS_TARGET = 128
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS_TARGET": (128, 256, 512, 1024)}
MAX_THREADS = 1024


def plan(n_cols: int) -> tuple[int, int]:
    """(float4s per thread, threads per block) for a float4-aligned row."""
    n4 = n_cols // 4
    vpt = 1
    while vpt < 8 and n4 > THREADS_TARGET * vpt:
        vpt *= 2
    threads = min(MAX_THREADS, -(-n4 // vpt))
    if vpt * threads < n4:  # rows longer than 8 x 1024 float4s
        raise ValueError(f"n_cols={n_cols} is longer than this reference supports")
    return vpt, max(32, -(-threads // 32) * 32)


def softmax_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    aligned = n_cols % 4 == 0 and x.stride(0) % 4 == 0 and x.data_ptr() % 16 == 0 \
        and out.data_ptr() % 16 == 0
    args = (np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_cols),
            np.int32(x.stride(0)))
    if aligned:
        vpt, threads = plan(n_cols)
        _kernels[vpt](*args, block=(threads, 1, 1), grid=(n_rows, 1))
    else:
        _scalar(*args, block=(256, 1, 1), grid=(n_rows, 1))
