"""Reference CUDA attention launcher: the perf bar of lab16's `attention` (hidden from students).
attention.cu: WMMA fragments (__nv_bfloat16 or __half, float accumulators), K/V tiles
double-buffered in shared memory through cp.async, the scores, the online softmax and the output
accumulator in fragments, one or two 16-query tiles a warp (at d 128 two, their q fragments
loaded from a shared q tile each K/V tile); causal blocks stop at the diagonal and run their
last query tile first; on the course GPUs each row's max and sum go through quad shuffles
(QUAD), and the accumulator is rescaled lazily (RESCALE_SLACK). Target (lab.toml): 0.4x
torch's FlashAttention-2 at s = 4096; students are graded at 0.8x of it. On an H100
(2026-12-07, `TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`, three runs): 248-250 / 193-196
TFLOP/s full / causal at d 64, 273-277 / 231-234 at d 128: 0.83x / 0.74x, 0.78x / 0.76x
FlashAttention-2 (301 / 264 / 354 / 305, `python -m benchmarks.sdpa_backends`), 0.52x / 0.48x,
0.41x / 0.40x torch's default call (cuDNN's kernel). What bounds it is instruction issue: the
tensor pipes were busy 39% of the time (Nsight Compute, d 128), and each K/V tile spends more
instructions on the softmax's bookkeeping and the copies' addresses than on mma_sync.
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
# D*_WARPS says. ptxas (nvcc 13.0, sm_90), bfloat16: 1 tile 166 / 162 registers at d 64 with
# 4 / 8 warps, 230 / 225 at d 128; 2 tiles 251 at d 64. At d 128, 2 tiles with q's fragments in
# registers need 255 and spill 952 bytes: 2 tiles there take q from shared memory instead, with
# fewer keys a K/V tile (T2_BN below). Swept on an H100 (2026-12-06, full / causal,
# TFLOP/s): d 64 2 tiles 196 / 167, 1 tile 172 / 162; d 128 1 tile 201 / 181 (8 warps).
# Designs that kept the scores, or the accumulator too, in shared memory ran 104-165, and 2
# tiles at d 128 with q from shared memory at 64 keys a K/V tile (one block an SM) 149
# (docs/perf-labs13-16.md). At d 128 on an H100 (2026-12-06, the sweep at the perf shapes,
# full / causal, TFLOP/s): 1 tile 194 / 177, 2 tiles with q from shared memory and 32 keys a
# K/V tile 209 / 181.
D64_TILES = 2
D128_TILES = 2
# The 2-tile kernels at d 128 take 32 keys a K/V tile (attention.cu's BN; 64 everywhere else)
# and their q fragments from a shared q tile for each K/V tile (attention.cu's QS). ptxas (nvcc
# 13.0, sm_90), bfloat16, 2 tiles at d 128: q in registers spills 952 / 300 / 204 bytes at 64 /
# 32 / 16 keys, q from shared memory 176 at 64 keys; these: 249 registers at 32 keys, no spill.
# With 128 threads, 2 blocks (8 warps) an SM by registers and by shared memory (97 KiB a block,
# 1 KiB more reserved). Per K/V tile a warp loads q's, K's and V's fragments for 32 queries: 21
# FLOP a byte of shared memory, 4/3 of 1 tile's 16 (64 keys, q held). The sweep (as above) also
# ran 16 keys a tile, 153 / 135, and the accumulator rescaled only where a row's max moved,
# 208 / 180: neither kept (docs/perf-labs13-16.md).
T2_BN = 32
# The softmax's row max and sum through two quad shuffles where WMMA's accumulator map is
# mma.sync's (attention.cu's QUAD, checked by each warp at run time: the course GPUs), else
# through a shared exchange tile. ptxas (nvcc 13.0, sm_90), bfloat16, the K/V loop's
# instructions (masked paths included) with both exponentials one MUFU.EX2 (fragments.cuh's
# exp2_approx): 1442 -> 1115 at d 128 (2 tiles), 2024 -> 1436 at d 64, 128 HMMA in each.
# On the CPU backend only where TCLAB_WMMA_LAYOUT=mma gives its fragments the GPU's map (the
# design test in tests/test_references.py).
# On an H100 (2026-12-07, the sweep at the perf shapes, d 64 full / causal, d 128 full / causal,
# TFLOP/s): 219 / 172 / 245 / 206 with the shuffles, 188 / 131 / 208 / 169 without.
QUAD = True
# With the shuffles, the running max moves (and the accumulator is rescaled) only where a row of
# a warp's 16-query tile passes it by more than this, in base-2 units of the scaled scores: p
# stays <= 2^RESCALE_SLACK, the float32 sums and o the same. 0 rescales wherever a max moves.
# Under random scores no row passes its first tile's max by 8 (5.5 standard deviations), and
# each later tile skips the 128 multiplies of the accumulator (2 tiles at d 128: a lane's 2 x 8
# fragments of 8) and the exponentials of alpha: ptxas (nvcc 13, sm_90), bfloat16, d 128, the
# two branches a warp's vote skips hold 145 of the K/V loop's instructions, beside its 128 HMMA
# (255 registers, no spill). On an H100 (2026-12-07, the sweep at the perf shapes, d 64 full /
# causal, d 128 full / causal, TFLOP/s): 247 / 193 / 278 / 237 at 8, 246 / 194 / 269 / 229 at 0
# (with issue_whole's copies in both).
RESCALE_SLACK = 8.0
TUNE = {"D64_WARPS": (4, 8), "D128_WARPS": (4, 8), "D64_TILES": (1, 2), "D128_TILES": (1, 2),
        "QUAD": (False, True), "RESCALE_SLACK": (0.0, 8.0)}
PAD_T, PAD_F = 8, 4  # as fragments.cuh's
NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_kernel = functions(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself


def smem_bytes(d: int, warps: int, tiles: int, bn: int, qs: bool) -> int:
    """attention.cu's shared memory: two stages of K and V tiles (bn keys each) and the q tile
    (its own with qs, else from stage 1 on: only what passes the stages counts), then per warp
    the score and probability tiles of its 16 rows per query tile and their rescale factors and
    maxima."""
    bm = 16 * warps * tiles
    rows = max(4 * bn, (4 * bn if qs else 2 * bn) + bm)
    return rows * (d + PAD_T) * 2 + \
        warps * 16 * tiles * ((bn + PAD_F) * 4 + (bn + PAD_T) * 2 + 8)


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
    qs = d == 128 and tiles == 2
    bn = T2_BN if qs else 64
    name = f"attention_kernel_{NAMES[q.dtype]}_d{d}_w{warps}_t{tiles}" + \
        (f"_n{bn}_qs" if qs else "")
    _kernel(name)(
        np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(v.data_ptr()),
        np.uintp(o.data_ptr()), np.int32(s), np.float32(1.4426950408889634 / math.sqrt(d)),
        np.int32(causal), np.int32(QUAD), np.float32(RESCALE_SLACK), block=(32 * warps, 1, 1),
        grid=(-(-s // (16 * tiles * warps)), b * h), shared=smem_bytes(d, warps, tiles, bn, qs))
