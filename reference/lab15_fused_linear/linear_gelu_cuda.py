"""Reference CUDA linear layer with a fused GELU launcher: the perf bar of lab15's `linear_gelu`
(hidden from students). The pipelined WMMA GEMM shared with lab14 (reference/common/
linear_wmma.cuh: __nv_bfloat16 fragments fed from shared memory that cp.async fills STAGES - 1
K tiles ahead, one barrier per K tile) with this lab's epilogue, the bias and GELU's tanh form
in float32: linear_gelu.cu, with its work and byte ledger. One set of constants for decode's
small m, one for prefill's. Target (lab.toml): 0.45x cuBLAS + a GELU kernel at 64 x 4096 x 4096
and 4096^3; students are graded at 0.8x of it.
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
    (HERE / "linear_gelu.cu").read_text()
# Read per call (benchmarks/tune_references.py sets them); each (TILE, BK, STAGES) and each
# (DECODE_TILE, DECODE_BK, DECODE_STAGES) is a kernel of linear_gelu.cu,
# linear_gelu_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES>.
# Swept on an H100 (2026-12-06, `TUNE_LABS=lab15 bash scripts/gpu-check.sh tune`; copies of whole
# rows of a K tile, up to 128 bytes, as linear_wmma.cuh says): prefill (m > DECODE_M,
# compute-bound) 128 x 256 with 8 warps of 64 x 64 (128 x 128: 282 TFLOP/s), BK 32 or 64 and 3
# or 4 stages within 346-358 TFLOP/s at 4096^3; decode (m <= DECODE_M, the read of w dominates)
# 64 x 32 or 64 x 64 tiles, 4 warps, BK 64 or 128, all 74-75. Chosen by the sweep's mean of the
# two (the sizes are alike within the run's noise): 348 and 74 TFLOP/s, 0.51x and 0.72x cuBLAS +
# a GELU kernel, where lab.toml asks 0.45x.
TILE = "128x256_2x4"
BK = 64
STAGES = 4
GROUP_M = 16  # tile rows per group of the numbering
DECODE_M = 128  # two 64-row tile rows at most
DECODE_TILE = "64x64_2x2"
DECODE_BK = 128
DECODE_STAGES = 4  # the one depth linear_gelu.cu instantiates for decode
# The sweep's candidates (tried in turn, in this order, the others held at their best so far).
# The cross product of each regime's candidates is instantiated (8 + 4 kernels): 128 x 256 and
# 128 x 128 at BK 32 and 64, 3 and 4 stages, lab10's tiles and depths; decode's two tiles at BK
# 64 and 128 (in flight: 3 x 64 or 3 x 128 columns of w per block).
TUNE = {"TILE": ("128x256_2x4", "128x128_2x2"), "BK": (32, 64), "STAGES": (3, 4),
        "GROUP_M": (8, 16), "DECODE_TILE": ("64x32_2x2", "64x64_2x2"), "DECODE_BK": (64, 128)}
# Rows not 16-byte aligned: linear_gelu_kernel_unaligned, element-wise copies (any shape).
UNALIGNED = ("64x64_2x2", 32, 2)  # its tile, BK and STAGES in linear_gelu.cu
PAD = 8  # elements of padding per shared row (KTile<__nv_bfloat16> in linear_wmma.cuh)
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


def linear_gelu_cuda(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, y: torch.Tensor) -> None:
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    if m == 0 or n == 0:
        return
    # 16-byte cp.async pieces need every piece of a row wholly inside or outside it and aligned.
    aligned = k % 8 == 0 and all(t.stride(0) % 8 == 0 and t.data_ptr() % 16 == 0 for t in (x, w))
    if not aligned:
        (tile, bk, stages), name = UNALIGNED, "linear_gelu_kernel_unaligned"
    else:
        if m <= DECODE_M:  # read per call: the tuner sets them
            tile, bk, stages = DECODE_TILE, DECODE_BK, DECODE_STAGES
        else:
            tile, bk, stages = TILE, BK, STAGES
        name = f"linear_gelu_kernel_{tile}_{bk}_{stages}"
    bm, bn, warps_m, warps_n = (int(v) for v in tile.replace("_", "x").split("x"))
    shared = stages * (bm + bn) * (bk + PAD) * 2  # SMEM_BYTES in linear_wmma.cuh
    _kernel(name)(
        np.uintp(x.data_ptr()), np.uintp(w.data_ptr()), np.uintp(b.data_ptr()),
        np.uintp(y.data_ptr()), np.int32(m), np.int32(n), np.int32(k), np.int32(x.stride(0)),
        np.int32(w.stride(0)), np.int32(GROUP_M),
        block=(warps_m * warps_n * 32, 1, 1), grid=(_cdiv(m, bm) * _cdiv(n, bn), 1), shared=shared)
