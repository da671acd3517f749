# %% [markdown]
# # Lab 16 — Attention: FlashAttention's forward pass, then flash-decoding, in Triton and CUDA C
#
# A transformer's attention, for one head:
#
#     o = softmax(q · kᵀ · scale) · v,    scale = 1 / sqrt(d)
#
# with `q`, `k`, `v` the queries, keys and values of `s` tokens (`s × d` each) and the softmax
# taken along each row of the `s × s` matrix of scores. In a **causal** head (a decoder's),
# query `r` sees only the keys `c ≤ r`: the scores above the diagonal are `-inf` before the
# softmax.
#
# Written out plainly, `torch.softmax(q @ k.transpose(-1, -2) * scale, dim=-1) @ v`, that is
# three kernels and an `s × s` matrix that goes to memory and back twice: at `s = 4096` and 64
# heads, 4.3 GB of float32 scores to compute 0.3 TFLOP.
# **FlashAttention** never writes it. One program owns a tile of queries, keeps it on chip,
# and streams the keys and values past it a tile at a time: for each K/V tile it computes the
# scores of its queries against those keys, folds them into a softmax that is still running,
# and adds the tile's share of `p · v` to its output. This is the **online softmax**: lab 07's
# row softmax taken one tile of the row at a time, with a running max `m` and a running sum `l`
# per row, and here a third running quantity, the output row itself:
#
#     for each K/V tile:
#         x      = q_tile · k_tileᵀ · scale                (scores of this tile, float32)
#         m_new  = max(m, rowmax(x))
#         alpha  = exp(m - m_new)                           (how much the old terms shrink)
#         p      = exp(x - m_new)
#         l      = alpha · l + rowsum(p)
#         acc    = alpha · acc + p · v_tile
#         m      = m_new
#     o = acc / l
#
# Every term already in `l` and `acc` was computed against the old max: when the max grows,
# `alpha` rescales them to the new one. `exp` never sees a positive argument, so nothing
# overflows, whatever the scores.
#
# Two exercises, the two ends of an inference:
#
# 1. `attention`: FlashAttention's forward pass, as a model runs it over a prompt (*prefill*):
#    every token a query, `s²` pairs of work, compute-bound, graded in TFLOP/s;
# 2. `flash_decode`: one new token per sequence against the keys and values of all the tokens
#    before it (the *KV cache*), heads grouped as in Llama 3 (*grouped-query attention*): `s`
#    pairs per head, every key read for a handful of operations, memory-bound, graded in GB/s.
#    The keys are split across programs (*flash-decoding*) and the partial softmaxes combined
#    exactly.
#
# **Exercise 1.** `attention`: `q`, `k`, `v` and `o` of shape `[b, h, s, d]` (batch, heads,
# tokens, head dimension), **contiguous**: head `(i, j)` is the `s × d` row-major matrix that
# starts `(i · h + j) · s · d` elements in. bfloat16 or float16 (all four the same), `d` 64 or
# 128, any `s`; `causal` is 0 (full) or 1 (causal), passed after `o`. `o` is allocated:
# write into it.
#
# **Four rules of the arithmetic.**
#
# 1. **Scores in float32**: the tensor cores multiply bfloat16 (or float16) exactly and sum in
#    float32.
# 2. **The statistics in float32**: `m`, `l`, `alpha`, `p` and the accumulator.
# 3. **`p` rounded to the input dtype for `p · v`**: the second product runs on the tensor
#    cores too, and they take 16-bit operands; its sum is float32.
# 4. **Round `o` once**, at the store, after dividing by `l`.
#
# The check compares with torch's float64 attention, at one ulp of the dtype relative (and an
# absolute margin for the rounding of `p`, where `o` is near zero).
#
# **What you will learn**
# - the online softmax with a rescaled accumulator: attention in one pass, `O(s)` memory;
# - two dependent matrix products per tile on the tensor cores, the first's result becoming
#   the second's operand: `tl.dot` twice; in WMMA, the softmax kept in the accumulator
#   fragments, their opaque layout learnt at run time;
# - causal masking, and the work it saves: a causal program stops at the diagonal, masks only
#   the tiles on it, and the heaviest programs start first;
# - FLOP accounting for attention: `4 · b · h · s² · d` (full), half that (causal);
# - at decode, where the work is a read of the cache: enough programs to keep every SM
#   reading (split-K over the keys), and the exact combine of partial softmaxes, each with its
#   own max; grouped-query heads sharing one read of their KV head, as one 16-row operand of
#   the tensor cores.
#
# **What you write**, for each exercise: Triton kernels and their launcher, CUDA C kernels (in
# a source string) and their launcher.
#
# **How you are graded**: correctness on shapes you do not see (one token, lengths that end
# inside a tile, large scores that overflow `exp` unless the max is subtracted), fresh random
# inputs, compared with a float64 result; on a GPU, the time of your kernels against reference
# kernels: exercise 1 at `s = 4096` (64 heads, head dims 64 and 128, full and causal) in
# TFLOP/s and against torch's FlashAttention-2 (`F.scaled_dot_product_attention`'s flash
# backend); exercise 2 on caches of 8192 and 32768 tokens (one and eight sequences) in GB/s,
# against the copy roof and torch's fused attention. Without a GPU, Triton runs in its
# interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported.
from grader.notebook import SourceModule, bench, check

import math

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab16_attention"

# %% [markdown]
# ## Exercise 1 — attention
#
# ### Triton
#
# One program per tile of `BLOCK_M` queries of one head: `tl.program_id(0)` numbers the query
# tiles, `tl.program_id(1)` the `b · h` heads. The program loads its `q` tile once
# (`BLOCK_M × d`, masked past `s`), then loops over the keys `BLOCK_N` at a time:
#
# - the scores: `tl.dot(q, kt)` with `kt` the `d × BLOCK_N` block of `kᵀ` (element `[dd, c]`
#   is `k[c, dd]`), times `scale`; a float32 `BLOCK_M × BLOCK_N` block;
# - keys past `s` (and, causal, keys after the query) get `-inf`: `tl.where`, on the tiles
#   that hold such keys;
# - the online softmax above, with `tl.max(x, axis=1)` and `tl.sum(p, axis=1)`;
# - `acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])`: `v`'s block is `BLOCK_N × d`.
#
# A causal program stops at the diagonal: its last query is `(pid_m + 1) · BLOCK_M - 1`, and
# no key after it counts. That halves the work. And only the diagonal's tiles need the causal
# mask: a key before the program's first query, `pid_m · BLOCK_M`, comes before every one of
# its queries, so the tiles below the diagonal need no mask at all. The mask is a compare and a
# select per score: masking every tile costs causal heads about a quarter of their speed (a
# fifth of their time, measured on an H100). The same loop body runs over two ranges of keys,
# without the mask and then with it (Hint 2).
#
# `tl.exp2` is the hardware's exponential; `exp(x) = exp2(x · log2(e))`, so fold `log2(e)` into
# the scale and work in base 2 throughout (`m` and `alpha` too): the same softmax.
#
# <details><summary>Hint 1 — offsets</summary>
#
# `head = tl.program_id(1).to(tl.int64) * s * HEAD_DIM` (64-bit: `b · h · s · d` passes 2^31
# in a large batch); `offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)`,
# `offs_d = tl.arange(0, HEAD_DIM)`. The `q` tile is at
# `q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :]`; inside the loop
# (`for n0 in range(lo, hi, BLOCK_N)`, `offs_n = n0 + tl.arange(0, BLOCK_N)`), `kᵀ`'s block at
# `k_ptr + head + offs_n[None, :] * HEAD_DIM + offs_d[:, None]` and `v`'s at
# `v_ptr + head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]`.
# </details>
#
# <details><summary>Hint 2 — masks</summary>
#
# Loads: rows of `q`, `k`, `v` past `s` with `other=0.0` (a zero key gives a score of 0, not
# `-inf`: the scores need their own mask). Scores: `keep = offs_n[None, :] < s`, and for a
# causal head `keep &= offs_n[None, :] <= offs_m[:, None]`; `x = tl.where(keep, x, -inf)`.
# Every row keeps key 0 in the first tile, so its max is finite from there on:
# `exp2(-inf - m)` is 0, never `-inf - (-inf)` = NaN.
#
# Only the diagonal's tiles need the causal mask; the tiles below it need none. A causal
# program's keys are two ranges: `[0, pid_m * BLOCK_M)`, below the diagonal, where every key
# precedes every query and none is past `s`: no score mask at all; and the diagonal's,
# `[pid_m * BLOCK_M, tl.minimum((pid_m + 1) * BLOCK_M, s))`, with both masks. It starts on a
# tile boundary because `BLOCK_M` is a multiple of `BLOCK_N`. A full head's two ranges: its
# whole tiles, `[0, s // BLOCK_N * BLOCK_N)`, no mask at all, and the last tile's keys up to
# `s`, with the `< s` mask (none where `s` is a multiple of `BLOCK_N`). In the first range of
# either kind the loads need no mask either. Masking every tile costs causal heads about a
# quarter of their speed (measured on an H100). Rather than a copy of the loop for the second
# range, wrap the one loop in `for phase in tl.static_range(2)`: it unrolls at compile time, so
# `phase` is a constant and an `if` on it (as one on `CAUSAL`) is decided by the compiler; the
# branch not taken is not in the kernel. Set `lo` and `hi` per phase, and put the masks under
# such an `if`.
#
# The order of a causal head's programs matters too. The GPU starts programs in the grid's
# order, axis 0 fastest, so head after head, each from its first query tile to its last; and a
# causal program's work grows with its tile. In that order the grid ends with the last head's
# heaviest program, alone on the GPU while the other SMs are idle. Take
# `pid_m = tl.num_programs(axis=0) - 1 - tl.program_id(axis=0)` for causal heads: the last
# tile first, so that the grid ends with one-tile programs.
# </details>
#
# <details><summary>Hint 3 — the running statistics</summary>
#
# Before the loop: `m_i = tl.full((BLOCK_M,), float("-inf"), tl.float32)`,
# `l_i = tl.zeros((BLOCK_M,), tl.float32)`, `acc = tl.zeros((BLOCK_M, HEAD_DIM), tl.float32)`.
# In it: `m_new = tl.maximum(m_i, tl.max(x, axis=1))`, `alpha = tl.exp2(m_i - m_new)`,
# `p = tl.exp2(x - m_new[:, None])`, `l_i = l_i * alpha + tl.sum(p, axis=1)`, then the
# product, then `m_i = m_new`. "elements differ" where `s > BLOCK_N` only: `acc` (or `l_i`)
# not multiplied by `alpha`. NaN on the large-score shapes only: the max not subtracted.
# </details>
#
# <details><summary>Hint 4 — the product and the store</summary>
#
# `acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])`: `p` rounded to bfloat16 or float16
# (the tensor cores' operands), the sum in float32. After the loop, `o = acc / l_i[:, None]`,
# stored as `o.to(o_ptr.dtype.element_ty)` under the rows' mask. The scale belongs inside the
# softmax, on the scores: scaling `o` afterwards is another function.
# </details>
#
# <details><summary>Hint 5 — tile sizes</summary>
#
# The `q` tile and the accumulator live in registers for the whole loop: `BLOCK_M × d` of each.
# At `d = 64`: `BLOCK_M = 64`, `BLOCK_N = 64`, 4 warps (128 queries with 4 warps spill 96
# bytes a thread to local memory). At `d = 128`: `BLOCK_M = 128`, `BLOCK_N = 64`, 8 warps.
# `num_stages=3`, so that the next K/V tiles load while this one is multiplied. At `d = 64`
# this kernel ran 1.00× / 1.01× the reference, full / causal, on an H100 (2026-12-07), with
# the masks only where Hint 2 puts them (0.90× / 0.97× with every tile masked); 8 warps at
# `d = 64` ran at half speed. At `d = 128` the reference goes further: the next section.
# </details>
#
# #### Head dim 128: a warp-specialized kernel
#
# **Why.** At `d = 128`, `s = 4096` and 64 heads, the kernel above ran 457 TFLOP/s full and 393
# causal on an H100 (2026-12-06), where the reference ran 567 and 442: 0.81x and 0.89x of it.
# Its 8 warps do every job in turn: wait for a K/V tile, `tl.dot`, the softmax's max, `exp2`
# and sums, `tl.dot` again. While they compute
# the softmax, the tensor cores wait. The reference splits the program by job instead, **warp
# specialization**: one warp group (4 warps) issues the TMA loads of the K/V tiles, and two
# consumer groups of 4 warps take 64 of the 128 queries each. A consumer waits on the producer
# only, never on the other consumer, so one group's softmax runs while the other's `tl.dot` has
# the tensor cores. The same reference without the split: 496 full, 423 causal.
#
# **How.** Triton (3.6, on Hopper) makes the split itself, for a loop written
# `for n0 in tl.range(lo, hi, BLOCK_N, warp_specialize=True)`, on four conditions:
#
# - `num_warps=4`, one consumer group: the program then runs 12 warps, the producer's group
#   and two consumer groups of `BLOCK_M / 2` queries;
# - the loop loads through tensor descriptors (lab 15), which the producer hands to the TMA;
# - `num_stages` 2 or more: the producer fills buffers ahead of the consumers. Two here: three
#   stages of 128 × 128 K and V tiles at `d = 128` do not fit in shared memory;
# - one such loop in a kernel. A causal head's two ranges (Hint 2) would be two loops, so it
#   runs one, up to its last query's tile, with the causal mask on every tile. The mask costs
#   what Hint 2 says; the split still wins (442 against 423).
#
# The descriptors see all the heads as one `[b · h · s, d]` matrix, rows `d` elements apart:
# head `j`'s token `r` is row `j · s + r`. A block that starts in one head and runs past its
# `s` rows reads the next head's rows, not zeros, and a store there overwrites them. So the
# kernel takes heads whose `s` is a multiple of 128 only (`BLOCK_M = BLOCK_N = 128`: no tile
# needs a mask past `s`) and TMA's rules (lab 15): every tensor's base 16-byte aligned, the
# rows 256 bytes apart. `attention_triton` checks `s % 128 == 0` and `t.data_ptr() % 16 == 0`
# for `q`, `k`, `v` and `o`, and takes `attention_ws_kernel` where they hold, at `d = 128`;
# `attention_kernel` otherwise. `d = 64` keeps the pointer kernel: there the split ran 167 / 136
# TFLOP/s against 425 / 369 (64-query tiles, 32 rows a consumer group). Descriptors built in a
# kernel need Triton's scratch allocator: the grader gives every process one.
#
# No graded shape without a GPU has such an `s`: there the kernel runs only when you call
# `attention_triton` yourself, on `s = 128` or `256` say, and compare with torch (the
# interpreter runs descriptors and `tl.range` as written). On a GPU the timed shapes take it,
# and their outputs are spot-checked against torch's.
#
# <details><summary>Hint 6 — descriptors over every head</summary>
#
# `rows = tl.num_programs(axis=1) * s`, `row0 = tl.program_id(axis=1) * s` (the head's first
# row). Four descriptors, `tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM],
# strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])`, `k`'s and `v`'s with blocks of
# `[BLOCK_N, HEAD_DIM]`, `o`'s as `q`'s. The program's `q` block is at
# `[row0 + pid_m * BLOCK_M, 0]`, a K/V tile at `[row0 + n0, 0]`; `tl.dot(q, k_blk.T)` takes
# `kᵀ` as a view of `k`'s block. After the loop, `o_desc.store` at `q`'s coordinates: no
# masks anywhere but the causal one.
# </details>
#
# <details><summary>Hint 7 — the loop and the launcher</summary>
#
# `hi = (pid_m + 1) * BLOCK_M if CAUSAL else s`, then
# `for n0 in tl.range(0, hi, BLOCK_N, warp_specialize=True):` with Hint 3's body; a causal head
# sets `x = tl.where(offs_n[None, :] <= offs_m[:, None], x, float("-inf"))` on every tile, with
# `offs_m` the queries' positions in the head (`pid_m * BLOCK_M + tl.arange(0, BLOCK_M)`), not
# rows of the big matrix. The launcher: where `d == 128`, `s % 128 == 0` and all four
# `data_ptr() % 16 == 0`, the same grid with `BLOCK_M=128`, `BLOCK_N=128`, `num_warps=4`,
# `num_stages=2`, then `return` before the pointer kernel's launch.
# </details>

# %% nbgrader={"grade": false, "grade_id": "attention_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def attention_kernel(
    q_ptr,  # q: [b, h, s, d] contiguous, bfloat16 or float16
    k_ptr,  # k: the same
    v_ptr,  # v: the same
    o_ptr,  # o: the same, written
    s,  # tokens per head (queries and keys)
    sm_scale,  # 1 / sqrt(d)
    CAUSAL: tl.constexpr,  # keep key c for query r only where c <= r
    HEAD_DIM: tl.constexpr,  # d: 64 or 128
    BLOCK_M: tl.constexpr,  # queries per program
    BLOCK_N: tl.constexpr,  # keys per K/V tile
):
    ### BEGIN SOLUTION
    pid_m = tl.program_id(axis=0)
    if CAUSAL:
        # Programs start in the grid's order, query tile fastest, and a causal program's work
        # grows with its query tile: last tile first, the grid ends with light programs, not
        # with the last head's heaviest one running alone.
        pid_m = tl.num_programs(axis=0) - 1 - pid_m
    head = tl.program_id(axis=1).to(tl.int64) * s * HEAD_DIM  # the head's first element, 64-bit
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # the program's queries
    offs_d = tl.arange(0, HEAD_DIM)
    # Rows past s: zeros (their scores are finite, their output never stored).
    q = tl.load(q_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_m[:, None] < s, other=0.0)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x log2(e))
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)  # running max, base 2
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)  # running sum of exp2(x - m_i)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)  # running sum of p . v
    # Two phases: 0, whole tiles of keys that need no score mask; 1, the tiles that do. Causal
    # heads: 0 runs the keys [0, diag), each before every query of the program; 1 the diagonal's
    # tiles, masked, and no key after the last query. Full heads: 0 runs every whole tile of
    # keys, 1 the last one's keys up to s, where s is not a multiple of BLOCK_N. BLOCK_M is a
    # multiple of BLOCK_N: the diagonal starts on a tile boundary. static_range unrolls: phase
    # is a constant and its ifs are decided at compile time, so phase 0 has no mask code.
    diag = pid_m * BLOCK_M  # the program's first query
    if CAUSAL:
        whole = diag
        stop = tl.minimum(diag + BLOCK_M, s)
    else:
        whole = s // BLOCK_N * BLOCK_N
        stop = s
    for phase in tl.static_range(2):
        if phase == 0:
            lo = 0
            hi = whole
        else:
            lo = whole
            hi = stop
        for n0 in range(lo, hi, BLOCK_N):
            offs_n = n0 + tl.arange(0, BLOCK_N)  # this tile's keys
            # k^T's block, HEAD_DIM x BLOCK_N: element [dd, c] is k[c, dd]; zeros past s.
            kt_ptrs = k_ptr + head + offs_n[None, :] * HEAD_DIM + offs_d[:, None]
            if phase == 0:
                kt = tl.load(kt_ptrs)
            else:
                kt = tl.load(kt_ptrs, mask=offs_n[None, :] < s, other=0.0)
            x = tl.dot(q, kt) * qk_scale  # exact products, float32 sums
            if phase == 1:
                keep = offs_n[None, :] < s  # a zero key would score 0: mask it
                if CAUSAL:
                    keep = keep & (offs_n[None, :] <= offs_m[:, None])
                x = tl.where(keep, x, float("-inf"))
            # Key 0 is in every row's first tile: m_new is finite from there on, and
            # exp2(-inf - m_new) = 0 (the first tile's alpha, and every masked p).
            m_new = tl.maximum(m_i, tl.max(x, axis=1))
            alpha = tl.exp2(m_i - m_new)  # the old terms, rescaled to the new max
            p = tl.exp2(x - m_new[:, None])
            l_i = l_i * alpha + tl.sum(p, axis=1)
            v_ptrs = v_ptr + head + offs_n[:, None] * HEAD_DIM + offs_d[None, :]
            if phase == 0:
                v = tl.load(v_ptrs)
            else:
                v = tl.load(v_ptrs, mask=offs_n[:, None] < s, other=0.0)
            acc = acc * alpha[:, None]
            acc = tl.dot(p.to(v.dtype), v, acc)  # p rounded for the tensor cores; float32 sums
            m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             o.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < s)
    ### END SOLUTION


@triton.jit
def attention_ws_kernel(
    q_ptr,  # q: [b, h, s, d] contiguous, 16-byte aligned
    k_ptr,  # k: the same
    v_ptr,  # v: the same
    o_ptr,  # o: the same, written through a descriptor
    s,  # tokens per head: a multiple of BLOCK_M
    sm_scale,  # 1 / sqrt(d)
    CAUSAL: tl.constexpr,  # keep key c for query r only where c <= r
    HEAD_DIM: tl.constexpr,  # d: 128
    BLOCK_M: tl.constexpr,  # queries per program (split between two consumer warp groups)
    BLOCK_N: tl.constexpr,  # keys per K/V tile: BLOCK_M
):
    ### BEGIN SOLUTION
    pid_m = tl.program_id(axis=0)
    if CAUSAL:  # the heaviest query tile first, as in attention_kernel
        pid_m = tl.num_programs(axis=0) - 1 - pid_m
    # Every head's rows one after another: one [b h s, d] row-major matrix, head j's token r at
    # row j s + r. s is a multiple of BLOCK_M: no block runs past its head's rows into the next.
    rows = tl.num_programs(axis=1) * s
    row0 = tl.program_id(axis=1) * s  # the head's first row
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # the program's queries, in the head
    q = q_desc.load([row0 + pid_m * BLOCK_M, 0])
    qk_scale = sm_scale * 1.4426950408889634  # base 2, as in attention_kernel
    m_i = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, HEAD_DIM), dtype=tl.float32)
    # ONE loop, warp-specialized: a producer warp group issues the loop's descriptor loads (the
    # TMA), two consumer groups take BLOCK_M / 2 queries each. Triton splits one such loop a
    # kernel, so a causal head does not run two ranges: it runs to its last query's tile, the
    # mask on every tile. No tile runs past s: no key mask.
    hi = (pid_m + 1) * BLOCK_M if CAUSAL else s
    for n0 in tl.range(0, hi, BLOCK_N, warp_specialize=True):
        x = tl.dot(q, k_desc.load([row0 + n0, 0]).T)  # k's block, transposed: a view
        if CAUSAL:
            offs_n = n0 + tl.arange(0, BLOCK_N)
            x = tl.where(offs_n[None, :] <= offs_m[:, None], x * qk_scale, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(x, axis=1))
            p = tl.exp2(x - m_new[:, None])
        else:
            # The scale on the row's max, then inside the exponent (one fused multiply-add a
            # score): qk_scale > 0, so max(x) * qk_scale is the max of x * qk_scale.
            m_new = tl.maximum(m_i, tl.max(x, axis=1) * qk_scale)
            p = tl.exp2(x * qk_scale - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = v_desc.load([row0 + n0, 0])
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
        m_i = m_new
    o_desc.store([row0 + pid_m * BLOCK_M, 0], (acc / l_i[:, None]).to(o_ptr.dtype.element_ty))
    ### END SOLUTION


def attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                     causal: int) -> None:
    """o = softmax(q @ k^T / sqrt(d) [causal]) @ v for [b, h, s, d] tensors: attention_ws_kernel
    at d = 128 where s is a multiple of 128 and every tensor is 16-byte aligned,
    attention_kernel otherwise."""
    ### BEGIN SOLUTION
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert d in (64, 128), f"head dim {d}: this kernel takes 64 or 128"
    BLOCK_M, BLOCK_N, warps = (64, 64, 4) if d == 64 else (128, 64, 8)
    grid = (triton.cdiv(s, BLOCK_M), b * h)
    # d = 128, whole 128-query tiles, TMA's alignment: warp-specialized, 128 x 128 tiles. Four
    # warps is one consumer group: the program runs 12. Two stages: three do not fit.
    if d == 128 and s % 128 == 0 and all(t.data_ptr() % 16 == 0 for t in (q, k, v, o)):
        attention_ws_kernel[grid](q, k, v, o, s, 1.0 / math.sqrt(d), CAUSAL=bool(causal),
                                  HEAD_DIM=d, BLOCK_M=128, BLOCK_N=128, num_warps=4,
                                  num_stages=2)
        return
    attention_kernel[grid](q, k, v, o, s, 1.0 / math.sqrt(d), CAUSAL=bool(causal),
                           HEAD_DIM=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps,
                           num_stages=3)
    ### END SOLUTION


# %% [markdown]
# ### CUDA C: WMMA fragments, K/V tiles in shared memory, the softmax in the fragments
#
# One block per 128 queries of one head (`blockIdx.x` the query tile, `blockIdx.y` the head).
# **4 warps of two 16-query tiles** each. The block streams the head's keys and values through
# shared memory 64 at a time (32 at `d = 128`),
# **double-buffered with cp.async** (lab 10): the copies of tile `t + 1` fly while the warps
# multiply tile `t`. Each warp runs the online softmax for its own queries, **in registers**.
#
# | call | here |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf[MT][D / 16];` | the warp's queries, `d` wide: at `d = 64` loaded once, kept in registers (at `d = 128` loaded from shared memory, 16 columns at a time) |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kf;` | a 16 × 16 block of `kᵀ` (16 of `d` by 16 keys): `kᵀ` is `k` read column-major, `&ks[16 j][16 i]`, `ldm` the shared row |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;` | 16 keys × 16 of `d` of `v`, row-major |
# | `wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;` | float32 sums; `c.x[e]`, `e < c.num_elements`, this lane's elements |
# | `wmma::store_matrix_sync(ptr, c, ldm, wmma::mem_row_major)`, `wmma::load_matrix_sync(c, ptr, ldm, wmma::mem_row_major)` | an accumulator to and from shared memory |
# | `load_shared(f, ptr, ldm)` (given in the cell) | `load_matrix_sync` of an operand fragment in shared memory: nvcc 13 compiles a bfloat16 one to four 4-byte loads through generic addresses, where `load_shared` is one `ldmatrix` (lab 15) |
# | `__pipeline_memcpy_async(dst, src, 16, zeros)`, `__pipeline_commit()`, `__pipeline_wait_prior(n)` | cp.async (`<cuda_pipeline.h>`, lab 10): a 16-byte copy into shared memory, of which the last `zeros` bytes are filled with zeros instead |
#
# `T` is `__nv_bfloat16` or `__half`: write the block once, as a template
# `template <typename T, int D, int WARPS, int MT> attention_tile(...)` (`MT`: query tiles a
# warp), instantiated in four kernels (given): `attention_kernel_bf16_d64` (4 warps, 2 tiles),
# `..._bf16_d128`, `..._f16_d64`, `..._f16_d128` (the same).
#
# **Why the softmax stays in the fragments.** The first design that comes to mind stores each
# warp's 16 × 64 scores to a shared scratch tile, lets lanes `2r` and `2r + 1` take row `r`'s
# max and sum there, writes `p` back to shared memory for the `matrix_a` loads, and keeps the
# `16 × d` accumulator in shared memory too, since rescaling it by `alpha` is per row. It is
# correct, and ran at 0.38x to 0.42x of this lab's reference on an H100 (2026-12-06): every
# tile, the scores, `p` and the accumulator make a round trip through shared memory, where the
# reference keeps them in registers. The obstacle is that WMMA does not say which row and column
# a lane's element `c.x[e]` is. It says enough, though: every accumulator fragment of one shape
# and type in one kernel has **one map** from `e` to a position (`mma_sync`, the loads and the
# stores agree on it). So a warp **learns it** once: it writes a 16 × 16 tile of the numbers
# `16 row + column` to shared memory and loads it as an accumulator; then `at[e] = (int)map.x[e]`
# says that element `e` of this lane, in every score fragment, is row `at[e] / 16`, column
# `at[e] % 16`. With that:
#
# - **Masks** are per element: key `n0 + 16 j + at[e] % 16` of fragment `j`, query
#   `row_t + at[e] / 16` (`row_t` the query tile's first).
# - **A row's max** is spread over the lanes. Each lane folds its `BN / 16` fragments into one
#   partial max per element, `pmax[e]`, and writes it to an **exchange tile** (16 × 16 floats
#   per query tile, in the score tile's space) at `(at[e] / 16, at[e] % 16)`: every position is
#   written by exactly one lane. After `__syncwarp()` lanes `2r`, `2r + 1` read row `r`'s 16
#   partial maxima, 8 each (two `float4`), combine with one `__shfl_xor_sync(0xffffffff, x, 1)`,
#   and write the row's `alpha = exp2f(m - m_new)` and `m_new` to a per-warp array of 2 × 16
#   floats per query tile; after `__syncwarp()` each element reads its row's.
# - **The accumulator** is rescaled in place, `acc[j].x[e] *= alpha[e]`: its elements have the
#   same map.
# - **The row sums** `l` are kept per element (`l[e] = l[e] * alpha[e] + p`, over this lane's
#   columns of the row) and summed across lanes once, after the loop, through the exchange tile.
# - **`p` into `p · v`.** A `matrix_a` fragment of `T` may hold its elements in the same map as
#   an accumulator; then `pf[j].x[e] = from_float<T>(c[j].x[e])` is the operand, with no shared
#   memory at all. Check it at run time, as the map is learnt: load the same number tile, as
#   `T`, into a `matrix_a` fragment and compare element for element (`__all_sync` over the
#   warp). It holds for bfloat16 on an H100 (and on the CPU backend); where it does not (float16
#   on the CPU backend), `p` goes through the score tile and a probability tile of `T`, as in
#   the first design.
#
# **On the course GPUs, shuffles.** The map the warp learns there is the one PTX documents for
# `mma.sync`'s 16 × 8 tiles, twice across: lane `4g + t` holds rows `g` (elements 0, 1, 4, 5)
# and `g + 8` (2, 3, 6, 7). A row's 16 columns then lie in **one quad of lanes**, and its max
# is two `__shfl_xor_sync` away (masks 1 and 2): no exchange tile, no `__syncwarp()`, and
# `alpha`, the max and `l` stay in registers, two per lane (rows `g`, `g + 8`). Check it as
# the map is learnt (`at[e] / 16 == lane / 4 + 8 (e / 2 % 2)` in every lane) and keep the
# exchange tile for any other map: the CPU backend's own map is another (lane `L` holds row
# `L / 2`), so both paths are written, as one template with a `bool QUAD` parameter; the block
# runs the shuffle version if every warp finds the GPU's map, else the exchange version.
# `TCLAB_WMMA_LAYOUT=mma` gives the CPU backend the GPU's map, to run the shuffle path there.
# Two more instructions go per element: the scores stay unscaled and the scale joins the
# exponent, `exp2(fmaf(x, scale_log2, -m))`; and `exp2f`, which wraps its one `MUFU.EX2` in a
# test and two multiplies for results below 2⁻¹²⁶, becomes `ex2.approx.ftz.f32` itself (the
# cell's `exp2_approx`; `p` is rounded to 16 bits anyway). On an H100 (2026-12-07) the
# reference ran 245 TFLOP/s at `d = 128` with the shuffles, 208 without.
#
# **Lazy rescaling.** With the statistics in registers, what is left of the softmax per tile
# is mostly `acc *= alpha`: at `d = 128`, two query tiles, 128 multiplies a lane, one per
# `HMMA`. They are needed only when the max moves, and the max need not move for every
# increase: `p = exp2(x - m)` against a max a little stale is `<= 2^8` if the new scores pass
# it by at most 8 (base 2), and `l`, `acc` and `acc / l` are the same float32 sums (rounding
# `p` to 16 bits is relative: as exact at 200 as at 0.7). So the warp votes
# (`__any_sync`): only if some row's new max passes its old by more than 8 do its rows take the
# new max and rescale. Random scores never pass their first tile's max by that much (5.5
# standard deviations), so every later tile skips the multiplies; the large-score shapes
# rescale when they must.
#
# **Two query tiles a warp**: each K or V fragment a warp loads from shared memory feeds two
# `mma_sync`s, one per query tile: half the shared-memory traffic per product, which is what
# bounds a warp of one tile. At `d = 128` two tiles cannot hold their `q` fragments in
# registers as well (with the accumulators they alone take 256): there `q` keeps a shared tile
# of its own for the whole loop, and for each K/V tile the warp loads `q`'s fragments again,
# 16 columns (two fragments) at a time, against every K fragment of those columns; with 32
# keys a K/V tile instead of 64 the scores and `p` take half the registers. On an H100
# (2026-12-07, the reference, shuffles on) that ran 245 TFLOP/s full at `d = 128` where 8 warps
# of one tile with `q` in registers ran 214.
#
# **Causal heads** stop at the diagonal (`end = min(s, row0 + BM)`), and run their **last query
# tile first**: `row0 = (causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x) * BM`, as in the
# Triton kernel (Hint 2 there).
#
# **Shared memory**, dynamic (`extern __shared__ __align__(128) unsigned char smem[];`), each
# row padded by 16 bytes so that the 8 rows a fragment load reads at once fall in different
# banks, every fragment on a 32-byte boundary:
#
# | tile | shape | element | bytes at `d = 64` / `128` |
# |---|---|---|---|
# | `kv[2][2]` (2 stages of keys and values, `BN` = 64 / 32 keys each) | `BN` × (`d` + 8) each | `T` | 36864 / 34816 |
# | `qs` (the block's 128 queries: at `d = 64` in stage 1, before tile 1 lands; at `d = 128` a tile of its own) | 128 × (`d` + 8) | `T` | — / 34816 |
# | `ss` (scores; the exchange tile) | 32 × (`BN` + 4) per warp | `float` | 34816 / 18432 |
# | `ps` (probabilities, where `p` cannot stay in registers) | 32 × (`BN` + 8) per warp | `T` | 18432 / 10240 |
# | `st` (each row's `alpha` and max) | 2 × 32 per warp | `float` | 1024 |
#
# 91136 bytes at `d = 64`, 99328 at `d = 128`: past 48 KiB, which SourceModule's launch opts
# in to. `q` passes through shared memory: its last tile's rows past `s` must read as zeros,
# which a fragment loaded straight from global memory cannot promise.
#
# <details><summary>Hint 1 — copying a tile</summary>
#
# A function `issue_rows<T, D, ROWS, THREADS>(tile, head, row0, s)` for `ROWS` rows of a head
# from `row0`: 16-byte pieces (8 elements), piece `p = threadIdx.x, threadIdx.x + THREADS, ...`
# is row `p / (D / 8)`, columns `8 (p % (D / 8))`: neighbouring threads copy neighbouring 16
# bytes. `__pipeline_memcpy_async(&tile[r][c], src, 16, inside ? 0 : 16)`: a row past `s`
# copies nothing and fills 16 bytes of zeros (pass the head's start as its `src`, never read).
# The head starts at `(long long)blockIdx.y * s * D`. Keep that loop rolled (`#pragma unroll
# 1`): unrolled, each copy's address takes registers the accumulators need. Every K/V tile but
# a head's last lies wholly below `s`: there `issue_whole<T, D, ROWS, THREADS>(tile, head,
# row0)` copies a thread's pieces, one 16-byte column of every `THREADS / (D / 8)`-th row, from
# one source address at fixed offsets, unrolled: a few instructions a piece where the loop's
# division and bounds test cost some 35.
# </details>
#
# <details><summary>Hint 2 — the pipeline and its barriers</summary>
#
# Before the loop: tile 0's keys and values into stage 0, `__pipeline_commit()`; the block's
# queries into the q tile (stage 1's key tile at `d = 64`), `__pipeline_commit()`; learn the
# maps (Hint 3) before either; `__pipeline_wait_prior(0)`, `__syncthreads()`, each warp loads
# its `q` fragments from `&qs[16 MT warp + 16 mt][16 i]` (at `d = 64`; at `d = 128` in the
# loop, Hint 4). Per tile `t` (stage `t % 2`): `__syncthreads()` (every warp
# is done with the other stage: tile `t - 1`, or `q`); copies of tile `t + 1` into the other
# stage if there is one; `__pipeline_commit()` always (an empty batch keeps the count);
# `__pipeline_wait_prior(1)` (all batches but the newest: tile `t`); `__syncthreads()`: the
# wait covers this thread's copies only, the barrier everyone's. "depends on thread order":
# that barrier missing.
# </details>
#
# <details><summary>Hint 3 — learning the maps</summary>
#
# Lanes write `ss[warp][i / 16][i % 16] = (float)i` and `ps[warp][i / 16][i % 16] =
# from_float<T>((float)i)` for `i = lane, lane + 32, ...` below 256 (exact in both types);
# `__syncwarp()`; `load_matrix_sync` of an accumulator from `&ss[warp][0][0]` (`ldm` 68) gives
# `at[e]`; `load_shared` of a `matrix_a` fragment from `&ps[warp][0][0]` (`ldm` 72), compared
# with `at` where `num_elements` agree (`if constexpr`), gives `same`;
# `direct = __all_sync(0xffffffff, same)`; `__syncwarp()` before the tiles are reused.
# </details>
#
# <details><summary>Hint 4 — scores and their maxima</summary>
#
# For each 16 keys `j`: the fragments `c[mt][j]`, filled with 0, then for each 16 of `d` `i`
# one `kf` from `&ks[16 j][16 i]` and `mma_sync(c[mt][j], qf[mt][i], kf, c[mt][j])` for each
# query tile. At `d = 128` (`q` in shared memory) the other way round: for each 16 of `d` `i`
# load the warp's two `q` fragments from `&qs[16 MT warp + 16 mt][16 i]`, then for each 16 keys
# `j` one `kf` and its two `mma_sync`s. Then per element: `x = c.x[e] * scale_log2`,
# `-INFINITY` where its key is `≥ s` or (causal) after its query, back into `c.x[e]`;
# `pmax[e] = fmaxf(pmax[e], x)` over `j`. A tile needs the mask only if `n0 + BN > s` or
# (causal) `n0 + BN > row0`: decide that once per tile. Then the exchange (above), or the
# shuffles. Key 0 is in every row's first tile: `m_new` is finite from
# there on, and `exp2f(-inf - m_new) = 0` (the first tile's `alpha`, and every masked `p`).
# </details>
#
# <details><summary>Hint 5 — p, and p · v</summary>
#
# Per query tile: read `alpha[e]` and `m_e[e]` of each element's row from `st`; `l[e] *=
# alpha[e]`; every accumulator fragment's `x[e] *= alpha[e]`; `p = exp2f(c.x[e] - m_e[e])`,
# `l[e] += p`, `c.x[e] = p`; then `pf[mt][j]` directly, or through `ss` (`store_matrix_sync`),
# `ps` (the lanes round each element) and `load_shared`, with `__syncwarp()` between. Then for
# each 16 of `d` `j` and 16 keys `i`: one `vf` from `&vs[16 i][16 j]`, `mma_sync(acc[mt][j],
# pf[mt][i], vf, acc[mt][j])` for each query tile. "elements differ" where `s > 64` only: the
# accumulator (or `l`) not rescaled.
# </details>
#
# <details><summary>Hint 6 — the end</summary>
#
# `l[e]` to the exchange tile at its position, `__syncwarp()`, lanes `2r`, `2r + 1` sum row
# `r`'s 16 values and the neighbour's. Then `o`, 64 columns a pass: `store_matrix_sync` of the
# accumulator fragments `c0 / 16 ...` to `ss[warp]`, `__syncwarp()`, lane `(r, half)` writes
# columns `c0 + 32 half ...` of its query (if `< s`): `ss[warp][16 mt + r][c] / l`, rounded with
# `from_float<T>`; `__syncwarp()` before the next pass.
# </details>
#
# <details><summary>Hint 7 — the launcher</summary>
#
# Pick the kernel by dtype and `d`; `block=(32 warps, 1, 1)`, `grid=(cdiv(s, 128), b * h)`
# (`b · h` at most 65535, gridDim.y's limit), `shared=` the table's bytes. The scale in base 2:
# `np.float32(log2(e) / sqrt(d))`; `causal` as `np.int32`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "attention_cu", "locked": false, "schema_version": 3, "solution": true}
ATTENTION_CU = r"""
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// load_matrix_sync for an operand fragment in shared memory. nvcc 13 compiles load_matrix_sync of
// a bfloat16 fragment to four 4-byte loads through generic addresses (float16's become one
// ldmatrix: the compiler knows the pointer is shared). On the GPU the bfloat16 overloads write
// the same wmma.load instruction with its state space, .shared; the CPU backend, which runs no
// PTX and defines no __CUDA_ARCH__, calls load_matrix_sync.
template <class Fragment, typename T>
__device__ __forceinline__ void load_shared(Fragment &f, const T *p, unsigned ldm)
{
    wmma::load_matrix_sync(f, p, ldm);
}
#if defined(__CUDA_ARCH__)
#define LOAD_SHARED_BF16(USE, LAYOUT, OP, ROW_COL)                                                \
    __device__ __forceinline__ void load_shared(                                                  \
        wmma::fragment<wmma::USE, 16, 16, 16, __nv_bfloat16, wmma::LAYOUT> &f,                    \
        const __nv_bfloat16 *p, unsigned ldm)                                                     \
    {                                                                                             \
        unsigned *r = reinterpret_cast<unsigned *>(&f); /* the fragment's 4 registers */          \
        const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));                   \
        asm volatile("wmma.load." OP ".sync.aligned." ROW_COL ".m16n16k16.shared.bf16 "           \
                     "{%0, %1, %2, %3}, [%4], %5;"                                                \
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                             \
                     : "r"(at), "r"(ldm));                                                        \
    }
LOAD_SHARED_BF16(matrix_a, row_major, "a", "row")  // q, p
LOAD_SHARED_BF16(matrix_b, col_major, "b", "col")  // k^T
LOAD_SHARED_BF16(matrix_b, row_major, "b", "row")  // v
#undef LOAD_SHARED_BF16
#endif

#define PAD_T 8   // 16-bit elements (16 bytes) added to each row of a shared K, V or P tile
#define PAD_F 4   // floats (16 bytes) added to each row of a shared float tile

// float -> T, rounded to nearest even, and back.
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half from_float<__half>(float x)
{
    return __float2half_rn(x);
}
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

/// BEGIN SOLUTION
// This thread's cp.async copies of rows row0 .. row0 + ROWS - 1 of one head's s x D matrix into
// tile[r][c], in 16-byte pieces (8 elements): piece p is row p / (D / 8), columns 8 (p % (D / 8))
// on, thread t taking pieces t, t + THREADS, ...: neighbouring threads, neighbouring 16 bytes.
// A row past s is a copy of 0 bytes that fills 16 with zeros (its source is never read).
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void issue_rows(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                           int row0, int s)
{
    // Not unrolled: unrolled, the compiler keeps every copy's address in a register across the
    // K/V loop, where the accumulators leave none to spare.
#pragma unroll 1
    for (int p = threadIdx.x; p < ROWS * D / 8; p += THREADS) {
        const int r = p / (D / 8), c = p % (D / 8) * 8;
        const bool inside = row0 + r < s;
        __pipeline_memcpy_async(&tile[r][c], inside ? head + (long long)(row0 + r) * D + c : head,
                                16, inside ? 0 : 16);
    }
}

// The same for ROWS rows that all lie below s (every K/V tile but a head's last): the thread's
// pieces are one 16-byte column of every (THREADS / (D / 8))-th row, fixed offsets from one
// source and one destination address (the loop unrolled costs no registers), where
// issue_rows' loop spends some 35 instructions a piece on the row, the column and the bounds.
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void issue_whole(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                            int row0)
{
    constexpr int PER_ROW = D / 8, STEP = THREADS / PER_ROW;  // pieces a row, rows a pass
    static_assert(THREADS % PER_ROW == 0 && ROWS % STEP == 0, "whole passes");
    const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW * 8;
    const T *src = head + (long long)(row0 + r) * D + c;
#pragma unroll
    for (int i = 0; i < ROWS / STEP; ++i)
        __pipeline_memcpy_async(&tile[r + i * STEP][c], src + i * STEP * D, 16);
}

// 2^x in one instruction on the GPU (MUFU.EX2; exp2f adds a test and two multiplies for results
// below 2^-126, which p rounded to 16 bits does not need); exp2f on the CPU backend (no PTX).
__device__ __forceinline__ float exp2_approx(float x)
{
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}

// attention_tile's work, BN keys a K/V tile. QS: q's fragments loaded from a shared q tile for
// each K/V tile (else held in registers). QUAD: the softmax's row maxima and sums through
// shuffles, which needs mma.sync's fragment map (the course GPUs'); where the map learnt is
// another it returns false having done nothing, and attention_tile runs QUAD = false: the
// exchange tile.
template <typename T, int D, int WARPS, int MT, int BN, bool QS, bool QUAD>
__device__ __forceinline__ bool attention_warps(const T *__restrict__ q, const T *__restrict__ k,
                                                const T *__restrict__ v, T *__restrict__ o,
                                                int s, float scale_log2, int causal)
{
    constexpr int THREADS = WARPS * 32, BM = 16 * MT * WARPS, WM = 16 * MT;
    constexpr int LDT = D + PAD_T;   // elements between rows of a K or V tile
    constexpr int LDS = BN + PAD_F;  // floats between rows of a warp's score tile
    constexpr int LDP = BN + PAD_T;  // elements between rows of a warp's probability tile
    // Rows of LDT elements: the two stages' K and V tiles, 4 BN; the q tile from Q0 on (its own
    // with QS, else stage 1's, read before tile 1 lands); the per-warp tiles after both.
    constexpr int Q0 = QS ? 4 * BN : 2 * BN;
    constexpr int ROWS = Q0 + BM > 4 * BN ? Q0 + BM : 4 * BN;
    static_assert(QS || BM <= 2 * BN, "q passes through one stage's K and V tiles");
    static_assert(D % BN == 0, "o leaves through the score tile, BN columns a pass");
    // Shared memory: two stages of {BN keys, BN values} and the q tile; per warp its score tile
    // (the exchange tile too), its probability tile, and its rows' rescale factors and maxima.
    // Every tile and every fragment in it starts a multiple of 32 bytes in.
    extern __shared__ __align__(128) unsigned char smem[];
    T(*kv)[2][BN][LDT] = reinterpret_cast<T(*)[2][BN][LDT]>(smem);  // [stage][k or v][key][:]
    T(*qs)[LDT] = reinterpret_cast<T(*)[LDT]>(smem) + Q0;            // [query][:]
    float(*ss)[WM][LDS] =
        reinterpret_cast<float(*)[WM][LDS]>(reinterpret_cast<T(*)[LDT]>(smem) + ROWS);
    T(*ps)[WM][LDP] = reinterpret_cast<T(*)[WM][LDP]>(ss + WARPS);
    float(*st)[2][WM] = reinterpret_cast<float(*)[2][WM]>(ps + WARPS);  // [warp][alpha, max][row]
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
    constexpr int E = Acc::num_elements;  // a lane's elements of an accumulator fragment

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // Causal heads run their last query tile first: the heaviest blocks start early, and the
    // grid ends with one-tile blocks.
    const int row0 = (causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x) * BM;
    const long long head = (long long)blockIdx.y * s * D;  // the head's first element, 64-bit
    q += head;
    k += head;
    v += head;
    o += head;
    const int end = causal ? min(s, row0 + BM) : s;  // causal: no key after the last query
    const int tiles = (end + BN - 1) / BN;

    // The fragments' maps: element e of this lane's accumulator fragment is row at[e] / 16,
    // column at[e] % 16 (a tile of element numbers, loaded). If a matrix_a fragment of T holds
    // the same elements, p goes from the scores' fragments to p . v's without shared memory.
    for (int i = lane; i < 16 * 16; i += 32) {
        ss[warp][i / 16][i % 16] = (float)i;
        ps[warp][i / 16][i % 16] = from_float<T>((float)i);  // exact up to 256 in T
    }
    __syncwarp();
    int at[E];
    {
        Acc map;
        wmma::load_matrix_sync(map, &ss[warp][0][0], LDS, wmma::mem_row_major);
#pragma unroll
        for (int e = 0; e < E; ++e) at[e] = (int)map.x[e];
    }
    bool same = false;
    if constexpr (FragA::num_elements == E) {
        FragA a;
        load_shared(a, &ps[warp][0][0], LDP);
        same = true;
#pragma unroll
        for (int e = 0; e < E; ++e) same = same && (int)to_float(a.x[e]) == at[e];
    }
    const bool direct = __all_sync(0xffffffffu, same);  // every lane's map agrees
    __syncwarp();
    if constexpr (QUAD) {  // mma.sync's map: lane 4 g + t holds rows g (e = 0, 1, 4, 5), g + 8
        bool quads = E == 8;
#pragma unroll
        for (int e = 0; e < E; ++e) quads = quads && at[e] / 16 == lane / 4 + 8 * (e / 2 % 2);
        if (!__all_sync(0xffffffffu, quads)) return false;  // the same in every warp
    }

    // Tile 0 of K and V into stage 0, the block's queries into the q tile.
    issue_rows<T, D, BN, THREADS>(kv[0][0], k, 0, s);
    issue_rows<T, D, BN, THREADS>(kv[0][1], v, 0, s);
    __pipeline_commit();
    issue_rows<T, D, BM, THREADS>(qs, q + (long long)row0 * D, 0, s - row0);
    __pipeline_commit();

    Acc acc[MT][D / 16];  // the output accumulator: MT x 16 queries x D, float32
    float l[MT][E];       // per element: its row's sum of p over this lane's columns
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int j = 0; j < D / 16; ++j) wmma::fill_fragment(acc[mt][j], 0.0f);
#pragma unroll
        for (int e = 0; e < E; ++e) l[mt][e] = 0.0f;
    }
    __pipeline_wait_prior(0);
    __syncthreads();  // q (and tile 0) have landed
    // Without QS the warp's queries stay in registers (stage 1 takes tile 1 over q's rows);
    // with QS they are loaded from the q tile for each K/V tile (qf unused).
    FragA qf[QS ? 1 : MT][QS ? 1 : D / 16];
    if constexpr (!QS) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int i = 0; i < D / 16; ++i)
                load_shared(qf[mt][i], &qs[WM * warp + 16 * mt][16 * i], LDT);
    }

    const int r = lane / 2, half = lane % 2;  // lanes 2r, 2r + 1 reduce row r of an exchange
    float m[MT];                              // running max (base 2), per query tile's row r
    float mq[MT][2], lq[MT][2];  // QUAD: rows g and g + 8's running max (base 2) and partial sum
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        m[mt] = -INFINITY;
        mq[mt][0] = mq[mt][1] = -INFINITY;
        lq[mt][0] = lq[mt][1] = 0.0f;
    }
    for (int t = 0; t < tiles; ++t) {
        const int n0 = t * BN, cur = t % 2;
        __syncthreads();  // every warp is done with the other stage (tile t - 1, or q)
        if (n0 + 2 * BN <= s && t + 1 < tiles) {  // tile t + 1, whole: fixed offsets
            issue_whole<T, D, BN, THREADS>(kv[1 - cur][0], k, n0 + BN);
            issue_whole<T, D, BN, THREADS>(kv[1 - cur][1], v, n0 + BN);
        } else if (t + 1 < tiles) {  // a head's last tile, past s: piece by piece
            issue_rows<T, D, BN, THREADS>(kv[1 - cur][0], k, n0 + BN, s);
            issue_rows<T, D, BN, THREADS>(kv[1 - cur][1], v, n0 + BN, s);
        }
        __pipeline_commit();     // an empty batch on the last tile: the count stays right
        __pipeline_wait_prior(1);  // every batch but the newest: tile t
        __syncthreads();         // tile t has landed, every thread's pieces of it
        const T(*ks)[LDT] = kv[cur][0];
        const T(*vs)[LDT] = kv[cur][1];

        // Scores: MT x 16 queries x BN keys in accumulator fragments; each K fragment loaded
        // once feeds the warp's MT query tiles.
        using FragK = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major>;  // k^T
        Acc c[MT][BN / 16];
#pragma unroll
        for (int j = 0; j < BN / 16; ++j)
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) wmma::fill_fragment(c[mt][j], 0.0f);
        if constexpr (QS) {  // 16 columns of q at a time (MT fragments), against every key
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                FragA qi[MT];
#pragma unroll
                for (int mt = 0; mt < MT; ++mt)
                    load_shared(qi[mt], &qs[WM * warp + 16 * mt][16 * i], LDT);
#pragma unroll
                for (int j = 0; j < BN / 16; ++j) {
                    FragK kf;
                    load_shared(kf, &ks[16 * j][16 * i], LDT);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
                        wmma::mma_sync(c[mt][j], qi[mt], kf, c[mt][j]);
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                for (int i = 0; i < D / 16; ++i) {
                    FragK kf;
                    load_shared(kf, &ks[16 * j][16 * i], LDT);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
                        wmma::mma_sync(c[mt][j], qf[mt][i], kf, c[mt][j]);
                }
        }
        // The mask: once per tile, whether any element needs it. Key 0 is in every row's first
        // tile: the max is finite from there on, and exp2(-inf - m) = 0 (the first tile's alpha,
        // and every masked p).
        const bool masked = n0 + BN > s || (causal && n0 + BN > row0);
        FragA pf[MT][BN / 16];
        if constexpr (QUAD) {  // a row's 16 columns in one quad of lanes: shuffles, registers
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                const int row_t = row0 + WM * warp + 16 * mt;  // this query tile's first query
                float mx[2] = {-INFINITY, -INFINITY};  // rows g, g + 8; the scores unscaled
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const int key = n0 + 16 * j + at[e] % 16;
                        if (masked && (key >= s || (causal && key > row_t + at[e] / 16)))
                            c[mt][j].x[e] = -INFINITY;
                        mx[e / 2 % 2] = fmaxf(mx[e / 2 % 2], c[mt][j].x[e]);
                    }
                float m_new[2];
                bool moves = false;
#pragma unroll
                for (int h = 0; h < 2; ++h) {  // the row's max: the quad's four lanes
                    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
                    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
                    m_new[h] = fmaxf(mq[mt][h], mx[h] * scale_log2);
                    moves |= m_new[h] > mq[mt][h] + 8.0f;  // always at the first tile
                }
                // Lazy rescaling: the max moves only where some row of the warp passes it by
                // more than 8 (base 2); until then p <= 2^8, the sums the same in float32.
                if (__any_sync(0xffffffffu, moves)) {
                    float alpha[2];
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        alpha[h] = exp2_approx(mq[mt][h] - m_new[h]);
                        mq[mt][h] = m_new[h];
                        lq[mt][h] *= alpha[h];
                    }
#pragma unroll
                    for (int j = 0; j < D / 16; ++j)
#pragma unroll
                        for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e / 2 % 2];
                } else {
                    m_new[0] = mq[mt][0];
                    m_new[1] = mq[mt][1];
                }
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {  // the scale in the exponent's FMA
                        const float p =
                            exp2_approx(fmaf(c[mt][j].x[e], scale_log2, -m_new[e / 2 % 2]));
                        lq[mt][e / 2 % 2] += p;
                        c[mt][j].x[e] = p;
                    }
            }
        } else {  // any map: the exchange tile
            // Scaled and masked in place; each element's max over this lane's BN / 16 fragments,
            // to the exchange tile at its (row, column).
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                const int row_t = row0 + WM * warp + 16 * mt;  // this query tile's first query
                float pmax[E];
#pragma unroll
                for (int e = 0; e < E; ++e) pmax[e] = -INFINITY;
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        float x = c[mt][j].x[e] * scale_log2;
                        const int key = n0 + 16 * j + at[e] % 16;
                        if (masked && (key >= s || (causal && key > row_t + at[e] / 16)))
                            x = -INFINITY;
                        c[mt][j].x[e] = x;
                        pmax[e] = fmaxf(pmax[e], x);
                    }
#pragma unroll
                for (int e = 0; e < E; ++e)
                    ss[warp][16 * mt + at[e] / 16][at[e] % 16] = pmax[e];
            }
            __syncwarp();
            // Row r's max: its 16 partial maxima, 8 a lane, and the neighbour's.
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                const float4 *x4 =
                    reinterpret_cast<const float4 *>(&ss[warp][16 * mt + r][8 * half]);
                const float4 a = x4[0], b = x4[1];
                float tile_max = fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)),
                                       fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
                const float m_new = fmaxf(m[mt], tile_max);
                if (half == 0) {
                    st[warp][0][16 * mt + r] = exp2_approx(m[mt] - m_new);  // alpha
                    st[warp][1][16 * mt + r] = m_new;
                }
                m[mt] = m_new;
            }
            __syncwarp();
            // Per element: its row's alpha and max; rescale, p = exp2(x - max), the sums.
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                float alpha[E], m_e[E];
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    alpha[e] = st[warp][0][16 * mt + at[e] / 16];
                    m_e[e] = st[warp][1][16 * mt + at[e] / 16];
                    l[mt][e] *= alpha[e];
                }
#pragma unroll
                for (int j = 0; j < D / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e];
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const float p = exp2_approx(c[mt][j].x[e] - m_e[e]);
                        l[mt][e] += p;
                        c[mt][j].x[e] = p;
                    }
            }
        }
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            if (direct) {  // p rounded to T, element for element
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) pf[mt][j].x[e] = from_float<T>(c[mt][j].x[e]);
            } else {  // through the score tile (float) and the probability tile (T)
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
                    wmma::store_matrix_sync(&ss[warp][16 * mt][16 * j], c[mt][j], LDS,
                                            wmma::mem_row_major);
                __syncwarp();
                for (int i = lane; i < 16 * BN; i += 32)
                    ps[warp][16 * mt + i / BN][i % BN] =
                        from_float<T>(ss[warp][16 * mt + i / BN][i % BN]);
                __syncwarp();
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
                    load_shared(pf[mt][j], &ps[warp][16 * mt][16 * j], LDP);
            }
        }
        // acc += p . v: each V fragment loaded once feeds the warp's MT query tiles.
#pragma unroll
        for (int j = 0; j < D / 16; ++j)
#pragma unroll
            for (int i = 0; i < BN / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
                load_shared(vf, &vs[16 * i][16 * j], LDT);
#pragma unroll
                for (int mt = 0; mt < MT; ++mt)
                    wmma::mma_sync(acc[mt][j], pf[mt][i], vf, acc[mt][j]);
            }
        __syncwarp();  // the exchange tile is free for the next tile's maxima
    }

    // Each row's l, to lanes 2r, 2r + 1 (row r): QUAD, the quad's sums through st; else the
    // per-element sums through the exchange tile.
    float l_row[MT];
    if constexpr (QUAD) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float sum = lq[mt][h];
                sum += __shfl_xor_sync(0xffffffffu, sum, 1);
                sum += __shfl_xor_sync(0xffffffffu, sum, 2);
                if (lane % 4 == 0) st[warp][0][16 * mt + lane / 4 + 8 * h] = sum;
            }
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) l_row[mt] = st[warp][0][16 * mt + r];
    } else {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int e = 0; e < E; ++e) ss[warp][16 * mt + at[e] / 16][at[e] % 16] = l[mt][e];
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const float4 *x4 =
                reinterpret_cast<const float4 *>(&ss[warp][16 * mt + r][8 * half]);
            const float4 a = x4[0], b = x4[1];
            const float sum = (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
            l_row[mt] = sum + __shfl_xor_sync(0xffffffffu, sum, 1);
        }
    }
    __syncwarp();
    // o = acc / l, BN columns a pass through the score tile; lane (r, half) writes half of row
    // r's BN columns, one rounding, 8 elements (16 bytes) a store; rows past s are not stored.
    for (int c0 = 0; c0 < D; c0 += BN) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int j = 0; j < BN / 16; ++j)
                wmma::store_matrix_sync(&ss[warp][16 * mt][16 * j], acc[mt][c0 / 16 + j], LDS,
                                        wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const int row = row0 + WM * warp + 16 * mt + r;
            if (row < s) {
                const float inv_l = 1.0f / l_row[mt];
                T *out = o + (long long)row * D + c0;
#pragma unroll
                for (int cc = half * (BN / 2); cc < (half + 1) * (BN / 2); cc += 8) {
                    uint4 eight;
                    T *e = reinterpret_cast<T *>(&eight);
#pragma unroll
                    for (int i = 0; i < 8; ++i)
                        e[i] = from_float<T>(ss[warp][16 * mt + r][cc + i] * inv_l);
                    *reinterpret_cast<uint4 *>(out + cc) = eight;
                }
            }
        }
        __syncwarp();
    }
    return true;
}
/// END SOLUTION

// One block: queries blockIdx.x * BM .. + BM - 1 (BM = 16 MT WARPS) of head blockIdx.y; each of
// the WARPS warps owns MT tiles of 16 queries.
template <typename T, int D, int WARPS, int MT>
__device__ __forceinline__ void attention_tile(const T *__restrict__ q,  // [b, h, s, D]
                                               const T *__restrict__ k,  // [b, h, s, D]
                                               const T *__restrict__ v,  // [b, h, s, D]
                                               T *__restrict__ o,        // [b, h, s, D]
                                               int s,                    // tokens per head
                                               float scale_log2,         // log2(e) / sqrt(D)
                                               int causal)               // 1: key c <= query r
{
    /// BEGIN SOLUTION
    // Two query tiles a warp at d 128 hold q's fragments in no register (the accumulators take
    // them): q from shared memory, 32 keys a K/V tile. Elsewhere q in registers, 64 keys.
    constexpr bool QS = D == 128 && MT == 2;
    constexpr int BN = QS ? 32 : 64;
    if (!attention_warps<T, D, WARPS, MT, BN, QS, true>(q, k, v, o, s, scale_log2, causal))
        attention_warps<T, D, WARPS, MT, BN, QS, false>(q, k, v, o, s, scale_log2, causal);
    /// END SOLUTION
}

// The four kernels the launcher picks from: element type x head dimension, each with its warps
// per block and query tiles per warp (4 warps of 2 tiles, 128 queries a block).
#define ATTENTION_KERNEL(NAME, T, D, WARPS, MT)                                             \
    extern "C" __global__ void __launch_bounds__(WARPS * 32)                               \
        NAME(const T *q, const T *k, const T *v, T *o, int s, float scale_log2, int causal) \
    {                                                                                      \
        attention_tile<T, D, WARPS, MT>(q, k, v, o, s, scale_log2, causal);                \
    }
ATTENTION_KERNEL(attention_kernel_bf16_d64, __nv_bfloat16, 64, 4, 2)
ATTENTION_KERNEL(attention_kernel_bf16_d128, __nv_bfloat16, 128, 4, 2)
ATTENTION_KERNEL(attention_kernel_f16_d64, __half, 64, 4, 2)
ATTENTION_KERNEL(attention_kernel_f16_d128, __half, 128, 4, 2)
"""

# %% nbgrader={"grade": false, "grade_id": "attention_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
attention_module = SourceModule(ATTENTION_CU, no_extern_c=True)
attention_kernels_cu = {
    (dtype, d): attention_module.get_function(f"attention_kernel_{name}_d{d}")
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")) for d in (64, 128)
}
# Per head dimension: (warps per block, 16-query tiles per warp), as ATTENTION_CU instantiates.
ATTENTION_SHAPES_CU = {64: (4, 2), 128: (4, 2)}


def attention_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                   causal: int) -> None:
    """o = softmax(q @ k^T / sqrt(d) [causal]) @ v with WMMA: one block per 128 queries of a
    head, 4 warps of 2 query tiles.

    Pass the arguments in the kernels' order, as C types: each tensor as
    np.uintp(t.data_ptr()), s and causal as np.int32(...), the scale as np.float32(...); then
    block=(32 warps, 1, 1), grid=(query tiles, heads) and shared= the bytes of dynamic shared
    memory.
    """
    ### BEGIN SOLUTION
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert all(t.dtype == q.dtype for t in (k, v, o)), "q, k, v and o: one dtype"
    assert (q.dtype, d) in attention_kernels_cu, f"{q.dtype}, head dim {d}: no kernel for it"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v, o)), "16-byte copies need aligned rows"
    assert b * h <= 65535, f"{b * h} heads: gridDim.y <= 65535"
    warps, tiles = ATTENTION_SHAPES_CU[d]
    qs = d == 128  # q from its own shared tile, 32 keys a K/V tile (attention_tile's QS, BN)
    bn = 32 if qs else 64
    # Rows of d + 8 elements: two stages of K and V, bn each, and q's 128 (its own with qs, else
    # in stage 1); per warp, per query tile: 16 x (bn + 4) floats (scores), 16 x (bn + 8)
    # elements (p), 2 x 16 floats (alpha, max).
    rows = max(4 * bn, (4 * bn if qs else 2 * bn) + 16 * tiles * warps)
    smem = rows * (d + 8) * 2 + warps * tiles * 16 * ((bn + 4) * 4 + (bn + 8) * 2 + 2 * 4)
    attention_kernels_cu[(q.dtype, d)](
        np.uintp(q.data_ptr()),
        np.uintp(k.data_ptr()),
        np.uintp(v.data_ptr()),
        np.uintp(o.data_ptr()),
        np.int32(s),
        np.float32(1.4426950408889634 / math.sqrt(d)),  # log2(e) / sqrt(d)
        np.int32(causal),
        block=(32 * warps, 1, 1),
        grid=(triton.cdiv(s, 16 * tiles * warps), b * h),
        shared=smem,  # 91136 or 99328 bytes, over 48 KiB: SourceModule's launch opts in
    )
    ### END SOLUTION


# %% [markdown]
# ### Check attention
#
# Shapes: one K/V tile exactly (`s = 64`), two with a tail (`s = 80`, `72`), one short tile
# (`s = 17`); head dims 64 and 128; causal and full; bfloat16 and float16. A failure names the
# shape (`b`, `h`, `s`, `d`, `causal`) and the first wrong elements of `o` by
# `[batch, head, token, column]`.

# %% nbgrader={"grade": true, "grade_id": "test_attention_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", attention_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", attention_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_attention_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", attention_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", attention_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast is attention?
#
# On a GPU, `bench` times your launcher against torch's FlashAttention-2 (the flash backend of
# `F.scaled_dot_product_attention(q, k, v, is_causal=...)`), at `s = 4096` with 64 heads
# (`b = 4`, `h = 16`), head dims 64 and 128, full and causal, in TFLOP/s: `4 · b · h · s² · d`
# for a full head (two products, `q · kᵀ` and `p · v`, of `2 d` operations per query and key),
# `4 · b · h · d · s (s + 1) / 2` for a causal one (the pairs its mask keeps). The sweep goes
# from 512 to 4096 tokens. Without a GPU it says "skipped: needs a GPU".
#
# On an H100 (2026-12-07, bfloat16, TFLOP/s at d 64 full / causal, then d 128 full / causal):
#
# | kernel | d 64 | d 64 causal | d 128 | d 128 causal |
# |---|---|---|---|---|
# | torch's FlashAttention-2 (the baseline) | 301 | 264 | 354 | 305 |
# | torch's default call (cuDNN's kernel on Hopper) | 476 | 409 | 672 | 573 |
# | the Triton reference | 426 | 365 | 566 | 463 |
# | the CUDA reference (WMMA) | 249 | 196 | 275 | 233 |
#
# The default call picks NVIDIA's cuDNN kernel on Hopper. FlashAttention-2 uses the instructions
# older GPUs have too (`mma.sync`, `cp.async`), as your CUDA kernel does; Hopper's own, `wgmma`
# and TMA loads, are what the faster kernels add (Triton emits them for the reference's `d = 128`
# kernel).
#
# What never reaches memory is the point: a kernel that wrote the scores out and read them back
# would move `4 · s²` bytes per head, 4.3 GB at this size, for 0.3 to 0.6 TFLOP of work; this
# one reads `q`, `k` and `v` (`k` and `v` once per query tile) and writes `o`.

# %% nbgrader={"grade": true, "grade_id": "perf_attention_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", attention_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", attention_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_attention_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", attention_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", attention_cuda, graded=True)
### END HIDDEN TESTS


# %% [markdown]
# ## Exercise 2 — flash_decode: one token against a KV cache
#
# A model generating text runs exercise 1 once over the prompt, then produces **one token at a
# time**. Each new token's query, one row per head, attends to the keys and values of every
# token before it, which the model keeps from step to step: the **KV cache**. Per sequence
# `i` and query head `h`:
#
#     o[i, h] = softmax(q[i, h] · k[i, j]ᵀ · scale) · v[i, j],   j = h // group,   scale = 1/sqrt(d)
#
# - `q`: bfloat16 `[b, hq, d]`, the new token's queries, `b` sequences of `hq` heads;
# - `k`, `v`: bfloat16 `[b, hkv, s, d]`, the cache: KV head `(i, j)` is the `s × d` row-major
#   matrix that starts `(i · hkv + j) · s · d` elements in;
# - `o`: bfloat16 `[b, hq, d]`, allocated: write into it. All four contiguous; `d` 64 or 128.
#
# **Grouped-query attention (GQA).** `hq = group · hkv`: each KV head is shared by `group`
# query heads, query head `h` reading KV head `h // group` (heads `j · group` to
# `j · group + group - 1` read KV head `j`). Llama 3 8B has 32 query heads on 8 KV heads
# (`group` 4), 70B 64 on 8 (`group` 8); `group` 1 is plain multi-head attention. Here `group`
# is 1, 2, 4 or 8. The cache is `group` times smaller than with a KV head per query head, and
# a kernel that loads each block of a KV head **once for the whole group** reads the cache
# once, where a program per query head would read it `group` times (from L2 at best).
#
# **Why decode is memory-bound.** Per query head and key: `d` multiply-adds for the score and
# `d` for `p · v`, `4 d` floating-point operations, against `4 d` bytes of the key's and the
# value's rows (bfloat16), shared by the group: `group` operations per byte, 4 for Llama 3
# 8B. A Hopper GPU's CUDA cores alone do over ten float32 operations for every byte its memory
# delivers, its tensor cores hundreds. So the time of a decode step is the time it takes to
# read `k` and `v` once; everything else must hide behind that read.
#
# **Why one program per head leaves the GPU idle.** Exercise 1 gives each program a tile of
# queries; here a head has one. One program per KV head is `b · hkv` programs: at `b = 1` with
# 8 KV heads, 8 programs for a GPU of 132 SMs, and one SM alone draws a small share of the
# memory's bandwidth. The reading has to be spread over all of them.
#
# **Split-K over the keys.** Cut each KV head's `s` keys into `splits` ranges of
# `keys_per_split` keys and give each range a program of its own: `b · hkv · splits` programs,
# enough to keep every SM busy (32 splits a head at `b = 1`: 256 programs). Program `t` runs
# exercise 1's online softmax over its keys only, and leaves, for each query head of its group,
# a **partial** result in float32 scratch memory:
#
#     m_t   = max over its keys c of x_c                     (its own max)
#     l_t   = Σ_c exp(x_c - m_t)
#     acc_t = Σ_c exp(x_c - m_t) · v_c                        (a row of d, not divided by l_t)
#
# **The exact combine.** A second launch merges a head's partials. Each was computed against
# its own max, so each is first rescaled to the common one:
#
#     m = max_t m_t
#     l = Σ_t exp(m_t - m) · l_t
#     o = Σ_t exp(m_t - m) · acc_t / l
#
# Exact, because `exp(x_c - m_t) · exp(m_t - m) = exp(x_c - m)`: every term ends up as the
# one-pass softmax would have it. It is the online softmax's `alpha` of exercise 1, applied once
# across splits instead of tile after tile; and since `m_t ≤ m`, no weight exceeds 1, whatever
# the scores. Forget the `m_t` (weights `exp(m_t)` from the raw maxima) and the weights
# overflow float32 as soon as a score passes 88; add the partials as they are and every split
# counts as if its max were the common one.
#
# **The launch plan** (both languages; the CUDA launcher aims at fewer, larger blocks, see
# its section):
#
# 1. `splits`: about 2 programs per SM over the batch, never more splits than 64-key tiles,
#    at most 64: `sms = torch.cuda.get_device_properties(q.device).multi_processor_count if
#    q.is_cuda else 4` (132 on an H100; without a GPU, plan as for 4), `splits = min(cdiv(2 ·
#    sms, b · hkv), cdiv(s, 64), 64)`; then `keys_per_split = cdiv(cdiv(s, splits), 64) · 64`
#    (whole tiles) and `splits = cdiv(s, keys_per_split)`, so that no split is empty.
# 2. Scratch: `part_o` `[b, hq, splits, d]`, `part_m` and `part_l` `[b, hq, splits]`, float32,
#    `torch.empty(..., device=q.device)`: every element is written by the first launch.
# 3. The split pass: one program (block) per `(split, KV head j, sequence i)`, grid
#    `(splits, hkv, b)`. It handles the `group` query heads of its KV head together.
# 4. The combine: one program (block) per query head, grid `(b · hq,)`.
#
# The two launches go to one stream: the second starts when the first is done.
#
# **Rules of the arithmetic**: scores and every statistic (`m`, `l`, the partials, the combine)
# in float32; `p` rounded to bfloat16 for the tensor cores' `p · v` (`tl.dot` in Triton, WMMA
# in CUDA, as in exercise 1), summed in float32; `o` rounded once, at the store. Work in base 2
# as in exercise 1 (`log2(e)` folded into the scale, `exp2` everywhere, `m_t` in base 2 too):
# both passes must agree on it. The check compares with the float64 result at one bfloat16 ulp
# relative, 4e-3 absolute.
#
# ### Triton
#
# **`flash_decode_kernel`**, the split pass: `split`, `kv_j`, `seq` = `tl.program_id(0)`, `(1)`,
# `(2)`; `tl.num_programs(0)` is `splits`, `tl.num_programs(1)` is `hkv`. The group's queries
# are one `[BLOCK_G, d]` block, `BLOCK_G = max(16, next_power_of_2(group))`: rows past `group`
# are zeros, their results never stored. Then exercise 1's loop over the split's keys, without
# the causal mask: `tl.dot(q, kt)` for the scores, `tl.dot(p, v, acc)` for the sum.
#
# Why `tl.dot` for a block of 4 or 8 real rows: it wants at least 16, and the padding costs
# tensor-core work, which is free here (the kernel waits on memory). The alternative, a
# broadcast `q[:, None, :] * k[None, :, :]` summed over `d`, holds `group × BLOCK_N × d` products
# at once (32768 floats at `group` 4, 64 keys, `d = 128`): registers spill.
#
# **`flash_decode_combine_kernel`**: one program per query head, its splits as one block.
#
# <details><summary>Hint 1 — which heads, where</summary>
#
# `n_kv = tl.num_programs(axis=1)`; the KV head's first element
# `kv = (seq * n_kv + kv_j).to(tl.int64) * s * HEAD_DIM` (64-bit: `b · hkv · s · d` passes
# 2^31 in a large batch). Its query heads, numbered as the rows of `q` viewed `[b · hq, d]`:
# `heads = seq * n_kv * GROUP + kv_j * GROUP + offs_g` with `offs_g = tl.arange(0, BLOCK_G)`;
# the `q` block at `q_ptr + heads[:, None] * HEAD_DIM + offs_d[None, :]`, masked by
# `offs_g[:, None] < GROUP` with `other=0.0`. Elements differ only where `group > 1` and
# `hkv > 1`: the heads of KV head `j` are `j · group + g`, not `j + g · hkv`.
# </details>
#
# <details><summary>Hint 2 — the split's keys</summary>
#
# `start = split * keys_per_split`, `stop = tl.minimum(start + keys_per_split, s)`,
# `for n0 in range(start, stop, BLOCK_N)`, `offs_n = n0 + tl.arange(0, BLOCK_N)`. Since
# `keys_per_split` is a multiple of `BLOCK_N`, a tile never runs into the next split, only past
# `s` (in the last split): the masks are `offs_n < s`. `kᵀ`'s block at
# `k_ptr + kv + offs_n[None, :] * HEAD_DIM + offs_d[:, None]`, `v`'s at
# `v_ptr + kv + offs_n[:, None] * HEAD_DIM + offs_d[None, :]`, both masked with `other=0.0`.
# </details>
#
# <details><summary>Hint 3 — the loop body</summary>
#
# Exercise 1's: `x = tl.dot(q, kt) * qk_scale`; keys past `s` get `-inf`
# (`tl.where(offs_n[None, :] < s, x, float("-inf"))`: a zero key scores 0, which counts in `l`;
# without it, elements differ only where `s` is not a multiple of 64); `m_new`, `alpha`, `p`,
# `l_i`; `acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])`; `m_i = m_new`. Every split
# holds at least one key below `s`, so `m_i` is finite after its first tile.
# </details>
#
# <details><summary>Hint 4 — the partials</summary>
#
# A head's splits are consecutive: `rows = heads * splits + split`. Store `acc` (not divided
# by `l_i`) at `part_o_ptr + rows[:, None] * HEAD_DIM + offs_d[None, :]`, `m_i` at
# `part_m_ptr + rows` and `l_i` at `part_l_ptr + rows`, each masked by the group's rows
# (`offs_g < GROUP`). float32 all three: a partial rounded to bfloat16 would add a rounding the
# rules do not allow.
# </details>
#
# <details><summary>Hint 5 — the combine</summary>
#
# `head = tl.program_id(0)`, `offs_s = tl.arange(0, BLOCK_S)` (`BLOCK_S` the next power of two
# of `splits`), `mask = offs_s < splits`. Load `m_t` with `other=float("-inf")`, `l_t` with
# `other=0.0`, the `[BLOCK_S, HEAD_DIM]` block of `acc_t` with `other=0.0`. Then
# `m = tl.max(m_t, axis=0)`, `w = tl.exp2(m_t - m)` (0 on the masked rows),
# `o = tl.sum(w[:, None] * acc_t, axis=0) / tl.sum(w * l_t, axis=0)`, stored as
# `o.to(o_ptr.dtype.element_ty)` at `o_ptr + head * HEAD_DIM + offs_d`. NaN on the graded
# shapes with large scores only: the weights without `- m`.
# </details>
#
# <details><summary>Hint 6 — the launcher</summary>
#
# Validate (`k.shape == v.shape == (b, hkv, s, d)`, `hq % hkv == 0`, contiguous, `d` 64 or
# 128), plan the splits as above with `BLOCK_N = 64`, allocate the partials, then
# `flash_decode_kernel[(splits, hkv, b)](q, k, v, part_o, part_m, part_l, s, keys_per_split,
# log2(e) / sqrt(d), GROUP=group, BLOCK_G=..., HEAD_DIM=d, BLOCK_N=64)` and
# `flash_decode_combine_kernel[(b * hq,)](part_o, part_m, part_l, o, splits, HEAD_DIM=d,
# BLOCK_S=triton.next_power_of_2(splits))`. 4 warps and 3 stages for the split pass let the
# next tiles load while this one is used. Why about 2 programs per SM and not more: each split
# adds partials for the combine to read back, after the last split is done (on an H100 at
# `b = 1`, 4 programs per SM ran 0.91x the reference's speed, 2 per SM 0.96x).
# </details>

# %% nbgrader={"grade": false, "grade_id": "flash_decode_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def flash_decode_kernel(
    q_ptr,  # q: [b, hq, d] contiguous, bfloat16
    k_ptr,  # k: [b, hkv, s, d] contiguous, bfloat16
    v_ptr,  # v: the same
    part_o_ptr,  # [b, hq, splits, d] float32: each split's sum of p . v (not divided by l)
    part_m_ptr,  # [b, hq, splits] float32: each split's max score (base 2)
    part_l_ptr,  # [b, hq, splits] float32: each split's sum of p
    s,  # keys per KV head
    keys_per_split,  # a multiple of BLOCK_N
    qk_scale,  # log2(e) / sqrt(d): scores in base 2
    GROUP: tl.constexpr,  # query heads per KV head, hq // hkv
    BLOCK_G: tl.constexpr,  # GROUP padded to 16 rows at least (tl.dot's smallest)
    HEAD_DIM: tl.constexpr,  # d: 64 or 128
    BLOCK_N: tl.constexpr,  # keys per tile
):
    ### BEGIN SOLUTION
    split = tl.program_id(axis=0)
    kv_j = tl.program_id(axis=1)  # the KV head, within its sequence
    seq = tl.program_id(axis=2)
    splits = tl.num_programs(axis=0)
    n_kv = tl.num_programs(axis=1)  # hkv
    kv = (seq * n_kv + kv_j).to(tl.int64) * s * HEAD_DIM  # the KV head's first element, 64-bit
    offs_g = tl.arange(0, BLOCK_G)
    offs_d = tl.arange(0, HEAD_DIM)
    in_group = offs_g < GROUP  # rows past the group: tl.dot's padding, never stored
    # The query heads j GROUP .. j GROUP + GROUP - 1 of the sequence, as rows of q's [b hq, d].
    heads = seq * n_kv * GROUP + kv_j * GROUP + offs_g
    q = tl.load(q_ptr + heads[:, None] * HEAD_DIM + offs_d[None, :], mask=in_group[:, None],
                other=0.0)
    m_i = tl.full((BLOCK_G,), float("-inf"), dtype=tl.float32)  # running max, base 2
    l_i = tl.zeros((BLOCK_G,), dtype=tl.float32)  # running sum of exp2(x - m_i)
    acc = tl.zeros((BLOCK_G, HEAD_DIM), dtype=tl.float32)  # running sum of p . v
    start = split * keys_per_split
    stop = tl.minimum(start + keys_per_split, s)
    for n0 in range(start, stop, BLOCK_N):  # whole tiles: only the last split's ends past s
        offs_n = n0 + tl.arange(0, BLOCK_N)
        # k^T's block, HEAD_DIM x BLOCK_N: element [dd, c] is k[c, dd]; zeros past s.
        kt = tl.load(k_ptr + kv + offs_n[None, :] * HEAD_DIM + offs_d[:, None],
                     mask=offs_n[None, :] < s, other=0.0)
        x = tl.dot(q, kt) * qk_scale  # the group's scores, float32
        x = tl.where(offs_n[None, :] < s, x, float("-inf"))  # a zero key would score 0
        m_new = tl.maximum(m_i, tl.max(x, axis=1))
        alpha = tl.exp2(m_i - m_new)  # the old terms, rescaled to the new max
        p = tl.exp2(x - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv + offs_n[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=offs_n[:, None] < s, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])  # p rounded for the tensor cores
        m_i = m_new
    # The split's partials, float32: a head's splits are consecutive rows.
    rows = heads * splits + split
    tl.store(part_o_ptr + rows[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=in_group[:, None])
    tl.store(part_m_ptr + rows, m_i, mask=in_group)
    tl.store(part_l_ptr + rows, l_i, mask=in_group)
    ### END SOLUTION


@triton.jit
def flash_decode_combine_kernel(
    part_o_ptr,  # [b, hq, splits, d] float32, from flash_decode_kernel
    part_m_ptr,  # [b, hq, splits] float32
    part_l_ptr,  # [b, hq, splits] float32
    o_ptr,  # o: [b, hq, d] bfloat16, written
    splits,  # partials per query head
    HEAD_DIM: tl.constexpr,  # d
    BLOCK_S: tl.constexpr,  # splits, rounded up to a power of two
):
    ### BEGIN SOLUTION
    head = tl.program_id(axis=0)  # one query head of one sequence: a row of o's [b hq, d]
    offs_s = tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, HEAD_DIM)
    rows = head * splits + offs_s
    mask = offs_s < splits
    m_t = tl.load(part_m_ptr + rows, mask=mask, other=float("-inf"))
    l_t = tl.load(part_l_ptr + rows, mask=mask, other=0.0)
    acc_t = tl.load(part_o_ptr + rows[:, None] * HEAD_DIM + offs_d[None, :], mask=mask[:, None],
                    other=0.0)
    m = tl.max(m_t, axis=0)  # the common max: every split's terms rescaled to it
    w = tl.exp2(m_t - m)  # at most 1; 0 on the rows past splits
    o = tl.sum(w[:, None] * acc_t, axis=0) / tl.sum(w * l_t, axis=0)
    tl.store(o_ptr + head * HEAD_DIM + offs_d, o.to(o_ptr.dtype.element_ty))
    ### END SOLUTION


def flash_decode_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor) -> None:
    """o[i, h] = softmax(q[i, h] @ k[i, h // group]^T / sqrt(d)) @ v[i, h // group]: the keys
    split across programs, then the splits' partials combined."""
    ### BEGIN SOLUTION
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (b, hkv, s, d) and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert hq % hkv == 0, f"{hq} query heads on {hkv} KV heads: groups must be whole"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert d in (64, 128), f"head dim {d}: this kernel takes 64 or 128"
    group = hq // hkv
    BLOCK_N = 64
    # About 2 programs per SM over the batch; no more splits than tiles, at most 64 (the
    # combine holds a head's splits in one block). Without a GPU: planned as for 4 SMs.
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 4
    splits = min(triton.cdiv(2 * sms, b * hkv), triton.cdiv(s, BLOCK_N), 64)
    keys_per_split = triton.cdiv(triton.cdiv(s, splits), BLOCK_N) * BLOCK_N  # whole tiles
    splits = triton.cdiv(s, keys_per_split)  # none left empty
    # Every element of the partials is written by flash_decode_kernel: no need to zero them.
    part_o = torch.empty((b, hq, splits, d), dtype=torch.float32, device=q.device)
    part_m = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    part_l = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    flash_decode_kernel[(splits, hkv, b)](
        q, k, v, part_o, part_m, part_l, s, keys_per_split, 1.4426950408889634 / math.sqrt(d),
        GROUP=group, BLOCK_G=max(16, triton.next_power_of_2(group)), HEAD_DIM=d,
        BLOCK_N=BLOCK_N, num_warps=4, num_stages=3)
    flash_decode_combine_kernel[(b * hq,)](part_o, part_m, part_l, o, splits, HEAD_DIM=d,
                                           BLOCK_S=triton.next_power_of_2(splits), num_warps=4)
    ### END SOLUTION


# %% [markdown]
# ### CUDA C: the group as one 16-row operand, a K/V pipeline per warp, the tensor cores
#
# One block of 8 warps (256 threads) per `(split, KV head, sequence)`: `blockIdx.x`, `.y`,
# `.z`, grid `(splits, hkv, b)`; it handles the `G` query heads of its KV head together.
# Exercise 1's CUDA kernel (`ATTENTION_CU`) turned around: there a block had 128 queries and
# the head's keys, here it has `G ≤ 8` queries and one split's keys, each read once.
#
# **Why the tensor cores, when decode is memory-bound.** Memory-bound says that reading `k` and
# `v` sets the floor, not that a kernel reaches it: everything else it issues per key must
# keep pace with the read. On the CUDA cores a key costs `G` dot products of `d`, every element
# of its `k` and `v` rows converted from bfloat16 to float first, the scores summed across
# lanes by shuffles, and `G` multiply-adds of `d` for `p · v`. A design that reads a key per
# group of `d / 8` lanes that way issues about 119 warp instructions per key at `d = 128`,
# `G = 4` (its loop's SASS, nvcc 13, sm_90): the instructions, not the memory, bound it. On
# the tensor cores, `q · kᵀ` and `p · v` for 16 keys are 32 `HMMA` instructions of a warp, 2 a
# key for all `G` heads at once, and the loop issues about 19 instructions a key (a tile
# without masked keys, `p` in registers). On an H100 (2026-12-06), at the perf shapes (32 query
# heads on 8 KV heads, `d = 128`; `b = 1`, `s = 32768` / `b = 8`, `s = 8192` / `b = 8`,
# `s = 32768`), the reference of this design read 2363 / 2544 / 2865 GB/s, and that CUDA-cores
# design ran 0.80x / 0.69x / 0.57x of it.
#
# **The group, padded to 16 rows.** A WMMA operand has 16 rows, a group 1 to 8 query heads.
# Rows `0 … G - 1` of a 16 × `d` shared tile `qs` are the group's heads, rows `G … 15` zeros
# (cp.async's zero fill, as for exercise 1's rows past `s`), loaded once into `d / 16`
# `matrix_a` fragments. The padding costs tensor-core work only, which is free here, as in the
# Triton kernel: rows `G … 15` score 0 against every key, run their softmax on those zeros and
# are never written.
#
# **A pipeline per warp.** The split's keys are tiles of `BN = 16`; warp `w` takes tiles `w`,
# `w + 8`, `w + 16`, … of them, and streams them through `STAGES = 2` K and V tiles **of its
# own** in shared memory, copied by its own lanes with cp.async one tile ahead. No warp reads
# another's tiles, so `__pipeline_wait_prior` and `__syncwarp()` order them: no
# `__syncthreads()` in the loop, and no warp waits for the slowest one. In flight: a tile of K
# and V per warp, 8 KiB at `d = 128`, 64 KiB a block.
#
# **Per tile**, in the warp's accumulator fragments, with exercise 1's tools:
#
# - **The scores** `c`, 16 rows × 16 keys, `q · kᵀ` as in exercise 1, unscaled.
# - **Keys past the split's end.** `keys_per_split` is a multiple of 64, so only the last
#   split's last tile can run past `stop = min(start + keys_per_split, s)`, where `s` is not a
#   multiple of 16. Its rows from `stop` on are the copies' zeros and score 0: unmasked, each
#   adds `exp2(0 - m)` to `l`. Once a split, so through the exchange tile rather than
#   exercise 1's per-element mask: the fragments stored, `-inf` written at the columns from
#   `stop` on, loaded back.
# - **The row statistics through the exchange tile**, exercise 1's exchange without its map:
#   each element's max over the tile's fragments (`pmax`, an accumulator fragment) goes to the
#   warp's exchange tile by `store_matrix_sync`, which puts every element at its row and column
#   whatever the map is. Lanes `2r`, `2r + 1` read row `r`'s 16 maxima, 8 each, combine them
#   with `__shfl_xor_sync(0xffffffff, x, 1)`, take the new running max and `alpha`, and write
#   `alpha` across columns 0–15 of row `r` and the max across columns 16–31. Loaded back as two
#   accumulator fragments (`load_matrix_sync`, the same map as every accumulator), each
#   element holds its row's `alpha` and max.
# - **`l` per element and the rescaled accumulator**, as in exercise 1; `p = exp2(x · scale -
#   max)`, the scale applied here (the max of the scaled scores is the scaled max).
# - **`p` into `p · v`** straight from the score fragments where a `matrix_a` fragment holds
#   the same elements (exercise 1's check, `direct`: true for bfloat16 on an H100 and on the
#   CPU backend), else through the exchange tile and a probability tile; `p · v` into the
#   16 × `d` accumulators.
#
# **Merging the warps, exactly.** After the loop each warp holds a partial over its own tiles:
# its accumulators and, per row, its `m` and `l`. They are merged as the combine merges splits:
# each warp's row sums (`l` per element through the exchange tile, lanes `2r`, `2r + 1` a row)
# and maxima go to a per-warp array `st`, its accumulators (16 × (`d` + 4) floats) to its own
# stage tiles, free now; `__syncthreads()`; then the block's threads take the `G · d` outputs,
# each the max `m` of the warps' maxima, the weights `exp2(m_w - m)`, and the weighted sums of
# `l` and of the accumulators: the split's partials. A warp that had no tile (a split of fewer
# than 8 tiles) leaves `m = -inf`, weight 0.
#
# **K and V tiles swizzled, not padded.** Exercise 1 pads each row of a shared tile by 16 bytes, so
# that the 8 rows a fragment load reads at once fall in different banks. Here that costs memory
# traffic: a cp.async copy of a 128-byte line of the cache into a padded row lands across two
# 128-byte lines of shared memory, and the L2 takes the line in pieces. On an H100 (2026-12-07,
# Nsight Compute, the split pass at `b = 1`) the hidden reference with padded rows made 3.6 M L2
# read requests for the 134 MB of the cache and read a third of its sectors twice, as this design
# with padded rows did; the same reference with the tiles below made 1.6 M, as many as the Triton
# kernel. So a K or V tile is `BN × d` elements without padding, its 16-byte chunks swizzled: chunk
# `c` of row `r` sits at chunk `c ^ (r % 8)` (`swizzled<D>(r, c)`, the element's offset). A copied
# 128-byte line stays one line of shared memory, and the 8 rows of a fragment load (16 bytes each)
# still fall in 8 different groups of 4 banks. `load_shared` takes one pointer and a row stride and
# cannot follow the swizzle; the cell gives `load_b`, which loads a `matrix_b` fragment of a
# swizzled tile with `ldmatrix` (an address from every lane), after `learn_b` has checked, once a
# warp, that the fragment's element map is `ldmatrix`'s (it is on the course GPUs; on another the
# kernel stops rather than load wrong elements; on the CPU backend `load_b` loads element by
# element). `q` and `p` keep their padded rows (`q` is copied once; `p` never leaves the SM).
#
# **Shared memory**, dynamic (`extern __shared__ __align__(128) unsigned char smem[];`),
# `WARPS = 8`, `BN = 16`, `STAGES = 2`:
#
# | tile | shape | element | bytes at `d = 64` / `128` |
# |---|---|---|---|
# | `qs` (the group's queries, rows `G` to 15 zeros) | 16 × (`d` + 8) | bfloat16 | 2304 / 4352 |
# | `kv[warp][stage][k or v]` (each warp's K and V tiles, swizzled; its accumulators after the loop) | 16 × `d` each, 4 per warp | bfloat16 | 65536 / 131072 |
# | `ss[warp]` (the exchange tile) | 16 × (32 + 4) | float | 18432 |
# | `ps[warp]` (probabilities, where `p` cannot stay in registers) | 16 × (16 + 8) | bfloat16 | 6144 |
# | `st[warp]` (its rows' sums and maxima, after the loop) | 2 × 16 | float | 1024 |
#
# 93440 bytes at `d = 64`, 161024 (157.25 KiB) at `d = 128`: past 48 KiB, which
# SourceModule's launch opts in to. The exchange tile is 32 columns wide although a tile has
# 16 keys: `alpha` and the max side by side.
#
# **The launch plan** differs from the Triton launcher's: at `d = 128` an SM holds one block
# (157.25 KiB of shared memory), so `splits` aims at **one block per SM** over the batch,
# rounded down, `max(1, sms // (b · hkv))`: a last wave of a few blocks would take a whole
# wave's time. Then `min(…, cdiv(s, 64), 32)`,
# `keys_per_split = cdiv(cdiv(s, splits), 64) · 64` and `splits = cdiv(s, keys_per_split)`.
# On an H100 (132 SMs), at the perf shapes (`hkv = 8`): 16 splits at `b = 1` (2048 keys each
# at `s = 32768`), 2 at `b = 8`, 128 blocks either way. Without a GPU, plan as for 16 SMs, so
# that the check's shapes are split.
#
# **The combine kernel** is the Triton one's arithmetic: one block of `d` threads per query
# head; thread `c` reads every split's `m` (the same few floats in every thread: the cache
# serves them), then the weights and its column of every `acc_t`, and writes `o[head][c]`
# rounded once with `__float2bfloat16_rn`.
#
# Given in the cell: the includes, `load_shared` (as in `ATTENTION_CU`), `from_float` and
# `to_float` for bfloat16, `WARPS`, `BN`, `STAGES`, `PAD_T`, `PAD_F`, the swizzle's
# `swizzled<D>(r, c)`, `learn_b<Layout, TRANS>(at, scratch, ld)` and
# `load_b<D, TRANS>(f, tile, row0, col0, at)`, and the kernels:
# `template <int D, int G> flash_decode_split(...)`, instantiated in eight kernels,
# `flash_decode_kernel_d64_g1` to `flash_decode_kernel_d128_g8`, and the combine's signature.
#
# <details><summary>Hint 1 — the copies</summary>
#
# `issue_piece<D>(at, head, row0, stop, p)`: one 16-byte piece of exercise 1's `issue_rows`,
# row `p / (D / 8)`, columns `8 (p % (D / 8))`, zero-filled from row `stop` on, copied to
# `at(r, c)`, a lambda that gives the place of row `r`, column `c` in the tile:
# `[qs](int r, int c) { return &qs[r][c]; }` for `q`'s padded tile,
# `[tile_k](int r, int c) { return tile_k + swizzled<D>(r, c); }` for a swizzled one. `q`:
# pieces `threadIdx.x, threadIdx.x + THREADS, …` below `16 · D / 8` of
# `q + (long long)kv_head * G * D` with `stop = G` (rows `G` to 15 zeros), then
# `__pipeline_commit()`. `issue_tile<D>(tile_k, tile_v, k_head, v_head, n0, stop, tile)`, a
# warp's copies of keys `n0 … n0 + 15` (`tile_k`, `tile_v`: `bf16 *`, a stage's tiles): in a
# whole tile (`n0 + BN <= stop`) lane `lane` copies columns `c = 8 (lane % (D / 8))` of rows
# `r = lane / (D / 8) + i · ROWS`, `ROWS = 32 / (D / 8)`, of K and of V, from fixed offsets of
# two addresses (the loop unrolled) to `swizzled<D>(r, c)`; a tile that passes `stop`, piece
# by piece with `issue_piece`. Then `__pipeline_commit()` **always**, also where the warp has
# no such tile (`tile` false, an empty group): every lane counts the same groups. A copy to
# the unswizzled place `r · D + c` makes `load_b` read other elements than the ones it wants:
# 997 of 1024 elements differ on the check's first shape.
# </details>
#
# <details><summary>Hint 2 — a warp's tiles and its pipeline</summary>
#
# `kv_head = blockIdx.z * gridDim.y + blockIdx.y`; `start = blockIdx.x * keys_per_split`, `stop =
# min(start + keys_per_split, s)`, `tiles = cdiv(stop - start, BN)`; the warp's `mine = warp < tiles
# ? (tiles - 1 - warp) / WARPS + 1 : 0`, its tile `j` at `n0 = start + (warp + j · WARPS) · BN`.
# Before the loop: `q`'s copies; the warp's first `STAGES - 1` tiles (`tile = j < mine`); `direct`
# (Hint 4); the maps of the K and V loads, `int at_k[8], at_v[8]`, `learn_b<wmma::col_major,
# false>(at_k, scratch, 16)` and `learn_b<wmma::row_major, true>(at_v, scratch, 16)`, `scratch` the
# warp's exchange tile as `bf16 *`; `__pipeline_wait_prior(STAGES - 1)` (`q`'s group, the oldest)
# and `__syncthreads()` (`q`'s pieces came from every thread); the `q` fragments. Per tile `j`: tile
# `j + STAGES - 1` into the stage tile `j - 1` used; `__pipeline_wait_prior(STAGES - 1)`,
# `__syncwarp()` (the wait covers this lane's copies, the `__syncwarp` the warp's); tile `j` is in
# stage `j % STAGES`; at the end of the iteration `__syncwarp()`: the stage and the exchange tile
# are read before they are written again. After the loop `__pipeline_wait_prior(0)`.
# </details>
#
# <details><summary>Hint 3 — scores, the mask, the row max</summary>
#
# `c[jn]` filled with 0, then per 16 of `d` `i`: a `col_major` `matrix_b` fragment `kf`,
# `load_b<D, false>(kf, ks, 16 jn, 16 i, at_k)` (rows `16 jn …` of the swizzled K tile `ks`,
# columns `16 i …`), `mma_sync(c[jn], qf[i], kf, c[jn])`. If
# `n0 + BN > stop`: `store_matrix_sync` to `&ss[warp][0][16 jn]` (`ldm` 36), `__syncwarp()`,
# `ss[warp][i / BN][i % BN] = -INFINITY` where `n0 + i % BN >= stop` (`i = lane, lane + 32, …`
# below `16 · BN`), `__syncwarp()`, `load_matrix_sync` back, `__syncwarp()`; without it,
# elements differ only where `s` is not a multiple of 16. Then `pmax.x[e]`, the max of
# `c[jn].x[e]` over `jn`, stored at `&ss[warp][0][0]`; `__syncwarp()`; lanes `r = lane / 2`,
# `half = lane % 2`: two `float4` at `&ss[warp][r][8 half]`, their max, the neighbour's by the
# shuffle; `m_new = fmaxf(m, tile_max * scale_log2)` (finite: a tile's first key is below
# `stop`), `alpha = exp2f(m - m_new)` (0 at the first tile, `m = -INFINITY`); `alpha` into the
# same two `float4`, `m_new` into the two 16 columns further on; `__syncwarp()`;
# `load_matrix_sync` of `alpha` from `&ss[warp][0][0]` and of the max from `&ss[warp][0][16]`.
# Exercise 1's shuffles (its CUDA "On the course GPUs, shuffles") buy nothing here: the split
# pass waits on memory, not on instructions (on an H100, 2026-12-07, the reference with them
# ran 2231 / 2660 / 2802 GB/s at the perf shapes, without 2348 / 2607 / 2792). `exp2_approx`
# (exercise 1's) for `alpha` and `p` costs nothing to keep.
# </details>
#
# <details><summary>Hint 4 — p, and p · v</summary>
#
# `direct` once, before the loop (`p_stays_in_registers`): exercise 1's CUDA Hint 3 (learning
# the maps) on the warp's exchange tile (`ldm` 36) and probability tile (`ldm` 24); only
# whether the number tile loaded as an accumulator and as a `matrix_a` fragment agree element
# for element matters here (the exchange needs no map). Per tile: `l[e] *= alpha.x[e]`,
# `acc[i].x[e] *= alpha.x[e]`; `p = exp2f(fmaf(c[jn].x[e], scale_log2, -m_row.x[e]))`,
# `l[e] += p`, `c[jn].x[e] = p`; then `pf[jn].x[e] = from_float(c[jn].x[e])` if `direct`, else
# `store_matrix_sync` to `ss`, the lanes round each element into `ps`, `load_shared` (with
# `__syncwarp()` before each step). Then per 16 of `d` `i` and 16 keys `jn`: a `row_major`
# `matrix_b` fragment `vf`, `load_b<D, true>(vf, vs, 16 jn, 16 i, at_v)`,
# `mma_sync(acc[i], pf[jn], vf, acc[i])`.
# </details>
#
# <details><summary>Hint 5 — merging the warps</summary>
#
# An accumulator fragment `sums` with `sums.x[e] = l[e]`, stored at `&ss[warp][0][0]`;
# `__syncwarp()`; lanes `2r`, `2r + 1` add row `r`'s 16 values and each other's; lane `2r`
# writes `st[warp][0][r]` (the sum) and `st[warp][1][r]` (`m`). The accumulators:
# `store_matrix_sync` of `acc[i]` at `&os[0][16 i]`, `ldm d + 4`, where
# `os = reinterpret_cast<float(*)[D + 4]>(&kv[warp][0][0][0])` (8448 bytes at `d = 128`,
# of the warp's 16384). `__syncthreads()` ("depends on thread order": this barrier missing).
# Then `for (int i = threadIdx.x; i < G * D; i += THREADS)`: `g = i / D`, `col = i % D`, the
# max of `st[w][1][g]` over the warps, weights `exp2f(st[w][1][g] - mx)`, `sum_l` and
# `sum_o` (of `os` of warp `w`, `[g][col]`). Row `(long long)(kv_head * G + g) * gridDim.x +
# blockIdx.x` of the partials: `part_o[row * D + col]`, and `part_m[row]`, `part_l[row]` where
# `col == 0`. Elements differ on the check's shapes longer than 16 keys if the warps' sums are
# added without their weights.
# </details>
#
# <details><summary>Hint 6 — the combine and the launcher</summary>
#
# `flash_decode_combine_kernel(part_o, part_m, part_l, o, splits)`: `head = blockIdx.x`,
# `c = threadIdx.x`, `d = blockDim.x`; a first loop for the max, a second for
# `w = exp2f(part_m[first + t] - m)`, `sum_l += w * part_l[...]`,
# `sum_o += w * part_o[(first + t) * d + c]`. The launcher plans the splits as above, allocates
# the partials, picks `flash_decode_kernel_d{d}_g{group}`, and launches it with
# `block=(32 * FD_WARPS, 1, 1)`, `grid=(splits, hkv, b)`, `shared=` the table's bytes; then
# the combine with `block=(d, 1, 1)`, `grid=(b * hq, 1, 1)`; tensors as
# `np.uintp(t.data_ptr())`, `s` and `keys_per_split` as `np.int32`, the scale
# `np.float32(log2(e) / sqrt(d))`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "flash_decode_cu", "locked": false, "schema_version": 3, "solution": true}
FLASH_DECODE_CU = r"""
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;
using bf16 = __nv_bfloat16;

// load_shared(f, p, ldm): load_matrix_sync of an operand fragment in shared memory, as in
// ATTENTION_CU (one ldmatrix for a bfloat16 fragment on the GPU, where load_matrix_sync gives
// four 4-byte generic loads; load_matrix_sync itself on the CPU backend).
template <class Fragment, typename T>
__device__ __forceinline__ void load_shared(Fragment &f, const T *p, unsigned ldm)
{
    wmma::load_matrix_sync(f, p, ldm);
}
#if defined(__CUDA_ARCH__)
#define LOAD_SHARED_BF16(USE, LAYOUT, OP, ROW_COL)                                                \
    __device__ __forceinline__ void load_shared(                                                  \
        wmma::fragment<wmma::USE, 16, 16, 16, __nv_bfloat16, wmma::LAYOUT> &f,                    \
        const __nv_bfloat16 *p, unsigned ldm)                                                     \
    {                                                                                             \
        unsigned *r = reinterpret_cast<unsigned *>(&f); /* the fragment's 4 registers */          \
        const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));                   \
        asm volatile("wmma.load." OP ".sync.aligned." ROW_COL ".m16n16k16.shared.bf16 "           \
                     "{%0, %1, %2, %3}, [%4], %5;"                                                \
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])                             \
                     : "r"(at), "r"(ldm));                                                        \
    }
LOAD_SHARED_BF16(matrix_a, row_major, "a", "row")  // q, p
LOAD_SHARED_BF16(matrix_b, col_major, "b", "col")  // k^T
LOAD_SHARED_BF16(matrix_b, row_major, "b", "row")  // v
#undef LOAD_SHARED_BF16
#endif

#define WARPS 8              // warps per split-pass block, each with its own K/V pipeline
#define THREADS (WARPS * 32)
#define BN 16                // keys per K/V tile
#define STAGES 2             // K/V tiles per warp in shared memory: STAGES - 1 in flight
#define PAD_T 8              // bfloat16s (16 bytes) added to each row of a shared q or p tile
#define PAD_F 4              // floats (16 bytes) added to each row of a shared float tile

// float -> bfloat16, rounded to nearest even, and back.
__device__ __forceinline__ bf16 from_float(float x) { return __float2bfloat16_rn(x); }
__device__ __forceinline__ float to_float(bf16 x) { return __bfloat162float(x); }

// A K or V tile: BN rows of D elements, unpadded, its 16-byte chunks swizzled: chunk c of row r
// sits at chunk c ^ (r % 8) of the row. The offset of element (r, c):
template <int D>
__device__ __forceinline__ int swizzled(int r, int c)
{
    return r * D + ((c / 8) ^ (r % 8)) * 8 + c % 8;
}

// The matrix_b fragments of a swizzled tile. load_shared takes one pointer and a row stride, so
// it cannot follow the swizzle; ldmatrix takes an address from every lane, a row of 8 elements
// each: rows l % 8 of four 8 x 8 matrices, one a register. learn_b, once a warp before the
// loop: loads a 16 x 16 tile of element numbers (scratch, ld elements a row; free again after)
// as a Layout fragment, checks on the GPU that the fragment holds ldmatrix's matrices (lane
// 4 g + t: row g, columns 2t, 2t + 1 of its matrix; TRANS, V's row_major: rows 2t, 2t + 1,
// column g), else stops the kernel (__trap) rather than load wrong elements, and leaves in
// at[0], at[1] the row and column of the tile this lane's address points to. On an H100 and an
// H200 (nvcc 13) the maps are ldmatrix's. The CPU backend runs no PTX: there at[e] = 16 row +
// column of element e, and load_b loads each element from its swizzled place.
template <class Layout, bool TRANS>
__device__ __forceinline__ void learn_b(int (&at)[8], bf16 *scratch, unsigned ld)
{
    wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, Layout> f;
    static_assert(decltype(f)::num_elements == 8, "8 elements a lane");
    const int lane = threadIdx.x % 32;
    for (int i = lane; i < 16 * 16; i += 32) scratch[i / 16 * ld + i % 16] = from_float(i);
    __syncwarp();
    load_shared(f, scratch, ld);
    __syncwarp();
#pragma unroll
    for (int e = 0; e < 8; ++e) at[e] = (int)to_float(f.x[e]);
#if defined(__CUDA_ARCH__)
    const int g = lane / 4, t = lane % 4;
    bool ok = true;
    int corner = 0;  // element (0, 0) of matrix lane / 8: the corner of this lane's rows
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        const int first = __shfl_sync(0xffffffffu, at[e - e % 2], 0);  // (0, 0) of matrix e / 2
        const int r = TRANS ? 2 * t + e % 2 : g, c = TRANS ? g : 2 * t + e % 2;
        ok = ok && at[e] == first + 16 * r + c && first / 16 % 8 == 0 && first % 8 == 0;
        if (lane / 8 == e / 2) corner = first;
    }
    if (!__all_sync(0xffffffffu, ok)) __trap();
    at[0] = corner / 16 + lane % 8;
    at[1] = corner % 16;
#endif
}

// The matrix_b fragment of rows row0 .. row0 + 15, columns col0 .. col0 + 15 (multiples of 16)
// of a swizzled tile, by learn_b's at: one ldmatrix on the GPU (.trans for TRANS), element by
// element on the CPU backend.
template <int D, bool TRANS, class Layout>
__device__ __forceinline__ void load_b(wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, Layout> &f,
                                       const bf16 *tile, int row0, int col0, const int (&at)[8])
{
#if defined(__CUDA_ARCH__)
    const unsigned a = static_cast<unsigned>(
        __cvta_generic_to_shared(tile + swizzled<D>(row0 + at[0], col0 + at[1])));
    unsigned *x = reinterpret_cast<unsigned *>(&f);  // the fragment's 4 registers
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(a));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(a));
#else
#pragma unroll
    for (int e = 0; e < 8; ++e) f.x[e] = tile[swizzled<D>(row0 + at[e] / 16, col0 + at[e] % 16)];
#endif
}

/// BEGIN SOLUTION
// Piece p (16 bytes, 8 elements) of rows row0 .. of a head (stop x D) by cp.async into a tile,
// at(r, c) the place of row r, column c there: row p / (D / 8), columns 8 (p % (D / 8)) on; a
// row at or past stop is a copy of 0 bytes that fills 16 with zeros (its source is never read).
template <int D, class At>
__device__ __forceinline__ void issue_piece(At at, const bf16 *__restrict__ head, int row0,
                                            int stop, int p)
{
    const int r = p / (D / 8), c = p % (D / 8) * 8;
    const bool inside = row0 + r < stop;
    __pipeline_memcpy_async(at(r, c), inside ? head + (long long)(row0 + r) * D + c : head, 16,
                            inside ? 0 : 16);
}

// This warp's copies of keys n0 .. n0 + BN - 1 of a KV head (k_head, v_head: its first row)
// into one stage's K and V tiles (swizzled), zeros from stop on; one commit group, empty where
// the warp has no such tile (tile false), so that every lane counts the groups alike. A lane
// copies the same 16 bytes of every (32 / (D / 8))-th row: in a whole tile, fixed offsets from
// two addresses; in the split's last tile, which may pass stop, piece by piece.
template <int D>
__device__ __forceinline__ void issue_tile(bf16 *tile_k, bf16 *tile_v,
                                           const bf16 *__restrict__ k_head,
                                           const bf16 *__restrict__ v_head, int n0, int stop,
                                           bool tile)
{
    constexpr int ROWS = 32 / (D / 8);  // rows per pass of the warp: 2 at D = 128, 4 at 64
    const int lane = threadIdx.x % 32, r = lane / (D / 8), c = lane % (D / 8) * 8;
    if (tile && n0 + BN <= stop) {
        const long long from = (long long)(n0 + r) * D + c;
#pragma unroll
        for (int i = 0; i < BN / ROWS; ++i) {
            const int to = swizzled<D>(r + i * ROWS, c);
            __pipeline_memcpy_async(tile_k + to, k_head + from + i * ROWS * D, 16);
            __pipeline_memcpy_async(tile_v + to, v_head + from + i * ROWS * D, 16);
        }
    } else if (tile) {
        for (int p = lane; p < BN * D / 8; p += 32) {
            issue_piece<D>([tile_k](int r, int c) { return tile_k + swizzled<D>(r, c); },
                           k_head, n0, stop, p);
            issue_piece<D>([tile_v](int r, int c) { return tile_v + swizzled<D>(r, c); },
                           v_head, n0, stop, p);
        }
    }
    __pipeline_commit();
}

// Whether p can pass from the score fragments to p . v's matrix_a fragments in registers
// (exercise 1's check, by the whole warp): a 16 x 16 tile of element numbers 16 row + column,
// loaded as an accumulator (f_tile, ldf floats a row) and as a matrix_a fragment (t_tile, ldt
// elements a row, exact in bfloat16 up to 256), the same number in every element of every lane.
// Both tiles are free again when it returns.
__device__ __forceinline__ bool p_stays_in_registers(float *f_tile, unsigned ldf, bf16 *t_tile,
                                                     unsigned ldt)
{
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
    const int lane = threadIdx.x % 32;
    for (int i = lane; i < 16 * 16; i += 32) {
        f_tile[i / 16 * ldf + i % 16] = (float)i;
        t_tile[i / 16 * ldt + i % 16] = from_float((float)i);
    }
    __syncwarp();
    bool same = false;
    if constexpr (FragA::num_elements == Acc::num_elements) {
        Acc map;
        wmma::load_matrix_sync(map, f_tile, ldf, wmma::mem_row_major);
        FragA a;
        load_shared(a, t_tile, ldt);
        same = true;
#pragma unroll
        for (int e = 0; e < Acc::num_elements; ++e)
            same = same && to_float(a.x[e]) == map.x[e];
    }
    const bool direct = __all_sync(0xffffffffu, same);
    __syncwarp();
    return direct;
}

// 2^x in one instruction on the GPU (MUFU.EX2; exp2f adds a test and two multiplies for results
// below 2^-126, which p rounded to 16 bits does not need); exp2f on the CPU backend (no PTX).
__device__ __forceinline__ float exp2_approx(float x)
{
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}
/// END SOLUTION

// One block: the G query heads of KV head blockIdx.y of sequence blockIdx.z, against keys
// blockIdx.x * keys_per_split onward (below s); writes each head's partial for this split.
template <int D, int G>
__device__ __forceinline__ void flash_decode_split(
    const bf16 *__restrict__ q,  // [b, hq, D]
    const bf16 *__restrict__ k,  // [b, hkv, s, D]
    const bf16 *__restrict__ v,  // [b, hkv, s, D]
    float *__restrict__ part_o,  // [b, hq, splits, D]
    float *__restrict__ part_m,  // [b, hq, splits]
    float *__restrict__ part_l,  // [b, hq, splits]
    int s,                       // keys per KV head
    int keys_per_split,          // keys per block: a multiple of 64
    float scale_log2)            // log2(e) / sqrt(D)
{
    /// BEGIN SOLUTION
    constexpr int LDQ = D + PAD_T;  // elements between rows of q's tile
    constexpr int LDS = (BN > 32 ? BN : 32) + PAD_F;  // floats a row of the exchange tile
    constexpr int LDP = BN + PAD_T;  // elements a row of the probability tile
    constexpr int LDO = D + PAD_F;   // floats a row of a warp's accumulators, after the loop
    static_assert(BN % 16 == 0 && 64 % BN == 0, "whole fragments; no tile across two splits");
    static_assert(16 * LDO * 4 <= STAGES * 2 * BN * D * 2,
                  "a warp's accumulators leave through its own stage tiles");
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
    constexpr int E = Acc::num_elements;  // a lane's elements of an accumulator fragment
    // Shared memory: q's 16-row tile, then per warp its STAGES K and V tiles, its exchange tile,
    // its probability tile and its rows' sums and maxima (after the loop). Every tile starts a
    // multiple of 32 bytes in, the K and V tiles a multiple of 128 (q's tile is 16 x 2 LDQ
    // bytes): each 8 chunks of a swizzled row share one 128-byte line of banks.
    extern __shared__ __align__(128) unsigned char smem[];
    bf16(*qs)[LDQ] = reinterpret_cast<bf16(*)[LDQ]>(smem);
    bf16(*kv)[STAGES][2][BN * D] = reinterpret_cast<bf16(*)[STAGES][2][BN * D]>(qs + 16);
    float(*ss)[16][LDS] = reinterpret_cast<float(*)[16][LDS]>(kv + WARPS);  // [warp][row][:]
    bf16(*ps)[16][LDP] = reinterpret_cast<bf16(*)[16][LDP]>(ss + WARPS);
    float(*st)[2][16] = reinterpret_cast<float(*)[2][16]>(ps + WARPS);  // [warp][sum, max][row]

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int kv_head = blockIdx.z * gridDim.y + blockIdx.y;  // a matrix of k's [b hkv]
    const bf16 *k_head = k + (long long)kv_head * s * D, *v_head = v + (long long)kv_head * s * D;
    const int start = blockIdx.x * keys_per_split;
    const int stop = min(start + keys_per_split, s);
    const int tiles = (stop - start + BN - 1) / BN;  // the split's; tile i at start + i BN
    const int mine = warp < tiles ? (tiles - 1 - warp) / WARPS + 1 : 0;  // i = warp + j WARPS

    // The group's G query heads, rows 0 .. G - 1 of q's tile (rows G .. 15 zeros), then this
    // warp's first STAGES - 1 tiles.
    for (int p = threadIdx.x; p < 16 * D / 8; p += THREADS)
        issue_piece<D>([qs](int r, int c) { return &qs[r][c]; }, q + (long long)kv_head * G * D,
                       0, G, p);
    __pipeline_commit();
#pragma unroll
    for (int j = 0; j < STAGES - 1; ++j)
        issue_tile<D>(kv[warp][j][0], kv[warp][j][1], k_head, v_head,
                      start + (warp + j * WARPS) * BN, stop, j < mine);

    const bool direct = p_stays_in_registers(&ss[warp][0][0], LDS, &ps[warp][0][0], LDP);
    int at_k[8], at_v[8];  // the fragment loads' maps: K's (k^T, col_major) and V's (row_major)
    learn_b<wmma::col_major, false>(at_k, reinterpret_cast<bf16 *>(&ss[warp][0][0]), 16);
    learn_b<wmma::row_major, true>(at_v, reinterpret_cast<bf16 *>(&ss[warp][0][0]), 16);
    __pipeline_wait_prior(STAGES - 1);  // q's pieces (the oldest group) have landed...
    __syncthreads();                    // ... every thread's
    FragA qf[D / 16];
#pragma unroll
    for (int i = 0; i < D / 16; ++i) load_shared(qf[i], &qs[0][16 * i], LDQ);

    Acc acc[D / 16];  // the 16 x D sum of p . v, float32
#pragma unroll
    for (int i = 0; i < D / 16; ++i) wmma::fill_fragment(acc[i], 0.0f);
    float l[E];  // per element: its row's sum of p over the element's columns
#pragma unroll
    for (int e = 0; e < E; ++e) l[e] = 0.0f;
    const int r = lane / 2, half = lane % 2;  // lanes 2r, 2r + 1 reduce row r of the exchange
    float m = -INFINITY;                       // row r's running max, base 2, scaled

    int use = 0, load = STAGES - 1;  // the stages of tile j and of tile j + STAGES - 1
    for (int j = 0; j < mine; ++j) {
        // Tile j + STAGES - 1 into the stage that tile j - 1 used (read before the __syncwarp
        // that ended the last iteration).
        issue_tile<D>(kv[warp][load][0], kv[warp][load][1], k_head, v_head,
                      start + (warp + (j + STAGES - 1) * WARPS) * BN, stop,
                      j + STAGES - 1 < mine);
        load = load + 1 == STAGES ? 0 : load + 1;
        __pipeline_wait_prior(STAGES - 1);  // tile j's pieces have landed (this lane's)...
        __syncwarp();                       // ... every lane's
        const bf16 *ks = kv[warp][use][0], *vs = kv[warp][use][1];
        use = use + 1 == STAGES ? 0 : use + 1;
        const int n0 = start + (warp + j * WARPS) * BN;

        Acc c[BN / 16];  // raw scores q . k^T, 16 keys a fragment
#pragma unroll
        for (int jn = 0; jn < BN / 16; ++jn) {
            wmma::fill_fragment(c[jn], 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;  // k^T
                load_b<D, false>(kf, ks, 16 * jn, 16 * i, at_k);
                wmma::mma_sync(c[jn], qf[i], kf, c[jn]);
            }
        }
        if (n0 + BN > stop) {  // keys from stop on (zero rows, scoring 0): -inf, through ss
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::store_matrix_sync(&ss[warp][0][16 * jn], c[jn], LDS, wmma::mem_row_major);
            __syncwarp();
            for (int i = lane; i < 16 * BN; i += 32)
                if (n0 + i % BN >= stop) ss[warp][i / BN][i % BN] = -INFINITY;
            __syncwarp();
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::load_matrix_sync(c[jn], &ss[warp][0][16 * jn], LDS, wmma::mem_row_major);
            __syncwarp();
        }
        // Each element's max over the tile's fragments, stored to the exchange tile as an
        // accumulator: at its (row, column), whatever the map. Lanes 2r, 2r + 1 take row r's
        // max (8 columns each, then each other's), its new running max and alpha = exp2(m_old -
        // m_new), and write alpha across columns 0-15 of row r (over the maxima they read) and
        // the max across 16-31; loaded back as accumulators, every element has its row's.
        {
            Acc pmax;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                pmax.x[e] = c[0].x[e];
#pragma unroll
                for (int jn = 1; jn < BN / 16; ++jn) pmax.x[e] = fmaxf(pmax.x[e], c[jn].x[e]);
            }
            wmma::store_matrix_sync(&ss[warp][0][0], pmax, LDS, wmma::mem_row_major);
        }
        __syncwarp();
        {
            float4 *x4 = reinterpret_cast<float4 *>(&ss[warp][r][8 * half]);
            const float4 a = x4[0], b = x4[1];
            float tile_max = fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)),
                                   fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
            // Finite: the tile's first key is below stop. scale_log2 > 0: the max of the scaled
            // scores is the scaled max.
            const float m_new = fmaxf(m, tile_max * scale_log2);
            const float alpha = exp2_approx(m - m_new);  // 0 at the first tile (m = -inf)
            x4[0] = x4[1] = make_float4(alpha, alpha, alpha, alpha);
            x4[4] = x4[5] = make_float4(m_new, m_new, m_new, m_new);  // columns 16 + 8 half on
            m = m_new;
        }
        __syncwarp();
        Acc alpha, m_row;
        wmma::load_matrix_sync(alpha, &ss[warp][0][0], LDS, wmma::mem_row_major);
        wmma::load_matrix_sync(m_row, &ss[warp][0][16], LDS, wmma::mem_row_major);
        // Rescale by alpha; p = exp2(x scale - max) in place (0 past stop), summed per element.
#pragma unroll
        for (int e = 0; e < E; ++e) {
            l[e] *= alpha.x[e];
#pragma unroll
            for (int i = 0; i < D / 16; ++i) acc[i].x[e] *= alpha.x[e];
        }
#pragma unroll
        for (int jn = 0; jn < BN / 16; ++jn)
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const float p = exp2_approx(fmaf(c[jn].x[e], scale_log2, -m_row.x[e]));
                l[e] += p;
                c[jn].x[e] = p;
            }
        FragA pf[BN / 16];
        if (direct) {  // p rounded to bfloat16, element for element
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
#pragma unroll
                for (int e = 0; e < E; ++e) pf[jn].x[e] = from_float(c[jn].x[e]);
        } else {  // through the exchange tile (float) and the probability tile (bfloat16)
            __syncwarp();  // every lane has loaded alpha and the max
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::store_matrix_sync(&ss[warp][0][16 * jn], c[jn], LDS, wmma::mem_row_major);
            __syncwarp();
            for (int i = lane; i < 16 * BN; i += 32)
                ps[warp][i / BN][i % BN] = from_float(ss[warp][i / BN][i % BN]);
            __syncwarp();
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn) load_shared(pf[jn], &ps[warp][0][16 * jn], LDP);
        }
        // acc += p . v
#pragma unroll
        for (int i = 0; i < D / 16; ++i)
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vf;
                load_b<D, true>(vf, vs, 16 * jn, 16 * i, at_v);
                wmma::mma_sync(acc[i], pf[jn], vf, acc[i]);
            }
        __syncwarp();  // the stage and the exchange tile are read before they are written again
    }
    __pipeline_wait_prior(0);  // (only empty groups can be left: nothing lands after this)

    // The warp's row sums through the exchange tile; row r's sum and max to st (a warp without
    // a tile leaves 0 and -inf: weight 0 below); its accumulators to its own stage tiles.
    {
        Acc sums;
#pragma unroll
        for (int e = 0; e < E; ++e) sums.x[e] = l[e];
        wmma::store_matrix_sync(&ss[warp][0][0], sums, LDS, wmma::mem_row_major);
    }
    __syncwarp();
    {
        const float4 *x4 = reinterpret_cast<const float4 *>(&ss[warp][r][8 * half]);
        const float4 a = x4[0], b = x4[1];
        float sum = (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        if (half == 0) {
            st[warp][0][r] = sum;
            st[warp][1][r] = m;
        }
    }
    float(*os)[LDO] = reinterpret_cast<float(*)[LDO]>(&kv[warp][0][0][0]);
#pragma unroll
    for (int i = 0; i < D / 16; ++i)
        wmma::store_matrix_sync(&os[0][16 * i], acc[i], LDO, wmma::mem_row_major);
    __syncthreads();  // every warp's accumulators, sums and maxima are in shared memory

    // The warps merged per (query head, column), each rescaled to the common max (finite: warp
    // 0 has the split's first tile), into the split's partials: a head's splits are
    // consecutive rows.
    for (int i = threadIdx.x; i < G * D; i += THREADS) {
        const int g = i / D, col = i % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) mx = fmaxf(mx, st[w][1][g]);
        float sum_l = 0.0f, sum_o = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const float wt = exp2f(st[w][1][g] - mx);  // 0 for a warp that had no tile
            sum_l += wt * st[w][0][g];
            sum_o += wt * reinterpret_cast<const float(*)[LDO]>(&kv[w][0][0][0])[g][col];
        }
        const long long row = (long long)(kv_head * G + g) * gridDim.x + blockIdx.x;
        part_o[row * D + col] = sum_o;
        if (col == 0) {
            part_m[row] = mx;
            part_l[row] = sum_l;
        }
    }
    /// END SOLUTION
}

// The eight kernels the launcher picks from: head dimension x group.
#define FLASH_DECODE_KERNEL(D, G)                                                             \
    extern "C" __global__ void __launch_bounds__(THREADS) flash_decode_kernel_d##D##_g##G(    \
        const bf16 *q, const bf16 *k, const bf16 *v, float *part_o, float *part_m,            \
        float *part_l, int s, int keys_per_split, float scale_log2)                           \
    {                                                                                         \
        flash_decode_split<D, G>(q, k, v, part_o, part_m, part_l, s, keys_per_split,          \
                                 scale_log2);                                                 \
    }
FLASH_DECODE_KERNEL(64, 1)
FLASH_DECODE_KERNEL(64, 2)
FLASH_DECODE_KERNEL(64, 4)
FLASH_DECODE_KERNEL(64, 8)
FLASH_DECODE_KERNEL(128, 1)
FLASH_DECODE_KERNEL(128, 2)
FLASH_DECODE_KERNEL(128, 4)
FLASH_DECODE_KERNEL(128, 8)

// One block per query head (blockIdx.x, a row of o's [b hq, d]), one thread per column of o:
// the head's splits combined, each rescaled to the common max.
extern "C" __global__ void flash_decode_combine_kernel(
    const float *__restrict__ part_o,  // [b hq, splits, d] float32, from the split pass
    const float *__restrict__ part_m,  // [b hq, splits]
    const float *__restrict__ part_l,  // [b hq, splits]
    bf16 *__restrict__ o,              // [b hq, d], written
    int splits)                        // partials per query head
{
    /// BEGIN SOLUTION
    const int d = blockDim.x, c = threadIdx.x;
    const long long first = (long long)blockIdx.x * splits;  // the head's first partial
    float m = -INFINITY;
    for (int t = 0; t < splits; ++t) m = fmaxf(m, part_m[first + t]);
    float sum_l = 0.0f, sum_o = 0.0f;
    for (int t = 0; t < splits; ++t) {
        const float w = exp2f(part_m[first + t] - m);  // at most 1
        sum_l += w * part_l[first + t];
        sum_o += w * part_o[(first + t) * d + c];
    }
    o[(long long)blockIdx.x * d + c] = __float2bfloat16_rn(sum_o / sum_l);
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "flash_decode_cuda", "locked": false, "schema_version": 3, "solution": true}
# Templates: the source says extern "C" itself (no_extern_c=True).
flash_decode_module = SourceModule(FLASH_DECODE_CU, no_extern_c=True)
flash_decode_kernels_cu = {
    (d, g): flash_decode_module.get_function(f"flash_decode_kernel_d{d}_g{g}")
    for d in (64, 128) for g in (1, 2, 4, 8)
}
flash_decode_combine_cu = flash_decode_module.get_function("flash_decode_combine_kernel")
# FLASH_DECODE_CU's WARPS, BN and STAGES: warps per split-pass block, keys per K/V tile, K/V
# tiles per warp in shared memory.
FD_WARPS, FD_BN, FD_STAGES = 8, 16, 2


def flash_decode_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor) -> None:
    """o[i, h] = softmax(q[i, h] @ k[i, h // group]^T / sqrt(d)) @ v[i, h // group]: a block of
    8 warps per (split, KV head, sequence), on the tensor cores, then a block per query head
    combining the splits.

    Pass the arguments in the kernels' order, as C types: each tensor as
    np.uintp(t.data_ptr()), ints as np.int32(...), the scale as np.float32(...); then block=
    and grid= (three numbers each), and the split pass's shared= (bytes of dynamic shared
    memory).
    """
    ### BEGIN SOLUTION
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (b, hkv, s, d) and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert hq % hkv == 0, f"{hq} query heads on {hkv} KV heads: groups must be whole"
    assert all(t.is_contiguous() and t.dtype == torch.bfloat16 for t in (q, k, v, o)), \
        "q, k, v and o: contiguous bfloat16"
    assert (d, hq // hkv) in flash_decode_kernels_cu, \
        f"head dim {d}, group {hq // hkv}: no kernel for it"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v)), "16-byte copies need aligned rows"
    assert hkv <= 65535 and b <= 65535, f"{hkv} KV heads, {b} sequences: gridDim.y, z <= 65535"
    # One block per SM over the batch at most, rounded down: an SM holds one block at d = 128
    # (165 KiB of shared memory), and a last wave of a few blocks would take a whole wave's
    # time. No more splits than 64-key tiles, at most 32; keys_per_split a multiple of 64, so
    # that no K/V tile crosses into the next split. Without a GPU: as for 16 SMs, so that the
    # check's shapes are split.
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 16
    splits = min(max(1, sms // (b * hkv)), triton.cdiv(s, 64), 32)
    keys_per_split = triton.cdiv(triton.cdiv(s, splits), 64) * 64
    splits = triton.cdiv(s, keys_per_split)  # none left empty
    part_o = torch.empty((b, hq, splits, d), dtype=torch.float32, device=q.device)
    part_m = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    part_l = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    # q's 16 x (d + 8) tile; per warp: its stages of K and V tiles, BN x d bfloat16 each
    # (swizzled), the exchange tile 16 x (32 + 4) floats, the probability tile 16 x (BN + 8)
    # bfloat16, and 2 x 16 floats (its rows' sums and maxima). 93440 bytes at d = 64, 161024 at
    # d = 128: past 48 KiB, which SourceModule's launch opts in to.
    smem = 16 * (d + 8) * 2 + FD_WARPS * (FD_STAGES * 2 * FD_BN * d * 2
                                          + 16 * (max(FD_BN, 32) + 4) * 4
                                          + 16 * (FD_BN + 8) * 2 + 2 * 16 * 4)
    flash_decode_kernels_cu[(d, hq // hkv)](
        np.uintp(q.data_ptr()),
        np.uintp(k.data_ptr()),
        np.uintp(v.data_ptr()),
        np.uintp(part_o.data_ptr()),
        np.uintp(part_m.data_ptr()),
        np.uintp(part_l.data_ptr()),
        np.int32(s),
        np.int32(keys_per_split),
        np.float32(1.4426950408889634 / math.sqrt(d)),  # log2(e) / sqrt(d)
        block=(32 * FD_WARPS, 1, 1),
        grid=(splits, hkv, b),
        shared=smem,
    )
    flash_decode_combine_cu(
        np.uintp(part_o.data_ptr()),
        np.uintp(part_m.data_ptr()),
        np.uintp(part_l.data_ptr()),
        np.uintp(o.data_ptr()),
        np.int32(splits),
        block=(d, 1, 1),
        grid=(b * hq, 1, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check flash_decode
#
# Shapes: groups 1, 4 and 8 (a KV head of 200 keys read by 4 query heads; plain multi-head
# attention; 513 keys, one past whole tiles; 8 query heads on one KV head of 37 keys, shorter
# than a split), head dims 64 and 128, bfloat16. Without a GPU the launchers plan for 16
# programs (the Triton one as for 4 SMs, the CUDA one as for 16), so every shape longer than 64
# keys is split and combined. A failure names the shape (`b`, `hq`,
# `d`, `hkv`, `s`) and the first wrong elements of `o` by `[sequence, query head, column]`.

# %% nbgrader={"grade": true, "grade_id": "test_flash_decode_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", flash_decode_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", flash_decode_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_flash_decode_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", flash_decode_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", flash_decode_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast is flash_decode?
#
# On a GPU, `bench` times your launcher against torch's fused attention on the same tensors,
# `F.scaled_dot_product_attention(q[:, :, None], k, v, enable_gqa=True)`, for Llama 3 8B's heads
# (32 query heads on 8 KV heads, `d = 128`): one sequence of 32768 tokens, eight of 8192 and
# eight of 32768. The rate is in GB/s of the **minimum traffic**, `k` and `v` read once and `q`
# and `o` once, `2 · (b · hkv · s + b · hq) · d · 2` bytes (128 MiB to 1 GiB a call; your
# float32 partials are extra, and cost you), and as a share of the GPU's copy roof (a large
# device-to-device copy): a decode step can go no faster than reading its cache. The sweep
# goes from 2048 to 65536 tokens of one sequence. Without a GPU it says "skipped: needs a
# GPU". On an H100 (2026-12-07, a copy roof of 3113 GB/s): torch 2552 / 2821 / 3115 GB/s at
# the three shapes (82 / 91 / 100% of the roof), the Triton reference 2717 / 2799 / 3048, the
# CUDA one 2730 / 2955 / 3141.
#
# Try the launcher with `splits = 1`: at `b = 1` the 8 KV heads then have 8 programs between
# them.

# %% nbgrader={"grade": true, "grade_id": "perf_flash_decode_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", flash_decode_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", flash_decode_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_flash_decode_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", flash_decode_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", flash_decode_cuda, graded=True)
### END HIDDEN TESTS
