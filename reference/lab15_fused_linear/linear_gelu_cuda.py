"""Reference CUDA linear layer with a fused GELU: the perf bar of lab15's `linear_gelu` (hidden
from students). WMMA __nv_bfloat16 fragments, a float accumulator, 4 warps per 64 x 64 tile of
y, the bias and GELU's tanh form in a float32 epilogue: linear_gelu.cu. Constants not yet tuned
on a GPU. Target (lab.toml): 0.45x cuBLAS + a GELU kernel at 64 x 4096 x 4096 and 4096^3;
students are graded at 0.8x of it.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "linear_gelu.cu").read_text()
BM, BN, THREADS = 64, 64, 128  # BM, BN and THREADS in linear_gelu.cu (not yet tuned on a GPU)
_kernel = None


def linear_gelu_cuda(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, y: torch.Tensor) -> None:
    global _kernel
    if _kernel is None:  # <mma.h> is C++: the kernel is extern "C" itself
        _kernel = SourceModule(SOURCE, no_extern_c=True).get_function("linear_gelu_kernel")
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    tiles = -(-m // BM) * -(-n // BN)
    _kernel(np.uintp(x.data_ptr()), np.uintp(w.data_ptr()), np.uintp(b.data_ptr()),
            np.uintp(y.data_ptr()), np.int32(m), np.int32(n), np.int32(k),
            np.int32(x.stride(0)), np.int32(w.stride(0)),
            block=(THREADS, 1, 1), grid=(tiles, 1))
