"""Reference Triton flash-decoding: the perf bar of lab16's `flash_decode` (hidden from students).
o[i, h] = softmax(q[i, h] k[i, h // group]^T / sqrt(d)) v[i, h // group] for q, o [b, hq, d] and
k, v [b, hkv, s, d], contiguous bfloat16.

Split-K: each KV head's keys are cut into splits (a multiple of SPLIT_ALIGN keys each), one
program per (split, KV head, sequence). A program runs the online softmax (float32, base 2) for
the query heads of its group at once, one [BLOCK_G, d] block of q (the group padded to tl.dot's
16 rows), so that each K/V tile is loaded once for the whole group; it writes float32 partials
(the sum of p . v, the max, the sum of p). The last program of each KV head to finish combines
the head's splits (FUSED_COMBINE; or a second launch), each rescaled by exp2(m_t - m) to the
common max. Whole BLOCK_N tiles run without a mask; a split that ends inside a tile (s, or the
split's length, not a multiple of BLOCK_N) loads that one tile masked, at its end.

Traffic (lab.toml's `bytes`): k and v read once, q read and o written once, 2 b (hkv s + hq) d
bfloat16 elements. On top: q again per split (from L2) and the partials, b hq splits (d + 2)
float32 values written and read once, 0.07 to 0.4% of k and v at the perf shapes with the
constants below.

Target (lab.toml): 0.85 of the copy roof at the perf shapes. On an H100 (2026-12-07, roof 3111
GB/s, `TUNE_LABS=lab16 TUNE_ARGS=--no-sweep bash scripts/gpu-check.sh tune`): 87 / 90 / 98% at
b 1 s 32768 / b 8 s 8192 / b 8 s 32768 (2697 / 2804 / 3045 GB/s); at b = 1, 134 MB, the split
pass alone reaches 91% and the fused combine costs about 2 of the 50 microseconds
(`python -m benchmarks.decode_parts`).
"""

import math

import torch
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait

from grader.lab.reference import shared

# Launch constants, read per call (benchmarks/tune_references.py sets them). Swept on an H100
# (2026-12-06 and 07, `TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`). 4 warps, one program
# an SM and 3 stages (two 128-key K/V tiles in flight a program, 136 KiB of shared memory) came
# from `--only flash_decode_triton.NUM_WARPS+PROGRAMS_PER_SM+BLOCK_N+NUM_STAGES=...` and
# decode_parts (2026-12-07, docs/perf-labs13-16.md): the split pass at b = 1 91% of the roof,
# against 88% at 2 warps, 2 programs an SM and 2 stages.
BLOCK_N = 128  # keys per tile
PROGRAMS_PER_SM = 1  # split-pass programs per SM, over the whole batch
MAX_SPLITS = 128  # the combine holds a head's splits in one block
# Keys per split: a multiple of this (at most BLOCK_N). Below BLOCK_N a split may end inside a
# tile, loaded masked; the splits then come nearer PROGRAMS_PER_SM per SM (at 2 an SM, b = 1,
# 8 KV heads, 32768 keys, 132 SMs: 33 splits of 1008 keys, 264 programs, where whole tiles of
# 128 make 32 of 1024). On an H100 (2026-12-07, the sweep at the perf shapes, GB/s): 2457 /
# 2666 / 2895 at 16 against 2510 / 2712 / 2912 at 128 (kept).
SPLIT_ALIGN = 128
NUM_WARPS = 4
NUM_STAGES = 3
# PDL (the second launch's, without FUSED_COMBINE): the combine launched as a programmatic
# dependent launch (Hopper): its programs start while the split pass runs, once every split
# program has begun, and wait in gdc_wait for the split pass to finish and its partials to be
# visible; the gap between the two launches, a few microseconds of a 45-microsecond call at
# b = 1, goes. Not on the CPU (no such launch there). On an H100 (2026-12-06, the sweep, the
# perf shapes, GB/s): 2513 / 2690 / 2911 against 2468 / 2678 / 2898 without.
PDL = True
# The last split program of each KV head combines the head's splits (FUSED): a count per KV head
# in `_done`, taken with an acquire-release atomic after a barrier (every thread's partials
# stored first), which that program resets; the call is then one launch, with no wait for the
# whole split pass. As the CUDA reference's FUSED_COMBINE; the combining program loads the
# partials of all the group's heads at once (`_combine`), its tail 1 + splits / CHUNK L2 round
# trips. On an H100 (2026-12-07, the sweep at the perf shapes, GB/s): 2588 / 2871 / 3083 fused
# against 2241 / 2837 / 3079; at b = 1 the call 2697-2724 against 2636-2640 (decode_parts).
FUSED_COMBINE = True
TUNE = {"BLOCK_N": (32, 64, 128), "PROGRAMS_PER_SM": (1, 2, 4, 8), "MAX_SPLITS": (32, 64, 128),
        "SPLIT_ALIGN": (16, 128), "NUM_WARPS": (2, 4, 8), "NUM_STAGES": (2, 3, 4, 5),
        "PDL": (False, True), "FUSED_COMBINE": (False, True)}
# A fused combine loads the partial outputs of CHUNK splits of every query head of the group at
# once, [group, CHUNK, d] float32: at most COMBINE_FLOATS a thread.
COMBINE_FLOATS = 64


_buffers = shared(__file__, "decode_buffers")
_done = _buffers.Counts()  # the fused combine's, per KV head

# The online softmax over a range of keys: attention's (attention_triton.py), without its causal
# mask; offs_m, the query rows, only feeds that mask.
_tiles = shared(__file__, "attention_triton")._tiles


@triton.jit
def flash_decode_kernel(q_ptr, k_ptr, v_ptr, part_o_ptr, part_m_ptr, part_l_ptr, s, keys_per_split,
                  qk_scale, done_ptr, o_ptr, GROUP: tl.constexpr, BLOCK_G: tl.constexpr,
                  HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, TAIL: tl.constexpr,
                  PDL: tl.constexpr, FUSED: tl.constexpr, BLOCK_S: tl.constexpr,
                  BLOCK_COMBINE: tl.constexpr, CHUNK: tl.constexpr):
    if PDL:  # the combine may launch now: it waits for this grid in gdc_wait
        gdc_launch_dependents()
    split = tl.program_id(axis=0)
    kv_j = tl.program_id(axis=1)
    seq = tl.program_id(axis=2)
    splits = tl.num_programs(axis=0)
    n_kv = tl.num_programs(axis=1)
    kv = (seq * n_kv + kv_j).to(tl.int64) * s * HEAD_DIM
    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, HEAD_DIM)
    in_group = offs_g < GROUP
    head0 = (seq * n_kv + kv_j) * GROUP  # query head j GROUP + g reads KV head j
    heads = head0 + offs_g
    q = tl.load(q_ptr + heads[:, None] * HEAD_DIM + offs_d[None, :], mask=in_group[:, None],
                other=0.0)
    m_i = tl.full((BLOCK_G,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_G,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_G, HEAD_DIM), dtype=tl.float32)
    start = split * keys_per_split
    stop = tl.minimum(start + keys_per_split, s)
    if TAIL:  # a split may end inside a tile: its whole tiles, then one masked at its end
        whole = start + (stop - start) // BLOCK_N * BLOCK_N
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, kv, offs_d, offs_d, stop,
                               qk_scale, start, whole, False, False, HEAD_DIM, BLOCK_N)
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, kv, offs_d, offs_d, stop,
                               qk_scale, whole, stop, True, False, HEAD_DIM, BLOCK_N)
    else:
        acc, l_i, m_i = _tiles(acc, l_i, m_i, q, k_ptr, v_ptr, kv, offs_d, offs_d, s, qk_scale,
                               start, stop, False, False, HEAD_DIM, BLOCK_N)
    rows = heads * splits + split
    tl.store(part_o_ptr + rows[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=in_group[:, None])
    tl.store(part_m_ptr + rows, m_i, mask=in_group)
    tl.store(part_l_ptr + rows, l_i, mask=in_group)
    if FUSED:
        tl.debug_barrier()  # every thread's partials stored before the count's release
        count = done_ptr + seq * n_kv + kv_j
        if tl.atomic_add(count, 1, sem="acq_rel") == splits - 1:  # the KV head's last split
            tl.store(count, 0)  # zero again for the next call
            _combine(part_o_ptr, part_m_ptr, part_l_ptr, o_ptr, head0, splits, GROUP,
                     BLOCK_COMBINE, HEAD_DIM, BLOCK_S, CHUNK)


@triton.jit
def _combine(part_o_ptr, part_m_ptr, part_l_ptr, o_ptr, head0, splits, HEADS: tl.constexpr,
             BLOCK_H: tl.constexpr, HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr,
             CHUNK: tl.constexpr):
    """o of query heads head0 .. head0 + HEADS - 1 from their splits' partials, read from L2
    (.cg: another SM wrote them): every head's maxima and sums in one load, then the partial
    outputs of CHUNK splits of every head at once, [BLOCK_H, CHUNK, d], so that the L2 round
    trips are 1 + splits / CHUNK however many heads, not that many per head."""
    offs_h = tl.arange(0, BLOCK_H)
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, HEAD_DIM)
    in_h = offs_h < HEADS
    stats = (head0 + offs_h)[:, None] * splits + offs_s[None, :]
    in_s = in_h[:, None] & (offs_s < splits)[None, :]
    m_t = tl.load(part_m_ptr + stats, mask=in_s, other=float("-inf"), cache_modifier=".cg")
    l_t = tl.load(part_l_ptr + stats, mask=in_s, other=0.0, cache_modifier=".cg")
    m = tl.max(m_t, axis=1)  # [BLOCK_H]; -inf for padding heads, whose rows are never stored
    m = tl.where(in_h, m, 0.0)
    acc = tl.zeros((BLOCK_H, HEAD_DIM), dtype=tl.float32)
    for c in range(0, splits, CHUNK):
        offs_c = c + tl.arange(0, CHUNK)
        rows = (head0 + offs_h)[:, None] * splits + offs_c[None, :]  # [BLOCK_H, CHUNK]
        live = in_h[:, None] & (offs_c < splits)[None, :]
        w = tl.exp2(tl.load(part_m_ptr + rows, mask=live, other=float("-inf"),
                            cache_modifier=".cg") - m[:, None])
        part = tl.load(part_o_ptr + rows[:, :, None] * HEAD_DIM + offs_d[None, None, :],
                       mask=live[:, :, None], other=0.0, cache_modifier=".cg")
        acc += tl.sum(w[:, :, None] * part, axis=1)
    den = tl.sum(tl.exp2(m_t - m[:, None]) * l_t, axis=1)
    o = acc / tl.where(in_h, den, 1.0)[:, None]
    tl.store(o_ptr + (head0 + offs_h)[:, None] * HEAD_DIM + offs_d[None, :],
             o.to(o_ptr.dtype.element_ty), mask=in_h[:, None])


@triton.jit
def flash_decode_combine_kernel(part_o_ptr, part_m_ptr, part_l_ptr, o_ptr, splits,
                          HEAD_DIM: tl.constexpr, BLOCK_S: tl.constexpr, PDL: tl.constexpr):
    if PDL:  # launched before the split pass ended: wait for it, and for its partials
        gdc_wait()
    # one query head, every split's partial output at once: one chunk of BLOCK_S
    _combine(part_o_ptr, part_m_ptr, part_l_ptr, o_ptr, tl.program_id(axis=0), splits, 1, 1,
             HEAD_DIM, BLOCK_S, BLOCK_S)


def plan(b: int, hkv: int, s: int, sms: int) -> tuple[int, int]:
    """(splits, keys_per_split) at the constants: about PROGRAMS_PER_SM programs per SM over
    the batch, keys_per_split a multiple of SPLIT_ALIGN, no split empty."""
    splits = min(triton.cdiv(PROGRAMS_PER_SM * sms, b * hkv), triton.cdiv(s, BLOCK_N), MAX_SPLITS)
    align = min(SPLIT_ALIGN, BLOCK_N)
    keys_per_split = triton.cdiv(triton.cdiv(s, splits), align) * align
    return triton.cdiv(s, keys_per_split), keys_per_split


def split_pass(q, k, v, part_o, part_m, part_l, o, keys_per_split: int, fused: bool,
               pdl: bool = False) -> None:
    """flash_decode_kernel over every (split, KV head, sequence), the splits as many as the
    partials hold; with `fused` the last program of each KV head also writes its o, with `pdl`
    a combine launched after it may start early."""
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    splits, group = part_m.shape[2], hq // hkv
    block_s = triton.next_power_of_2(splits)
    block_g = triton.next_power_of_2(group)
    chunk = max(1, min(block_s, COMBINE_FLOATS * 32 * NUM_WARPS // (block_g * d)))
    flash_decode_kernel[(splits, hkv, b)](
        q, k, v, part_o, part_m, part_l, s, keys_per_split, 1.4426950408889634 / math.sqrt(d),
        _done.get(b * hkv, q.device), o, GROUP=group, BLOCK_G=max(16, block_g), HEAD_DIM=d,
        BLOCK_N=BLOCK_N, TAIL=s % BLOCK_N != 0 or keys_per_split % BLOCK_N != 0, PDL=pdl,
        FUSED=fused, BLOCK_S=block_s, BLOCK_COMBINE=block_g, CHUNK=chunk,
        num_warps=NUM_WARPS, num_stages=NUM_STAGES)


def flash_decode_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor) -> None:
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (b, hkv, s, d) and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert hq % hkv == 0, f"{hq} query heads on {hkv} KV heads"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert d in (64, 128), f"head dim {d}"
    pdl = PDL and q.is_cuda
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 4
    splits, keys_per_split = plan(b, hkv, s, sms)
    part_o, part_m, part_l = _buffers.partials(b, hq, splits, d, q.device)
    split_pass(q, k, v, part_o, part_m, part_l, o, keys_per_split, FUSED_COMBINE,
               pdl and not FUSED_COMBINE)
    if FUSED_COMBINE:
        return
    flash_decode_combine_kernel[(b * hq,)](part_o, part_m, part_l, o, splits, HEAD_DIM=d,
                                           BLOCK_S=triton.next_power_of_2(splits), PDL=pdl,
                                           num_warps=4, **({"launch_pdl": True} if pdl else {}))
