# %% [markdown]
# # Lab 16 — Attention: FlashAttention's forward pass, in Triton and CUDA C
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
# **The exercise.** `attention`: `q`, `k`, `v` and `o` of shape `[b, h, s, d]` (batch, heads,
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
#   the second's operand: `tl.dot` twice; WMMA with the scores going through a per-warp
#   scratch tile in shared memory, because an accumulator fragment's layout is opaque;
# - causal masking, and the work it saves: a causal program stops at the diagonal;
# - FLOP accounting for attention: `4 · b · h · s² · d` (full), half that (causal).
#
# **What you write**: a Triton kernel and its launcher, a CUDA C kernel (in a source string)
# and its launcher.
#
# **How you are graded**: correctness on shapes you do not see (one token, lengths that end
# inside a tile, large scores that overflow `exp` unless the max is subtracted), fresh random
# inputs, compared with a float64 result; on a GPU, the time of your kernels at `s = 4096`
# (64 heads, head dims 64 and 128, full and causal) against reference kernels, in TFLOP/s and
# against torch's fused attention (`F.scaled_dot_product_attention`). Without a GPU, Triton
# runs in its interpreter and CUDA C on the CPU: correctness only.

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
# - keys past `s` (and, causal, keys after the query) get `-inf`: `tl.where`;
# - the online softmax above, with `tl.max(x, axis=1)` and `tl.sum(p, axis=1)`;
# - `acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])`: `v`'s block is `BLOCK_N × d`.
#
# A causal program stops at the diagonal: its last query is `(pid_m + 1) · BLOCK_M - 1`, and
# no key after it counts. That halves the work.
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
# (`for n0 in range(0, end, BLOCK_N)`, `offs_n = n0 + tl.arange(0, BLOCK_N)`), `kᵀ`'s block at
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
# `exp2(-inf - m)` is 0, never `-inf - (-inf)` = NaN. A causal loop ends at
# `end = tl.minimum((pid_m + 1) * BLOCK_M, s)`; a full one at `s`.
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
# `BLOCK_M = 128`, `BLOCK_N = 64` with 4 warps at `d = 64` and 8 warps at `d = 128` keep the
# tensor cores busy without spilling, `num_stages=3` so that the next K/V tiles load while
# this one is multiplied (not yet measured on a GPU; the reference's constants are swept).
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
    if CAUSAL:
        end = tl.minimum((pid_m + 1) * BLOCK_M, s)  # no key after the program's last query
    else:
        end = s
    for n0 in range(0, end, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)  # this tile's keys
        # k^T's block, HEAD_DIM x BLOCK_N: element [dd, c] is k[c, dd]; zeros past s.
        kt = tl.load(k_ptr + head + offs_n[None, :] * HEAD_DIM + offs_d[:, None],
                     mask=offs_n[None, :] < s, other=0.0)
        x = tl.dot(q, kt) * qk_scale  # exact products, float32 sums
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
        v = tl.load(v_ptr + head + offs_n[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=offs_n[:, None] < s, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)  # p rounded for the tensor cores; float32 sums
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + head + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
             o.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < s)
    ### END SOLUTION


def attention_triton(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                     causal: int) -> None:
    """o = softmax(q @ k^T / sqrt(d) [causal]) @ v for [b, h, s, d] tensors."""
    ### BEGIN SOLUTION
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert d in (64, 128), f"head dim {d}: this kernel takes 64 or 128"
    BLOCK_M, BLOCK_N = 128, 64
    warps = 4 if d == 64 else 8
    grid = (triton.cdiv(s, BLOCK_M), b * h)
    attention_kernel[grid](q, k, v, o, s, 1.0 / math.sqrt(d), CAUSAL=bool(causal),
                           HEAD_DIM=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=warps,
                           num_stages=3)
    ### END SOLUTION


# %% [markdown]
# ### CUDA C: WMMA fragments, K/V tiles in shared memory, statistics per row
#
# One block per 64 queries of one head (`blockIdx.x` the query tile, `blockIdx.y` the head),
# **4 warps, 16 queries each**. The block streams the head's keys and values through shared
# memory 64 at a time; each warp runs the online softmax for its own 16 rows.
#
# | call | here |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf[D / 16];` | the warp's 16 queries, `d` wide: loaded once, kept in registers |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kf;` | a 16 × 16 block of `kᵀ` (16 of `d` by 16 keys): `kᵀ` is `k` read column-major, `&ks[16 j][16 i]`, `ldm` the shared row |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;` | 16 keys × 16 of `d` of `v`, row-major |
# | `wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;` | the float32 sums |
# | `wmma::store_matrix_sync(ptr, c, ldm, wmma::mem_row_major)`, `wmma::load_matrix_sync(c, ptr, ldm, wmma::mem_row_major)` | an accumulator to and from shared memory |
#
# `T` is `__nv_bfloat16` or `__half`: write the block once, as a template
# `template <typename T, int D> attention_tile(...)`, and instantiate it in four kernels
# (given): `attention_kernel_bf16_d64`, `..._bf16_d128`, `..._f16_d64`, `..._f16_d128`.
#
# **Why the scores go through shared memory.** Which elements of a 16 × 16 accumulator a lane
# holds is unspecified, so a lane cannot take the max of "its" row in registers. Each warp
# stores its 16 × 64 scores to a float **scratch tile** of its own, `__syncwarp()`, and then
# lanes `2r` and `2r + 1` take row `r`, 32 columns each: their max and sum combine with one
# `__shfl_xor_sync(0xffffffff, x, 1)`. The two lanes keep the row's `m` and `l` in registers,
# and write `p`, rounded to `T`, to a second scratch tile, from which the warp loads `matrix_a`
# fragments for `p · v`.
#
# **The accumulator in shared memory, too.** Rescaling by `alpha` is per row, so the same
# problem: keep each warp's `16 × d` output accumulator in a float tile of shared memory. Per
# K/V tile the row's two lanes multiply its row by `alpha`; then for each 16 columns of `d`
# the warp loads the accumulator fragment from it (`load_matrix_sync(c, &os[warp][0][16 j],
# ldm, wmma::mem_row_major)`), adds `p · v` to it, and stores it back.
#
# **Shared memory**, dynamic (`extern __shared__ __align__(128) unsigned char smem[];`), each
# row padded by 16 bytes so that the 8 rows a fragment load reads at once fall in different
# banks, every fragment on a 32-byte boundary:
#
# | tile | shape | element | bytes at `d = 64` / `128` |
# |---|---|---|---|
# | `ks` (keys; `q` before the loop) | 64 × (`d` + 8) | `T` | 9216 / 17408 |
# | `vs` (values) | 64 × (`d` + 8) | `T` | 9216 / 17408 |
# | `ss[4]` (scores) | 16 × (64 + 4) per warp | `float` | 17408 |
# | `ps[4]` (probabilities) | 16 × (64 + 8) per warp | `T` | 9216 |
# | `os[4]` (output accumulator) | 16 × (`d` + 4) per warp | `float` | 17408 / 33792 |
#
# 62464 bytes at `d = 64`, 95232 at `d = 128`: past 48 KiB, which SourceModule's launch opts in
# to. `q` enters through `ks`: its last tile's rows past `s` must read as zeros, which a fragment
# loaded straight from global memory cannot promise.
#
# <details><summary>Hint 1 — loading a tile</summary>
#
# A function for 64 rows of a head from `row0`: 16-byte pieces (`uint4`, 8 elements), piece
# `p = threadIdx.x, threadIdx.x + 128, ...` is row `p / (D / 8)`, columns `8 (p % (D / 8))`:
# neighbouring threads read neighbouring 16 bytes. A row past `s` stores
# `make_uint4(0, 0, 0, 0)`. The head starts at `(long long)blockIdx.y * s * D`; rows of `d`
# elements are 16-byte aligned (`d` is a multiple of 8 and torch's allocations are aligned).
# </details>
#
# <details><summary>Hint 2 — the loop's barriers</summary>
#
# Before the loop: load `q` into `ks`, `__syncthreads()`, each warp loads its `D / 16`
# fragments from `&ks[16 warp][16 i]`. Per K/V tile: `__syncthreads()` (every warp is done
# reading the previous tile, and `q`), load `ks` and `vs`, `__syncthreads()` (they have
# landed). Inside a warp, `__syncwarp()` between the lanes' writes to a scratch tile and the
# warp's reads of it, in both directions. "depends on thread order": one of the two block
# barriers missing.
# </details>
#
# <details><summary>Hint 3 — the scores and the statistics</summary>
#
# For each 16 keys `j`: `fill_fragment(c, 0.0f)`, for each 16 of `d` `i`:
# `mma_sync(c, qf[i], kf, c)` with `kf` from `&ks[16 j][16 i]`; store `c` to
# `&ss[warp][0][16 j]`. Then lane `(r, half)` = `(lane / 2, lane % 2)`, query
# `row = row0 + 16 warp + r`, for its 32 columns `col`: `x = ss[warp][r][col] * scale_log2`,
# or `-INFINITY` where `key = n0 + col` is `≥ s` or (causal) `> row`. Max over its columns,
# `fmaxf` with the neighbour's; `m_new = fmaxf(m, that)`, `alpha = exp2f(m - m_new)`,
# `p = exp2f(x - m_new)` into `ps` and the sum, the neighbour's added; `l = l * alpha + sum`.
# </details>
#
# <details><summary>Hint 4 — p · v, and the end</summary>
#
# The lane multiplies its half of row `r` of `os[warp]` by `alpha`; `__syncwarp()`; load the
# 4 `matrix_a` fragments of `p` from `&ps[warp][0][16 i]`; for each 16 of `d` `j`: load the
# accumulator from `&os[warp][0][16 j]`, `mma_sync` with `vf` from `&vs[16 i][16 j]` for each
# `i`, store it back. After the loop (causal: it ends at `min(s, row0 + 64)`), a lane writes its
# half of row `row` (if `row < s`): `os[warp][r][c] / l`, rounded with `__float2bfloat16_rn` or
# `__float2half_rn` (a template function `from_float<T>` picks the one).
# </details>
#
# <details><summary>Hint 5 — the launcher</summary>
#
# Pick the kernel by dtype and `d`; `block=(128, 1, 1)`, `grid=(cdiv(s, 64), b * h)` (`b · h`
# at most 65535, gridDim.y's limit), `shared=` the table's bytes. The scale in base 2:
# `np.float32(log2(e) / sqrt(d))`; `causal` as `np.int32`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "attention_cu", "locked": false, "schema_version": 3, "solution": true}
ATTENTION_CU = r"""
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64       // queries per block: WARPS warps of 16
#define BN 64       // keys per K/V tile
#define WARPS 4
#define THREADS (WARPS * 32)
#define PAD_T 8     // 16-bit elements (16 bytes) added to each row of a shared K, V or P tile
#define PAD_F 4     // floats (16 bytes) added to each row of a shared float tile

// float -> T, rounded to nearest even.
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x)
{
    return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half from_float<__half>(float x)
{
    return __float2half_rn(x);
}

/// BEGIN SOLUTION
// Rows row0 .. row0 + ROWS - 1 of one head's s x D matrix into tile[r][c], zeros past row s. In
// 16-byte pieces (8 elements): piece p is row p / (D / 8), columns 8 (p % (D / 8)) onward, thread
// t taking pieces t, t + THREADS, ...: neighbouring threads read neighbouring 16 bytes.
template <typename T, int D, int ROWS>
__device__ __forceinline__ void load_tile(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                          int row0, int s)
{
    constexpr int PIECES = ROWS * D / 8;
    for (int p = threadIdx.x; p < PIECES; p += THREADS) {
        const int r = p / (D / 8), c = p % (D / 8) * 8;
        uint4 piece = make_uint4(0, 0, 0, 0);
        if (row0 + r < s)
            piece = *reinterpret_cast<const uint4 *>(head + (long long)(row0 + r) * D + c);
        *reinterpret_cast<uint4 *>(&tile[r][c]) = piece;
    }
}
/// END SOLUTION

// One block: queries blockIdx.x * BM .. + BM - 1 of head blockIdx.y, WARPS warps of 16 queries.
template <typename T, int D>
__device__ __forceinline__ void attention_tile(const T *__restrict__ q,  // [b, h, s, D]
                                               const T *__restrict__ k,  // [b, h, s, D]
                                               const T *__restrict__ v,  // [b, h, s, D]
                                               T *__restrict__ o,        // [b, h, s, D]
                                               int s,                    // tokens per head
                                               float scale_log2,         // log2(e) / sqrt(D)
                                               int causal)               // 1: key c <= query r
{
    /// BEGIN SOLUTION
    constexpr int LDT = D + PAD_T;   // elements between rows of ks and vs
    constexpr int LDS = BN + PAD_F;  // floats between rows of a warp's score tile
    constexpr int LDP = BN + PAD_T;  // elements between rows of a warp's probability tile
    constexpr int LDO = D + PAD_F;   // floats between rows of a warp's output tile
    // Every tile and every per-warp part of one starts a multiple of 32 bytes in, and so does
    // every fragment (16 rows of a tile; 16 columns of 2 or 4 bytes).
    extern __shared__ __align__(128) unsigned char smem[];
    T(*ks)[LDT] = reinterpret_cast<T(*)[LDT]>(smem);  // BN keys (before the loop: BM queries)
    T(*vs)[LDT] = ks + BN;                             // BN values
    float(*ss)[16][LDS] = reinterpret_cast<float(*)[16][LDS]>(vs + BN);  // per warp: scores
    T(*ps)[16][LDP] = reinterpret_cast<T(*)[16][LDP]>(ss + WARPS);      // per warp: p
    float(*os)[16][LDO] = reinterpret_cast<float(*)[16][LDO]>(ps + WARPS);  // per warp: acc

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = blockIdx.x * BM;                     // the block's first query
    const long long head = (long long)blockIdx.y * s * D;  // the head's first element, 64-bit
    q += head;
    k += head;
    v += head;
    o += head;

    // The warp's 16 queries as D / 16 matrix_a fragments, through ks (rows past s: zeros).
    load_tile<T, D, BM>(ks, q, row0, s);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> qf[D / 16];
#pragma unroll
    for (int i = 0; i < D / 16; ++i) wmma::load_matrix_sync(qf[i], &ks[16 * warp][16 * i], LDT);
    for (int i = lane; i < 16 * D; i += 32) os[warp][i / D][i % D] = 0.0f;

    // Lanes 2r and 2r + 1 own row r of the warp's 16: its statistics, and half of its columns
    // each (half 0 the first, half 1 the second).
    const int r = lane / 2, half = lane % 2;
    const int row = row0 + 16 * warp + r;  // the query
    float m = -INFINITY, l = 0.0f;         // running max (base 2) and sum
    const int end = causal ? min(s, row0 + BM) : s;  // causal: no key after the last query
    for (int n0 = 0; n0 < end; n0 += BN) {
        __syncthreads();  // every warp is done with the previous tile (and with q in ks)
        load_tile<T, D, BN>(ks, k, n0, s);
        load_tile<T, D, BN>(vs, v, n0, s);
        __syncthreads();  // the tiles have landed

        // Scores: the warp's 16 queries x BN keys, float32, to its scratch tile.
#pragma unroll
        for (int j = 0; j < BN / 16; ++j) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
            wmma::fill_fragment(c, 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> kf;  // k^T
                wmma::load_matrix_sync(kf, &ks[16 * j][16 * i], LDT);
                wmma::mma_sync(c, qf[i], kf, c);
            }
            wmma::store_matrix_sync(&ss[warp][0][16 * j], c, LDS, wmma::mem_row_major);
        }
        __syncwarp();  // the lanes read what the warp stored

        // The online softmax of row r: this lane's BN / 2 columns, then its neighbour's.
        float x[BN / 2];
        float tile_max = -INFINITY;
#pragma unroll
        for (int c = 0; c < BN / 2; ++c) {
            const int key = n0 + half * (BN / 2) + c;
            const bool keep = key < s && (!causal || key <= row);
            x[c] = keep ? ss[warp][r][half * (BN / 2) + c] * scale_log2 : -INFINITY;
            tile_max = fmaxf(tile_max, x[c]);
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        // Key 0 is in every row's first tile: m_new is finite from there on, and
        // exp2f(-inf - m_new) = 0 (the first tile's alpha, and every masked p).
        const float m_new = fmaxf(m, tile_max);
        const float alpha = exp2f(m - m_new);  // the old terms, rescaled to the new max
        float sum = 0.0f;
#pragma unroll
        for (int c = 0; c < BN / 2; ++c) {
            const float p = exp2f(x[c] - m_new);
            sum += p;
            ps[warp][r][half * (BN / 2) + c] = from_float<T>(p);  // the tensor cores' operand
        }
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        l = l * alpha + sum;
        m = m_new;
        for (int c = half * (D / 2); c < (half + 1) * (D / 2); ++c) os[warp][r][c] *= alpha;
        __syncwarp();  // p and the rescaled accumulator, before the warp loads them

        // acc += p . v, 16 columns of D at a time, through the accumulator's float tile.
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> pf[BN / 16];
#pragma unroll
        for (int i = 0; i < BN / 16; ++i) wmma::load_matrix_sync(pf[i], &ps[warp][0][16 * i], LDP);
#pragma unroll
        for (int j = 0; j < D / 16; ++j) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
            wmma::load_matrix_sync(c, &os[warp][0][16 * j], LDO, wmma::mem_row_major);
#pragma unroll
            for (int i = 0; i < BN / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
                wmma::load_matrix_sync(vf, &vs[16 * i][16 * j], LDT);
                wmma::mma_sync(c, pf[i], vf, c);
            }
            wmma::store_matrix_sync(&os[warp][0][16 * j], c, LDO, wmma::mem_row_major);
        }
        __syncwarp();  // the lanes read (and rescale) what the warp stored
    }

    // o = acc / l, one rounding; rows past s are not stored.
    if (row < s) {
        const float inv_l = 1.0f / l;
        T *out = o + (long long)row * D;
        for (int c = half * (D / 2); c < (half + 1) * (D / 2); ++c)
            out[c] = from_float<T>(os[warp][r][c] * inv_l);
    }
    /// END SOLUTION
}

// The four kernels the launcher picks from: element type x head dimension.
#define ATTENTION_KERNEL(NAME, T, D)                                                          \
    extern "C" __global__ void __launch_bounds__(THREADS)                                    \
        NAME(const T *q, const T *k, const T *v, T *o, int s, float scale_log2, int causal) \
    {                                                                                        \
        attention_tile<T, D>(q, k, v, o, s, scale_log2, causal);                             \
    }
ATTENTION_KERNEL(attention_kernel_bf16_d64, __nv_bfloat16, 64)
ATTENTION_KERNEL(attention_kernel_bf16_d128, __nv_bfloat16, 128)
ATTENTION_KERNEL(attention_kernel_f16_d64, __half, 64)
ATTENTION_KERNEL(attention_kernel_f16_d128, __half, 128)
"""

# %% nbgrader={"grade": false, "grade_id": "attention_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
attention_module = SourceModule(ATTENTION_CU, no_extern_c=True)
attention_kernels_cu = {
    (dtype, d): attention_module.get_function(f"attention_kernel_{name}_d{d}")
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")) for d in (64, 128)
}


def attention_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor,
                   causal: int) -> None:
    """o = softmax(q @ k^T / sqrt(d) [causal]) @ v with WMMA: one block of 4 warps per 64
    queries of a head.

    Pass the arguments in the kernels' order, as C types: each tensor as
    np.uintp(t.data_ptr()), s and causal as np.int32(...), the scale as np.float32(...); then
    block=(128, 1, 1), grid=(query tiles, heads) and shared= the bytes of dynamic shared memory.
    """
    ### BEGIN SOLUTION
    b, h, s, d = q.shape
    assert k.shape == q.shape and v.shape == q.shape and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert all(t.is_contiguous() for t in (q, k, v, o)), "q, k, v and o must be contiguous"
    assert all(t.dtype == q.dtype for t in (k, v, o)), "q, k, v and o: one dtype"
    assert (q.dtype, d) in attention_kernels_cu, f"{q.dtype}, head dim {d}: no kernel for it"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v)), "16-byte loads need aligned rows"
    assert b * h <= 65535, f"{b * h} heads: gridDim.y <= 65535"
    bm, bn, warps = 64, 64, 4  # BM, BN, WARPS in ATTENTION_CU
    # ks, vs: bn x (d + 8) elements each; per warp 16 x (bn + 4) floats, 16 x (bn + 8)
    # elements, 16 x (d + 4) floats.
    smem = 2 * bn * (d + 8) * 2 + warps * 16 * ((bn + 4) * 4 + (bn + 8) * 2 + (d + 4) * 4)
    attention_kernels_cu[(q.dtype, d)](
        np.uintp(q.data_ptr()),
        np.uintp(k.data_ptr()),
        np.uintp(v.data_ptr()),
        np.uintp(o.data_ptr()),
        np.int32(s),
        np.float32(1.4426950408889634 / math.sqrt(d)),  # log2(e) / sqrt(d)
        np.int32(causal),
        block=(32 * warps, 1, 1),
        grid=(triton.cdiv(s, bm), b * h),
        shared=smem,  # 62464 or 95232 bytes, over 48 KiB: SourceModule's launch opts in
    )
    ### END SOLUTION


# %% [markdown]
# ### Check attention
#
# Shapes: one K/V tile exactly (`s = 64`), two with a tail (`s = 80`, `72`), one short tile
# (`s = 17`); head dims 64 and 128; causal and full; bfloat16 and float16. A failure names the
# shape (`b`, `h`, `s`, `d`, `causal`) and the first wrong elements of `o` by
# `[batch, head, token, column]`.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", attention_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", attention_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", attention_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", attention_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast is attention?
#
# On a GPU, `bench` times your launcher against torch's fused attention,
# `F.scaled_dot_product_attention(q, k, v, is_causal=...)` (a FlashAttention kernel of its
# own), at `s = 4096` with 64 heads (`b = 4`, `h = 16`), head dims 64 and 128, full and causal,
# in TFLOP/s: `4 · b · h · s² · d` for a full head (two products, `q · kᵀ` and `p · v`, of
# `2 d` operations per query and key), `4 · b · h · d · s (s + 1) / 2` for a causal one (the
# pairs its mask keeps). The sweep goes from 512 to 4096 tokens. Without a GPU it says
# "skipped: needs a GPU". (Not measured yet on the course GPU.)
#
# What never reaches memory is the point: a kernel that wrote the scores out and read them back
# would move `4 · s²` bytes per head, 4.3 GB at this size, for 0.3 to 0.6 TFLOP of work; this
# one reads `q`, `k` and `v` (`k` and `v` once per query tile) and writes `o`.

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", attention_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", attention_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", attention_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", attention_cuda, graded=True)
### END HIDDEN TESTS
