"""Reference Triton attention (FlashAttention's forward pass): the perf bar of lab16's `attention`
(hidden from students). o = softmax(q k^T / sqrt(d) [causal]) v for [b, h, s, d] contiguous
bfloat16/float16 tensors: one program per BLOCK_M queries of a head, its q tile in registers, K/V
tiles of BLOCK_N keys streamed past it with the online softmax (running max and sum in float32,
base 2, the accumulator rescaled when the max moves), p rounded to the input dtype for the
second tl.dot.

Causal heads: the tiles wholly below the diagonal run without a mask, the diagonal's tiles with
it, and none past it. Heads whose length is a multiple of BLOCK_M run without a mask past s.

Work (lab.toml's `flops`): 4 b h s^2 d full, 4 b h d s (s + 1) / 2 causal. Minimum traffic:
2 bytes x 4 b h s d (q, k, v read once, o written once); k and v are read once per query tile,
from L2 mostly.

Target (lab.toml): 0.85x torch's FlashAttention-2 at s = 4096. On an H100 (2026-12-07,
`TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`, three runs): d 64 426-427 / 364-366 TFLOP/s
full / causal, d 128 561-569 / 462-466 with the warp-specialized kernel (D128_WS), whose one
loop masks every tile of a causal head: 1.42x / 1.38x, 1.60x / 1.52x FlashAttention-2 (301 /
264 / 354 / 305, `python -m benchmarks.sdpa_backends`); 0.89x / 0.89x, 0.83x-0.85x /
0.81x-0.82x torch's default call, cuDNN's kernel there.
"""

import math

import torch
import triton
import triton.language as tl

# Per head dimension: queries per program, keys per tile, warps, pipeline stages. Swept on an H100
# (2026-12-06, `TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`).
D64_BLOCK_M = 64
D64_BLOCK_N = 64
D64_NUM_WARPS = 4
D64_NUM_STAGES = 3
D128_BLOCK_M = 128
D128_BLOCK_N = 128
D128_NUM_WARPS = 8
D128_NUM_STAGES = 3
# Warp specialization (per head dimension): attention_ws_kernel, where s is a multiple of
# BLOCK_M. Tiles come through tensor descriptors built in the kernel, and tl.range's
# warp_specialize splits the program into a producer warp group (the TMA loads) and two
# consumer groups of BLOCK_M / 2 queries each, synchronised only with the producer, so that one
# group's softmax runs under the other's tl.dot. Triton (3.6) does this on Hopper only at 4
# warps (the launcher passes 4; the program runs 12), only for loops whose loads are tensor
# descriptors, and for one such loop a kernel: causal heads run one masked loop up to the
# diagonal. On an H100 (2026-12-06, the sweep): d 128 567 / 442 TFLOP/s full / causal against
# 496 / 423 without; d 64 167 / 136 against 425 / 369 (64-query tiles: two consumer groups of
# 32 rows).
D64_WS = False
D128_WS = True
WS_NUM_STAGES = 2  # its pipeline stages (3 at 128 x 128 x 128 do not fit shared memory)
WS_BLOCK_N = 128  # its keys per K/V tile (BLOCK_M is D128_BLOCK_M / D64_BLOCK_M)
# Causal heads: a head's query tiles run last tile first. Programs start in the grid's order
# (query tile fastest, then head), and a causal program's work grows with its query tile, so
# in the natural order the grid ends with the last head's heaviest program running alone; last
# tile first, it ends with one-tile programs. A head's programs stay together (its K and V shared
# through L2). On an H100 (2026-12-06, the sweep at the perf shapes, d 64 / d 128 causal,
# TFLOP/s): 371 / 452 against 365 / 444 in the natural order.
HEAVY_FIRST = True
# The sweep's candidates (benchmarks/tune_references.py tries each in turn). BLOCK_M must stay a
# multiple of BLOCK_N (the causal split below assumes the diagonal starts on a tile boundary).
TUNE = {"D64_WS": (False, True), "D128_WS": (False, True), "WS_BLOCK_N": (128, 64),
        "WS_NUM_STAGES": (2, 3), "HEAVY_FIRST": (False, True),
        "D64_BLOCK_M": (64, 128), "D64_BLOCK_N": (32, 64, 128), "D64_NUM_WARPS": (4, 8),
        "D64_NUM_STAGES": (2, 3, 4),
        "D128_BLOCK_M": (64, 128), "D128_BLOCK_N": (32, 64, 128), "D128_NUM_WARPS": (4, 8),
        "D128_NUM_STAGES": (2, 3, 4)}


@triton.jit
def _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, head, offs_m, offs_d, s, qk_scale, start, stop,
           MASK_KEYS: tl.constexpr, MASK_CAUSAL: tl.constexpr, HEAD_DIM: tl.constexpr,
           BLOCK_N: tl.constexpr):
    """The online softmax over the keys start .. stop - 1, BLOCK_N at a time."""
    for n0 in range(start, stop, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        kt_ptrs = k_ptr + head + offs_n[None, :] * HEAD_DIM + offs_d[:, None]  # k^T's block
        v_ptrs = v_ptr + head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
        if MASK_KEYS:
            kt = tl.load(kt_ptrs, mask=offs_n[None, :] < s, other=0.0)
        else:
            kt = tl.load(kt_ptrs)
        x = tl.dot(q, kt) * qk_scale
        if MASK_CAUSAL:
            keep = offs_n[None, :] <= offs_m[:, None]
            if MASK_KEYS:
                keep = keep & (offs_n[None, :] < s)
            x = tl.where(keep, x, float("-inf"))
        elif MASK_KEYS:
            x = tl.where(offs_n[None, :] < s, x, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(x, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(x - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        if MASK_KEYS:
            v = tl.load(v_ptrs, mask=offs_n[:, None] < s, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, s, qk_scale, CAUSAL: tl.constexpr,
                     TAIL: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, HEAVY_FIRST: tl.constexpr):
    pid_m = tl.program_id(axis=0)
    if CAUSAL and HEAVY_FIRST:
        pid_m = tl.num_programs(axis=0) - 1 - pid_m
    head = tl.program_id(axis=1).to(tl.int64) * s * HEAD_DIM
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    # TAIL: s is not a multiple of BLOCK_M (a multiple of BLOCK_N): the last query tile, and
    # maybe the last K/V tile, run past s.
    if TAIL:
        q = tl.load(q_ptrs, mask=offs_m[:, None] < s, other=0.0)
    else:
        q = tl.load(q_ptrs)
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    if CAUSAL:
        # Below the diagonal: every key precedes every query of the program.
        diag = pid_m * BLOCK_M
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, head, offs_m, offs_d, s,
                               qk_scale, 0, diag, False, False, HEAD_DIM, BLOCK_N)
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, head, offs_m, offs_d, s,
                               qk_scale, diag, tl.minimum(diag + BLOCK_M, s), TAIL, True,
                               HEAD_DIM, BLOCK_N)
    else:
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, head, offs_m, offs_d, s,
                               qk_scale, 0, s, TAIL, False, HEAD_DIM, BLOCK_N)
    o = (acc / l_i[:, None]).to(o_ptr.dtype.element_ty)
    o_ptrs = o_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]
    if TAIL:
        tl.store(o_ptrs, o, mask=offs_m[:, None] < s)
    else:
        tl.store(o_ptrs, o)


@triton.jit
def attention_ws_kernel(q_ptr, k_ptr, v_ptr, o_ptr, s, qk_scale, CAUSAL: tl.constexpr,
                        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                        HEAVY_FIRST: tl.constexpr):
    """attention_kernel for s a multiple of BLOCK_M, its K/V loop warp-specialized (D*_WS)."""
    pid_m = tl.program_id(axis=0)
    if CAUSAL and HEAVY_FIRST:
        pid_m = tl.num_programs(axis=0) - 1 - pid_m
    rows = tl.num_programs(axis=1) * s  # every head's rows, one after another
    row0 = tl.program_id(axis=1) * s  # this head's first
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    q = q_desc.load([row0 + pid_m * BLOCK_M, 0])
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    stop = (pid_m + 1) * BLOCK_M if CAUSAL else s  # causal: one loop, every tile masked
    for n0 in tl.range(0, stop, BLOCK_N, warp_specialize=True):
        x = tl.dot(q, k_desc.load([row0 + n0, 0]).T)
        if CAUSAL:
            offs_n = n0 + tl.arange(0, BLOCK_N)
            x = tl.where(offs_n[None, :] <= offs_m[:, None], x, float("-inf"))
        # The scale folded into the exponent's FMA (the scores unscaled; m_i scaled): key 0
        # leaves every row's max finite from the first tile on, and exp2(-inf) = 0.
        m_new = tl.maximum(m_i, tl.max(x, axis=1) * qk_scale)
        p = tl.exp2(x * qk_scale - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = v_desc.load([row0 + n0, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    o_desc.store([row0 + pid_m * BLOCK_M, 0], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))


def attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                     causal: int) -> None:
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert d in (64, 128), f"head dim {d}"
    # Read per call: benchmarks/tune_references.py sets them.
    if d == 64:
        bm, bn, warps, stages, ws = D64_BLOCK_M, D64_BLOCK_N, D64_NUM_WARPS, D64_NUM_STAGES, D64_WS
    else:
        bm, bn, warps, stages, ws = (D128_BLOCK_M, D128_BLOCK_N, D128_NUM_WARPS, D128_NUM_STAGES,
                                     D128_WS)
    grid = (triton.cdiv(s, bm), b * h)
    if ws and s % bm == 0 and all(t.data_ptr() % 16 == 0 for t in (q, k, v, o)):
        attention_ws_kernel[grid](q, k, v, o, s, 1.4426950408889634 / math.sqrt(d),
                                  CAUSAL=bool(causal), HEAD_DIM=d, BLOCK_M=bm,
                                  BLOCK_N=min(WS_BLOCK_N, bm),
                                  HEAVY_FIRST=HEAVY_FIRST, num_warps=4,
                                  num_stages=WS_NUM_STAGES)
        return
    attention_kernel[grid](q, k, v, o, s, 1.4426950408889634 / math.sqrt(d),
                           CAUSAL=bool(causal), TAIL=s % bm != 0, HEAD_DIM=d, BLOCK_M=bm,
                           BLOCK_N=bn, HEAVY_FIRST=HEAVY_FIRST, num_warps=warps,
                           num_stages=stages)
