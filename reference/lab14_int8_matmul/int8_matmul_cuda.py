"""Reference CUDA int8 matmul launcher: the perf bar of lab14's `int8_matmul` (hidden from
students). WMMA signed char fragments, an int accumulator, 4 warps per 64 x 64 tile of c, the
scales in a float32 epilogue: int8_matmul.cu. Constants not yet tuned on a GPU. Target
(lab.toml): 0.45x torch._int_mm + scaling at 4096^3 and 8192^3; students are graded at 0.8x
of it.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "int8_matmul.cu").read_text()
BM, BN, THREADS = 64, 64, 128  # BM, BN and THREADS in int8_matmul.cu (not yet tuned on a GPU)
_kernel = None


def int8_matmul_cuda(a: torch.Tensor, b: torch.Tensor, s_row: torch.Tensor,
                     s_col: torch.Tensor, c: torch.Tensor) -> None:
    global _kernel
    if _kernel is None:  # <mma.h> is C++: the kernel is extern "C" itself
        _kernel = SourceModule(SOURCE, no_extern_c=True).get_function("int8_matmul_kernel")
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) and s_col.shape == (n,), \
        f"a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    tiles = -(-m // BM) * -(-n // BN)
    _kernel(np.uintp(a.data_ptr()), np.uintp(b.data_ptr()), np.uintp(s_row.data_ptr()),
            np.uintp(s_col.data_ptr()), np.uintp(c.data_ptr()), np.int32(m), np.int32(n),
            np.int32(k), np.int32(a.stride(0)), np.int32(b.stride(0)),
            block=(THREADS, 1, 1), grid=(tiles, 1))
