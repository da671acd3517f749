# %% [markdown]
# # Lab 14 — int8 matmul with a dequantizing epilogue, in Triton and in CUDA C
#
# A quantized linear layer (W8A8: 8-bit weights, 8-bit activations) stores each matrix as
# int8 values and a float scale per row: the real matrix is `A_real[i, kk] ≈ a[i, kk] *
# s_row[i]` (a scale per token) and `B_real[kk, j] ≈ B[kk, j] * s_col[j]` (a scale per output
# channel). Their product factors:
#
#     c[i, j] = sum over kk of a[i, kk] s_row[i] B[kk, j] s_col[j]
#             = (sum over kk of a[i, kk] B[kk, j]) * s_row[i] * s_col[j]
#
# so the whole sum runs on **integers**, on the tensor cores' int8 path (twice the float16
# rate), and the scales are applied once per element of `c`, in the **epilogue**: after the
# loop over `k`, before the store.
#
# **The exercise.** `c = (a · B) * s_row[:, None] * s_col[None, :]`, stored as **bfloat16**:
#
# - `a`: int8, `m × k`, row-major; its rows may be **padded** (`a.stride(0)` ≥ `k`);
# - `b`: int8, **`n × k`**, row-major: row `j` of `b` is column `j` of `B`, so `B = b.T` is
#   `k × n` **column-major**. This is the layout the tensor cores' int8 operands want (WMMA's
#   `col_major` `matrix_b`; cuBLASLt's int8 GEMM, behind `torch._int_mm(a, b.T)`): both
#   operands are read along `k`, 16 contiguous bytes at a time. Its rows may be padded too;
# - `s_row`: float32 `[m]`, `s_col`: float32 `[n]`, positive;
# - `c`: bfloat16 `m × n`, contiguous, allocated: write into it.
#
# Every value of `a` and `b` is drawn over the whole int8 range, −128 to 127. Any `m`, `n`, `k`.
#
# **Three rules of the arithmetic.**
#
# 1. **Sum in int32.** A product of two int8s is up to 2^14 in size; a sum of `k` of them up
#    to 2^14 `k`: it overflows int16 after 2 terms and is exact in int32 up to `k` = 131072.
#    float16 cannot hold it at all (its largest value is 65504), and float32 is exact only
#    below 2^24.
# 2. **Scale after the sum, in float32.** `(float)acc * s_row[i] * s_col[j]`. Scaling a term
#    before it is summed (`a[i, kk] * s_row[i]` rounded to bfloat16, say) rounds every term:
#    where the terms cancel, `c` is small and those roundings are many of its ulps.
# 3. **Round once**, to bfloat16, at the store.
#
# The check compares with the product in float64, at one bfloat16 ulp relative.
#
# **What you will learn**
# - the **int8 tensor-core path**: `tl.dot` on int8 blocks with an int32 accumulator; WMMA
#   fragments of `signed char` and an `int` accumulator;
# - why a quantized matmul **factors**: integer sum, float epilogue; what each dtype can hold;
# - an **epilogue** that needs the row and column of each element of an accumulator whose
#   layout is unspecified: through a per-warp scratch tile in shared memory;
# - operand **layouts**: a column-major `B`, and the 32-byte alignment of a WMMA load.
#
# **What you write**: a Triton kernel and its launcher, a CUDA C kernel (in a source string)
# and its launcher.
#
# **How you are graded**: correctness on shapes you do not see (1 × 1 × 1, thin products,
# tails on every axis, padded rows, rows not 16-byte aligned), fresh random inputs, compared
# with a float64 product; on a GPU, the time of your kernels at 4096³ and 8192³ against
# reference kernels, in TFLOP/s and against `torch._int_mm` followed by the scaling in torch.
# Without a GPU, Triton runs in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported.
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab14_int8_matmul"

# %% [markdown]
# ## Part 1 — Triton
#
# Lab 10's float16 kernel, three changes:
#
# - **the blocks are int8**, and so is what `tl.dot` multiplies: with
#   `acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)` and
#   `acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.int32)`, the tensor cores' int8 path sums
#   exactly. Masked loads fill with `other=0`: a zero adds nothing to an integer sum either;
# - **`b` is `n × k`**: the `BLOCK_SIZE_K × BLOCK_SIZE_N` block `tl.dot` wants is
#   `b_ptr + offs_n[None, :] * stride_bn + offs_k[:, None]`, rows `offs_k` of `B` being columns
#   of `b`. (Loading `b`'s `BLOCK_SIZE_N × BLOCK_SIZE_K` block and `tl.trans` of it is the same.)
# - **the epilogue**: `acc.to(tl.float32)`, times the block's `s_row` as a column
#   (`[:, None]`) and its `s_col` as a row (`[None, :]`), then `.to(tl.bfloat16)` and the
#   masked store.
#
# <details><summary>Hint 1 — the offsets</summary>
#
# As in lab 10: `pid` → `pid_m`, `pid_n` (64-bit), `offs_m`, `offs_n`; inside
# `for k0 in range(0, k, BLOCK_SIZE_K)`, `offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)`. The block
# of `a` is at `a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]` (`BLOCK_SIZE_M ×
# BLOCK_SIZE_K`), the block of `B` at `b_ptr + offs_n[None, :] * stride_bn + offs_k[:, None]`
# (`BLOCK_SIZE_K × BLOCK_SIZE_N`: element `[kk, j]` is `b[j, kk]`).
# </details>
#
# <details><summary>Hint 2 — masks, and "elements differ" on most shapes</summary>
#
# `a`'s block: `(offs_m[:, None] < m) & (offs_k[None, :] < k)`, `other=0`; `B`'s block:
# `(offs_k[:, None] < k) & (offs_n[None, :] < n)`. Wrong almost everywhere but 16³: the sum
# left int32 (an int16 accumulator wraps, float16 overflows); wrong where `k` is not a multiple
# of `BLOCK_SIZE_K` only: the `k` part of a mask.
# </details>
#
# <details><summary>Hint 3 — the epilogue</summary>
#
# `sr = tl.load(s_row_ptr + offs_m, mask=offs_m < m, other=0.0)`, `sc` likewise with `offs_n`;
# `out = (acc.to(tl.float32) * sr[:, None] * sc[None, :]).to(tl.bfloat16)`; store at
# `c_ptr + offs_m[:, None] * n + offs_n[None, :]` with the mask of rows below `m` and columns
# below `n`. Wrong by a few ulps on some elements of `k = 256`: a scale applied before the sum.
# </details>
#
# <details><summary>Hint 4 — correct but slow: the tile sizes</summary>
#
# A `BLOCK_SIZE_M × BLOCK_SIZE_N` tile reads `BLOCK_SIZE_M + BLOCK_SIZE_N` rows of `k` bytes
# for `2 · BLOCK_SIZE_M · BLOCK_SIZE_N · k` operations: the larger the tile, the fewer bytes
# per operation. At 64 × 64 × 32 the tensor cores wait on memory (measured on an H100: a fifth
# of the reference's speed). Try 128 × 128 tiles with `BLOCK_SIZE_K = 128` (one 128-byte row
# of each operand per step), `num_warps=4`, and `num_stages=3` in the launch: the compiler
# then keeps three K tiles in flight while the tensor cores work on one. Larger is not always
# better: a 256-row tile needs more registers than a thread has.
# </details>

# %% nbgrader={"grade": false, "grade_id": "int8_matmul_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def int8_matmul_kernel(
    a_ptr,  # a: m x k int8, rows stride_am elements apart
    b_ptr,  # b: n x k int8 (B = b^T, k x n column-major), rows stride_bn elements apart
    s_row_ptr,  # s_row: [m] float32
    s_col_ptr,  # s_col: [n] float32
    c_ptr,  # c: m x n bfloat16, contiguous
    m,  # rows of a and c
    n,  # rows of b, columns of c
    k,  # columns of a and b
    stride_am,  # elements between the starts of two rows of a (>= k)
    stride_bn,  # elements between the starts of two rows of b (>= k)
    BLOCK_SIZE_M: tl.constexpr,  # rows of c per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of c per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    pid_m = (pid // tiles_n).to(tl.int64)  # 64-bit offsets from here
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of a and c
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # rows of b, columns of c
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)  # exact: |sum| <= 2^14 k
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        # Past m, n or k: zeros, which add nothing.
        a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0)
        # B's block, BLOCK_SIZE_K x BLOCK_SIZE_N: element [kk, j] is b[j, kk].
        b_blk = tl.load(b_ptr + offs_n[None, :] * stride_bn + offs_k[:, None],
                        mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0)
        acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.int32)  # int8 in, int32 sum
    # The epilogue: the scales in float32, after the sum; one rounding to bfloat16.
    sr = tl.load(s_row_ptr + offs_m, mask=offs_m < m, other=0.0)
    sc = tl.load(s_col_ptr + offs_n, mask=offs_n < n, other=0.0)
    out = acc.to(tl.float32) * sr[:, None] * sc[None, :]
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # c's edges
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16), mask=mask)
    ### END SOLUTION


def int8_matmul_triton(a: torch.Tensor, b: torch.Tensor, s_row: torch.Tensor,
                       s_col: torch.Tensor, c: torch.Tensor) -> None:
    """c = (a @ b.T) * s_row[:, None] * s_col[None, :] in bfloat16, int32 accumulation."""
    ### BEGIN SOLUTION
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) \
        and s_col.shape == (n,), (f"shapes do not chain: a {tuple(a.shape)}, b "
                                  f"{tuple(b.shape)}, c {tuple(c.shape)}")
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    # 128 x 128 tiles, K tiles of 128 bytes, 4 warps, 3 K tiles in flight (num_stages): on an
    # H100, 1.0x the reference at 4096^3 and 8192^3, where 64 x 64 x 32 tiles run 0.2x.
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 128, 128, 128
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    int8_matmul_kernel[grid](a, b, s_row, s_col, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4, num_stages=3)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C: int8 WMMA fragments
#
# `nvcuda::wmma` (lab 10) has an integer flavour: `matrix_a` and `matrix_b` fragments of
# `signed char` (or `unsigned char`: the bytes read as 0 to 255, a different matrix), shape
# 16 × 16 × 16, and an `accumulator` of `int`. `mma_sync` sums exactly in int32.
#
# | call | here |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;` | a 16 × 16 tile of `a`, rows along `k` |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;` | a 16 × 16 tile of `B`, column-major: 16 rows of `b`, along `k` |
# | `wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;` | the int32 sums; `wmma::fill_fragment(acc, 0)` |
# | `wmma::load_matrix_sync(f, ptr, ldm)` | `ldm` a multiple of 16 bytes; `ptr` **32-byte aligned** |
#
# **The block.** 128 threads = 4 warps per 64 × 64 tile of `c`, arranged 2 × 2: each warp
# owns a 32 × 32 piece, 2 × 2 accumulator fragments. The block walks along `k` in K tiles of
# `BK` = 64 bytes, staged in shared memory.
#
# **The shared tiles, slice by slice.** A fragment is 16 deep, and a load needs a 32-byte
# aligned pointer: in a tile stored row by row (`as[r][kk]`, 64 bytes a row), the fragment of
# the second 16-deep slice would start 16 bytes into a row — misaligned. So store the K tile
# as `BK / 16` **slices**, each a 64 × 16 array: `as[s][r][q] = a[row0 + r][k0 + 16 s + q]`,
# and `bs[s][j][q] = b[col0 + j][k0 + 16 s + q]`. A fragment is then 256 contiguous bytes,
# `&as[s][wr + 16 i][0]` with `ldm` 16, and each 16-byte piece of a row of `a` or `b` lands
# in one row of one slice.
#
# **Filling them.** A K tile of `a` is 64 rows × 4 pieces of 16 bytes: 256 pieces, 2 per
# thread; of `b` the same. Where every piece is wholly inside or wholly outside the matrix and
# 16-byte aligned (`k` and both row strides multiples of 16, the pointers aligned), copy a
# piece as one `int4`, zeros outside; otherwise byte by byte, zeros past `m`, `n` or `k`. The
# check is the same for every thread. Then `__syncthreads()` before the fragments are loaded,
# and again before the next K tile overwrites them.
#
# **The epilogue.** A fragment's layout in registers is unspecified, and the scales depend on
# each element's row and column. So each warp stores a finished accumulator to a 16 × 16 `int`
# scratch tile of its own in shared memory (`store_matrix_sync(scratch[warp], acc, 16,
# wmma::mem_row_major)`), `__syncwarp()`, and then lane `l` takes 8 of its ints (row `l / 2`,
# columns `(l % 2) * 8` onwards): `(float)v * s_row[row] * s_col[col]`, rounded once with
# `__float2bfloat16_rn`, stored if inside `c`; `__syncwarp()` before the next fragment.
#
# <details><summary>Hint 1 — the loop over K tiles</summary>
#
# `for (k0 = 0; k0 < k; k0 += BK)`: fill `as` and `bs`; `__syncthreads()`; for each slice `s`:
# load `fa[i]` from `&as[s][wr + 16 i][0]` and `fb[j]` from `&bs[s][wc + 16 j][0]` (`ldm` 16),
# `wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j])`; `__syncthreads()`. Every lane of a warp
# makes every WMMA call, also for fragments past the matrix (they multiply zeros).
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# Piece `e = threadIdx.x + p * 128` (`p` = 0, 1) is row `r = e / 4` of the tile and slice
# `s = e % 4`: bytes `k0 + 16 s` to `+ 15` of row `row0 + r` of `a`, into `as[s][r][0..15]`
# (as `*reinterpret_cast<int4 *>(&as[s][r][0])`). The same for `b` with `col0`. Byte by byte:
# `e` from `threadIdx.x` to `64 * BK` in steps of 128, row `e / BK`, byte `e % BK`, slice
# `(e % BK) / 16`. Offsets in 64 bits: `(long long)row * stride_am`.
# </details>
#
# <details><summary>Hint 3 — the checks' messages</summary>
#
# "depends on thread order": a `__syncthreads()` missing before or after the multiply-adds.
# Wrong on most elements, as if a few values were 256 off: the fragments read the bytes as
# `unsigned char`. A WMMA call inside a branch that splits a warp, or a pointer 16 bytes past a
# 32-byte boundary, is named with its line (without a GPU; on a GPU, undefined behaviour).
# </details>

# %% nbgrader={"grade": false, "grade_id": "int8_matmul_cu", "locked": false, "schema_version": 3, "solution": true}
INT8_MATMUL_CU = r"""
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64    // rows of c per block
#define BN 64    // columns of c per block
#define BK 64    // depth of one K tile, in bytes
#define WM 32    // rows of c per warp
#define WN 32    // columns of c per warp
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 4 warps
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across

extern "C" __global__ void __launch_bounds__(THREADS)
int8_matmul_kernel(const signed char *__restrict__ a,  // m x k, rows stride_am apart
                   const signed char *__restrict__ b,  // n x k (B col-major), rows stride_bn apart
                   const float *__restrict__ s_row,    // [m]
                   const float *__restrict__ s_col,    // [n]
                   __nv_bfloat16 *__restrict__ c,      // m x n, contiguous
                   int m,                              // rows of a and c
                   int n,                              // rows of b, columns of c
                   int k,                              // columns of a and b
                   int stride_am,                      // bytes between rows of a
                   int stride_bn)                      // bytes between rows of b
{
    /// BEGIN SOLUTION
    // K tiles slice by slice: as[s][r][q] = a[row0 + r][k0 + 16 s + q]. Each 16 x 16 fragment
    // is 256 contiguous bytes, 32-byte aligned (ldm 16).
    __shared__ __align__(32) signed char as[SLICES][BM][16];
    __shared__ __align__(32) signed char bs[SLICES][BN][16];
    __shared__ __align__(32) int scratch[THREADS / 32][16 * 16];  // a warp's epilogue tile

    const int tiles_n = (n + BN - 1) / BN;
    const int row0 = blockIdx.x / tiles_n * BM, col0 = blockIdx.x % tiles_n * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // 16-byte pieces where each is wholly inside or outside and aligned; the same for all.
    const bool vec = k % 16 == 0 && stride_am % 16 == 0 && stride_bn % 16 == 0 &&
                     reinterpret_cast<size_t>(a) % 16 == 0 &&
                     reinterpret_cast<size_t>(b) % 16 == 0;

    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb[FN];

    for (int k0 = 0; k0 < k; k0 += BK) {
        if (vec) {
            for (int e = threadIdx.x; e < BM * SLICES; e += THREADS) {  // 2 pieces a thread
                const int r = e / SLICES, s = e % SLICES, kk = k0 + 16 * s;
                const int4 zero = make_int4(0, 0, 0, 0);
                const signed char *pa = a + (long long)(row0 + r) * stride_am + kk;  // 64-bit
                const signed char *pb = b + (long long)(col0 + r) * stride_bn + kk;
                *reinterpret_cast<int4 *>(&as[s][r][0]) =
                    row0 + r < m && kk < k ? *reinterpret_cast<const int4 *>(pa) : zero;
                *reinterpret_cast<int4 *>(&bs[s][r][0]) =
                    col0 + r < n && kk < k ? *reinterpret_cast<const int4 *>(pb) : zero;
            }
        } else {  // byte by byte: zeros past m, n or k
            for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
                const int r = e / BK, q = e % BK, kk = k0 + q;
                as[q / 16][r][q % 16] =
                    row0 + r < m && kk < k ? a[(long long)(row0 + r) * stride_am + kk] : 0;
                bs[q / 16][r][q % 16] =
                    col0 + r < n && kk < k ? b[(long long)(col0 + r) * stride_bn + kk] : 0;
            }
        }
        __syncthreads();  // the tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &as[s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], &bs[s][wc + 16 * j][0], 16);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp is done with the tiles before they are refilled
    }

    // Epilogue: int accumulator -> scratch tile -> 8 elements per lane, scaled in float32,
    // rounded once to bfloat16.
    int *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past c
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int row = frow + lane / 2, h = lane % 2 * 8;
            if (row < m) {
                const float sr = s_row[row];
                __nv_bfloat16 *out = c + (long long)row * n;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + h + q;
                    if (col < n)
                        out[col] = __float2bfloat16_rn((float)mine[(lane / 2) * 16 + h + q] * sr *
                                                       s_col[col]);
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "int8_matmul_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
int8_matmul_kernel_cu = SourceModule(INT8_MATMUL_CU, no_extern_c=True).get_function(
    "int8_matmul_kernel")


def int8_matmul_cuda(a: torch.Tensor, b: torch.Tensor, s_row: torch.Tensor,
                     s_col: torch.Tensor, c: torch.Tensor) -> None:
    """c = (a @ b.T) * s_row[:, None] * s_col[None, :] in bfloat16 with int8_matmul_kernel_cu:
    WMMA, 4 warps per 64 x 64 tile of c.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(128, 1, 1) and grid=(tiles, 1).
    """
    ### BEGIN SOLUTION
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) \
        and s_col.shape == (n,), (f"shapes do not chain: a {tuple(a.shape)}, b "
                                  f"{tuple(b.shape)}, c {tuple(c.shape)}")
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    bm, bn = 64, 64  # BM and BN in INT8_MATMUL_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
    int8_matmul_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(s_row.data_ptr()),
        np.uintp(s_col.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(128, 1, 1),
        grid=(tiles, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Shapes: one fragment (16³), whole tiles (32 × 48 × 64), tails on every axis (17 × 33 × 40),
# `k = 256`, padded rows of `a`. A failure names the shape (`m`, `n`, `k`) and the first wrong
# elements of `c` by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", int8_matmul_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", int8_matmul_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", int8_matmul_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", int8_matmul_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launcher against `torch._int_mm(a, b.T)` followed by the
# scaling and the cast in torch (four kernels, an `m × n` int32 temporary written and read
# back), from 1024³ to 8192³, in TFLOP/s; graded at 4096³ and 8192³. Without a GPU it says
# "skipped: needs a GPU". (Not measured yet on the course GPU.)
#
# The int8 tensor cores of an H100 or H200 run at twice the float16 rate. Where lab 10's
# float16 kernel went next — cp.async double buffering, bigger warp tiles, a grouped numbering
# of the tiles — goes for this one too; the epilogue is the part that is new, and it costs the
# same at any `k`.

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", int8_matmul_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", int8_matmul_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", int8_matmul_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", int8_matmul_cuda, graded=True)
### END HIDDEN TESTS
