"""Reference CUDA gated MLP launcher: the perf bar of lab15's `mlp` (hidden from students). The
pipelined WMMA GEMM shared with lab14 and linear_gelu (reference/common/linear_wmma.cuh:
__nv_bfloat16 fragments fed from shared memory that cp.async fills STAGES - 1 K tiles ahead, one
barrier per K tile) twice: mlp_gate_up_kernel_* (B's tiles rows of w_gate and w_up interleaved
by 16, silu(g) * u in float32 on the paired accumulators, h stored in bfloat16), then
mlp_down_kernel_* (y = h @ w_down.T): mlp.cu, with its work and byte ledger. One set of
constants per kernel for decode's small m, one for prefill's. Target (lab.toml): 0.45x eager
torch (three cuBLAS GEMMs, SiLU and the product) at 64 and 4096 tokens, d = 4096, f = 11008;
students are graded at 0.8x of it.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import functions

HERE = Path(__file__).resolve().parent
# The shared body's text, then this lab's: one source, so that a compile cache keyed by the text
# sees an edit of either.
SOURCE = (HERE.parent / "common" / "wmma_load.cuh").read_text() + \
    (HERE.parent / "common" / "linear_wmma.cuh").read_text() + (HERE / "mlp.cu").read_text()
# Read per call (benchmarks/tune_references.py sets them); each (tile, BK, STAGES) below is a
# kernel of mlp.cu, mlp_gate_up_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES> or
# mlp_down_kernel_<...>. A gate/up tile's BN counts rows of B, half of them w_gate's and half
# w_up's: h gets BN / 2 columns of it. Swept on an H100 (2026-12-06, `TUNE_LABS=lab15 bash
# scripts/gpu-check.sh tune`, every candidate within 373-387 TFLOP/s at m = 4096 but 128 x 128
# tiles, 323-336, and decode's 4 x 1 warp layouts, 75-82 against 96-98 at m = 64): 382 and 97
# TFLOP/s, 0.54x and 0.66x cuBLAS x 3 + SiLU and mul kernels (lab.toml asks 0.45x). The lab's
# CUDA solution uses the pre-sweep constants (32-deep K tiles, 4 stages, BK 64 and 128 at
# decode): 0.96-0.97x of these.
# Prefill (m > DECODE_M, compute-bound): lab10's tiles, 128 x 256 with 8 warps of 64 x 64.
GATE_UP_TILE = "128x256_2x4"  # h tiles of 128 x 128
GATE_UP_BK = 32
GATE_UP_STAGES = 3
DOWN_TILE = "128x256_2x4"
DOWN_BK = 64
DOWN_STAGES = 3
GROUP_M = 16  # tile rows per group of the numbering, both kernels
DECODE_M = 128  # two 64-row tile rows at most
# Decode (m <= DECODE_M, the read of the weights dominates): 4 warps, 4 stages (the one depth
# mlp.cu instantiates for decode).
# Gate/up: h tiles of 64 x 32, 344 blocks at f = 11008; at BK 64 (73728 bytes of shared memory)
# three fit an SM, and all of them run at once on an H100's 132 SMs (at BK 128, one an SM: 2.6
# waves).
DECODE_GATE_UP_TILE = "64x64_2x2"
DECODE_GATE_UP_BK = 128
DECODE_DOWN_TILE = "64x32_2x2"  # 128 blocks at d = 4096
DECODE_DOWN_BK = 256
DECODE_STAGES = 4
# The sweep's candidates (tried in turn, in this order, the others held at their best so far).
# The cross product of each kernel's candidates in each regime is instantiated (8 + 8 prefill
# kernels, 4 + 6 decode ones).
TUNE = {"GATE_UP_TILE": ("128x256_2x4", "128x128_2x2"), "GATE_UP_BK": (32, 64),
        "GATE_UP_STAGES": (3, 4), "DOWN_TILE": ("128x256_2x4", "128x128_2x2"),
        "DOWN_BK": (32, 64), "DOWN_STAGES": (3, 4), "GROUP_M": (8, 16),
        "DECODE_GATE_UP_TILE": ("64x64_2x2", "64x32_4x1"), "DECODE_GATE_UP_BK": (64, 128),
        "DECODE_DOWN_TILE": ("64x32_2x2", "64x16_4x1"), "DECODE_DOWN_BK": (64, 128, 256)}
# Rows not 16-byte aligned: mlp_gate_up_kernel_unaligned and mlp_down_kernel_unaligned,
# element-wise copies (any shape), each kernel by its own operands.
UNALIGNED = ("64x64_2x2", 32, 2)  # their tile, BK and STAGES in mlp.cu
PAD = 8  # elements of padding per shared row (KTile<__nv_bfloat16> in linear_wmma.cuh)
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


def _aligned(k: int, *tensors: torch.Tensor) -> bool:
    """16-byte cp.async pieces: every piece of a row wholly inside or outside it, and aligned."""
    return k % 8 == 0 and all(t.stride(0) % 8 == 0 and t.data_ptr() % 16 == 0 for t in tensors)


def _launch(kind: str, m: int, n: int, aligned: bool, decode: tuple, prefill: tuple,
            args: list) -> None:
    """One of mlp.cu's kernels of `kind` ("gate_up" or "down") over an m x n output (a gate/up
    tile covers BN / 2 of its columns)."""
    if not aligned:
        (tile, bk, stages), name = UNALIGNED, f"mlp_{kind}_kernel_unaligned"
    else:
        tile, bk, stages = decode if m <= DECODE_M else prefill
        name = f"mlp_{kind}_kernel_{tile}_{bk}_{stages}"
    bm, bn, warps_m, warps_n = (int(v) for v in tile.replace("_", "x").split("x"))
    cn = bn // 2 if kind == "gate_up" else bn  # columns of the output per tile
    shared = stages * (bm + bn) * (bk + PAD) * 2  # SMEM_BYTES in linear_wmma.cuh
    _kernel(name)(*args, np.int32(GROUP_M), block=(warps_m * warps_n * 32, 1, 1),
                  grid=(_cdiv(m, bm) * _cdiv(n, cn), 1), shared=shared)


def mlp_cuda(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
             y: torch.Tensor) -> None:
    m, d = x.shape
    f = w_gate.shape[0]
    assert w_gate.shape == w_up.shape == (f, d) and w_down.shape == (d, f) and y.shape == (m, d), \
        (f"x {tuple(x.shape)}, w_gate {tuple(w_gate.shape)}, w_up {tuple(w_up.shape)}, "
         f"w_down {tuple(w_down.shape)}, y {tuple(y.shape)}")
    assert all(t.stride(1) == 1 for t in (x, w_gate, w_up, w_down)) and y.is_contiguous(), \
        "rows must be contiguous"
    if m == 0 or d == 0:
        return
    h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)  # written once, read once
    # Read per call: the tuner sets them.
    _launch("gate_up", m, f, _aligned(d, x, w_gate, w_up),
            (DECODE_GATE_UP_TILE, DECODE_GATE_UP_BK, DECODE_STAGES),
            (GATE_UP_TILE, GATE_UP_BK, GATE_UP_STAGES),
            [np.uintp(x.data_ptr()), np.uintp(w_gate.data_ptr()), np.uintp(w_up.data_ptr()),
             np.uintp(h.data_ptr()), np.int32(m), np.int32(f), np.int32(d),
             np.int32(x.stride(0)), np.int32(w_gate.stride(0)), np.int32(w_up.stride(0))])
    _launch("down", m, d, _aligned(f, h, w_down),
            (DECODE_DOWN_TILE, DECODE_DOWN_BK, DECODE_STAGES),
            (DOWN_TILE, DOWN_BK, DOWN_STAGES),
            [np.uintp(h.data_ptr()), np.uintp(w_down.data_ptr()), np.uintp(y.data_ptr()),
             np.int32(m), np.int32(d), np.int32(f), np.int32(w_down.stride(0))])
