"""Reference CUDA attention launcher: the perf bar of lab16's `attention` (hidden from students).
attention.cu: WMMA fragments (__nv_bfloat16 or __half, float accumulators), q held per warp, K/V
tiles double-buffered in shared memory through cp.async, the online softmax per row, one or two
16-query tiles a warp; designs (D64_ACC / D128_ACC) differ in where the accumulator and the
scores live; causal blocks stop at the diagonal. Target (lab.toml): 0.4x torch's fused
attention at s = 4096; students are graded at 0.8x of it. On an H100 (2026-12-06, after the
sweep): 200 / 169 TFLOP/s full / causal at d 64 (0.41x: met), 204 / 183 at d 128 (0.31x /
0.32x: missed). What bounds d 128: a warp of "rs" owns 16 queries and reads the whole K and V
tiles from shared memory as fragments, 32 KiB per tile for 0.5 MFLOP, 16 FLOP a byte where
shared memory serves about 128 bytes a clock; two query tiles a warp ("rs2", the d 64 winner)
need more than 255 registers at d 128.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import functions

HERE = Path(__file__).resolve().parent
# The fragment loads (load_fragment: bfloat16 ones with the shared state space on the GPU), then
# the kernels: one source, so that a compile cache keyed by the text sees an edit of either.
SOURCE = (HERE.parent / "common" / "wmma_load.cuh").read_text() + \
    (HERE / "attention.cu").read_text()
# Warps per block (16 queries each) per head dimension; read per call (benchmarks/
# tune_references.py sets them). Swept on an H100 (2026-12-06, `TUNE_LABS=lab16 bash scripts/gpu-
# check.sh tune`).
D64_WARPS = 4
D128_WARPS = 8
# Where each warp's 16 x d float32 accumulator lives across K/V tiles, and where its scores
# go, per head dimension (attention.cu's designs):
# "shared": a float tile that p . v loads and stores back fragment by fragment every tile, the
#   scores and probabilities through per-warp tiles of shared memory;
# "regs": d / 16 accumulator fragments held for the whole loop (kernels named *_regs;
#   attention.cu's header: the per-row rescale through a fragment element -> row map learnt at
#   run time), the scores still through shared memory;
# "regs2": "regs" with two 16-query tiles a warp, 4 warps (128 queries a block) whatever
#   D*_WARPS says: each K and V fragment loaded from shared memory feeds two products;
# "rs", "rs2": the scores, softmax and probabilities in accumulator fragments too, only each
#   row's statistics through shared memory (attention_tile_rs), one or two query tiles a warp.
# ptxas (nvcc 13, sm_90), bfloat16: "rs" 164 registers at d 64, 223 / 224 at d 128 with 4 / 8
# warps; "rs2" 252 at d 64 and, at d 128, 255 and a 912-byte spill ("regs2": 207; 255 and 40).
# Swept on an H100 (2026-12-06, full / causal, TFLOP/s): d 64 "rs2" 196 / 167, "rs" 172 / 162,
# "regs" 144 / 136, "shared" 104 / 96; d 128 "rs" 201 / 181 (8 warps), "regs" 165. "rs2" with
# q reloaded from shared memory every tile to stay under 255 registers at d 128 ran 149 / 135
# there (one block of 4 warps a SM) and is not kept.
D64_ACC = "rs2"
D128_ACC = "rs"
# TUNE spelt out: tests/test_references.py reads it as a literal.
TUNE = {"D64_WARPS": (4, 8), "D128_WARPS": (4, 8),
        "D64_ACC": ("shared", "regs", "regs2", "rs", "rs2"),
        "D128_ACC": ("shared", "regs", "regs2", "rs", "rs2")}
DESIGNS = TUNE["D64_ACC"]
TWO_TILES = ("regs2", "rs2")  # two 16-query tiles a warp, 4 warps
BN = 64  # keys per K/V tile, as attention.cu's
PAD_T, PAD_F = 8, 4  # as attention.cu's
NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def smem_bytes(d: int, warps: int, acc: str) -> int:
    """attention.cu's shared memory: two stages of K and V tiles, then per warp the score and
    probability tiles of its 16 or 32 rows (TWO_TILES) and the accumulator tile ("shared") or
    its rows' rescale factors (and maxima: "rs", "rs2")."""
    per_row = (d + PAD_F) * 4 if acc == "shared" else 8 if acc.startswith("rs") else 4
    rows = 32 if acc in TWO_TILES else 16
    return 2 * 2 * BN * (d + PAD_T) * 2 + \
        warps * rows * ((BN + PAD_F) * 4 + (BN + PAD_T) * 2 + per_row)


def attention_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                   causal: int) -> None:
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() and t.dtype == q.dtype for t in (q, k, v, o)), \
        "q, k, v and o: contiguous, one dtype"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v, o)), "16-byte copies need alignment"
    assert d in (64, 128) and q.dtype in NAMES, f"{q.dtype}, head dim {d}"
    assert b * h <= 65535, f"{b * h} heads: gridDim.y <= 65535"
    warps, acc = (D64_WARPS, D64_ACC) if d == 64 else (D128_WARPS, D128_ACC)
    assert acc in DESIGNS, f"accumulator {acc!r}: one of {DESIGNS}"
    warps = 4 if acc in TWO_TILES else warps
    rows = 32 * warps if acc in TWO_TILES else 16 * warps  # queries per block
    suffix = "" if acc == "shared" else f"_{acc}"
    _kernel(f"attention_kernel_{NAMES[q.dtype]}_d{d}_w{warps}{suffix}")(
        np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(v.data_ptr()),
        np.uintp(o.data_ptr()), np.int32(s), np.float32(1.4426950408889634 / math.sqrt(d)),
        np.int32(causal), block=(32 * warps, 1, 1), grid=(-(-s // rows), b * h),
        shared=smem_bytes(d, warps, acc))
