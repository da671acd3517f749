"""Reference CUDA int8 matmul launcher: the perf bar of lab14's `int8_matmul` (hidden from
students). The pipelined WMMA GEMM shared with lab15 (reference/common/linear_wmma.cuh: signed
char fragments and an int accumulator fed from shared memory that cp.async fills STAGES - 1 K
tiles ahead, one barrier per K tile) with this lab's epilogue, the scales in float32:
int8_matmul.cu, with its work and byte ledger. Target (lab.toml): 0.45x torch._int_mm +
scaling at 4096^3 and 8192^3; students are graded at 0.8x of it.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import functions

HERE = Path(__file__).resolve().parent
# The shared body's text, then this lab's: one source, so that a compile cache keyed by the text
# sees an edit of either.
SOURCE = (HERE.parent / "common" / "wmma_load.cuh").read_text() + \
    (HERE.parent / "common" / "linear_wmma.cuh").read_text() + \
    (HERE / "int8_matmul.cu").read_text()
# Read per call (benchmarks/tune_references.py sets them); each (TILE, BK, STAGES) is a kernel of
# int8_matmul.cu, int8_matmul_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES>. Swept on an
# H100 (2026-12-06, `benchmarks/tune_references.py lab14`): 128 x 256 with 8 warps of 64 x 64
# (361 TFLOP/s mean against 323 for 128 x 128), K tiles of 64 bytes (402 against 357 at 128),
# 3 stages (4: within 1%): 387-408 TFLOP/s, 0.72-1.05x torch._int_mm + scaling (docs/perf.md).
# The lab's CUDA solution (labs/lab14_int8_matmul) runs these same constants.
TILE = "128x256_2x4"
BK = 64  # bytes
STAGES = 3
GROUP_M = 16  # tile rows per group of the numbering
# The sweep's candidates (tried in turn, in this order, the others held at their best so far);
# their cross product is instantiated (8 kernels).
TUNE = {"TILE": ("128x256_2x4", "128x128_2x2"), "BK": (64, 128), "STAGES": (3, 4),
        "GROUP_M": (8, 16)}
# Rows not 16-byte aligned: int8_matmul_kernel_unaligned, byte-wise copies (any shape).
UNALIGNED = ("64x64_2x2", 64, 2)  # its tile, BK and STAGES in int8_matmul.cu
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


def int8_matmul_cuda(a: torch.Tensor, b: torch.Tensor, s_row: torch.Tensor,
                     s_col: torch.Tensor, c: torch.Tensor) -> None:
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) and s_col.shape == (n,), \
        f"a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    if m == 0 or n == 0:
        return
    # 16-byte cp.async pieces need every piece of a row wholly inside or outside it and aligned.
    aligned = k % 16 == 0 and all(t.stride(0) % 16 == 0 and t.data_ptr() % 16 == 0
                                  for t in (a, b))
    if aligned:
        tile, bk, stages = TILE, BK, STAGES  # read per call: the tuner sets them
        name = f"int8_matmul_kernel_{tile}_{bk}_{stages}"
    else:
        (tile, bk, stages), name = UNALIGNED, "int8_matmul_kernel_unaligned"
    bm, bn, warps_m, warps_n = (int(v) for v in tile.replace("_", "x").split("x"))
    shared = stages * (bm + bn) * bk  # SMEM_BYTES in linear_wmma.cuh (unpadded slices)
    _kernel(name)(
        np.uintp(a.data_ptr()), np.uintp(b.data_ptr()), np.uintp(s_row.data_ptr()),
        np.uintp(s_col.data_ptr()), np.uintp(c.data_ptr()), np.int32(m), np.int32(n),
        np.int32(k), np.int32(a.stride(0)), np.int32(b.stride(0)), np.int32(GROUP_M),
        block=(warps_m * warps_n * 32, 1, 1), grid=(_cdiv(m, bm) * _cdiv(n, bn), 1), shared=shared)
