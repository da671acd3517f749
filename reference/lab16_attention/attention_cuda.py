"""Reference CUDA attention launcher: the perf bar of lab16's `attention` (hidden from students).
attention.cu: WMMA fragments (__nv_bfloat16 or __half, float accumulators), q held per warp, K/V
tiles double-buffered in shared memory through cp.async, the scores, the online softmax and the
output accumulator in fragments, one or two 16-query tiles a warp; causal blocks stop at the
diagonal. Target (lab.toml): 0.4x torch's fused attention at s = 4096; students are graded at
0.8x of it. On an H100 (2026-12-06, after the sweep): 200 / 169 TFLOP/s full / causal at d 64
(0.41x: met), 204 / 183 at d 128 (0.31x / 0.32x: missed). What bounds d 128: a warp of one
query tile owns 16 queries and reads the whole K and V tiles from shared memory as fragments,
32 KiB per tile for 0.5 MFLOP, 16 FLOP a byte where shared memory serves about 128 bytes a
clock; two query tiles a warp (the d 64 winner) need more than 255 registers at d 128.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import functions

HERE = Path(__file__).resolve().parent
# The fragment loads (load_fragment: bfloat16 ones with the shared state space on the GPU), the
# helpers lab16's WMMA references share (fragments.cuh), then the kernels: one source, so that a
# compile cache keyed by the text sees an edit of any.
SOURCE = (HERE.parent / "common" / "wmma_load.cuh").read_text() + \
    (HERE / "fragments.cuh").read_text() + (HERE / "attention.cu").read_text()
# Warps per block (16 queries each) per head dimension; read per call (benchmarks/
# tune_references.py sets them). Swept on an H100 (2026-12-06, `TUNE_LABS=lab16 bash scripts/gpu-
# check.sh tune`).
D64_WARPS = 4
D128_WARPS = 8
# 16-query tiles per warp, per head dimension (attention.cu's MT): 2, every K and V fragment
# loaded from shared memory feeds two products, at 4 warps (128 queries a block) whatever
# D*_WARPS says. ptxas (nvcc 13, sm_90), bfloat16: 1 tile 164 registers at d 64, 223 / 224 at
# d 128 with 4 / 8 warps; 2 tiles 252 at d 64 and, at d 128, 255 and a 912-byte spill. Swept on
# an H100 (2026-12-06, full / causal, TFLOP/s): d 64 2 tiles 196 / 167, 1 tile 172 / 162; d 128
# 1 tile 201 / 181 (8 warps). Designs that kept the scores, or the accumulator too, in shared
# memory ran 104-165 (docs/perf-labs13-16.md).
D64_TILES = 2
D128_TILES = 1
TUNE = {"D64_WARPS": (4, 8), "D128_WARPS": (4, 8), "D64_TILES": (1, 2), "D128_TILES": (1, 2)}
BN = 64  # keys per K/V tile, as attention.cu's
PAD_T, PAD_F = 8, 4  # as fragments.cuh's
NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def smem_bytes(d: int, warps: int, tiles: int) -> int:
    """attention.cu's shared memory: two stages of K and V tiles, then per warp the score and
    probability tiles of its 16 rows per query tile and their rescale factors and maxima."""
    return 2 * 2 * BN * (d + PAD_T) * 2 + \
        warps * 16 * tiles * ((BN + PAD_F) * 4 + (BN + PAD_T) * 2 + 8)


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
    warps, tiles = (D64_WARPS, D64_TILES) if d == 64 else (D128_WARPS, D128_TILES)
    assert tiles in (1, 2), f"{tiles} query tiles a warp: 1 or 2"
    warps = 4 if tiles == 2 else warps
    _kernel(f"attention_kernel_{NAMES[q.dtype]}_d{d}_w{warps}_t{tiles}")(
        np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(v.data_ptr()),
        np.uintp(o.data_ptr()), np.int32(s), np.float32(1.4426950408889634 / math.sqrt(d)),
        np.int32(causal), block=(32 * warps, 1, 1), grid=(-(-s // (16 * tiles * warps)), b * h),
        shared=smem_bytes(d, warps, tiles))
