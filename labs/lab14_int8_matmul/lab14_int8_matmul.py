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
# - operand **layouts**: a column-major `B`, and the 32-byte alignment of a WMMA load: K
#   tiles stored slice by slice, fed by lab 10's cp.async pipeline;
# - a **fallback** for rows that 16-byte copies cannot take (an odd padding, an odd `k`).
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
# **The kernel is lab 10's float16 kernel** (Part 2 of its second exercise): 8 warps per block
# tile, each warp a 64 × 64 piece of it (4 × 4 accumulator fragments), K tiles copied by
# cp.async three stages deep with one `__syncthreads()` per K tile, two register sets of
# operand fragments, tiles numbered in groups of 16 tile rows, dynamic shared memory, and the
# epilogue through a per-warp scratch tile. Review it first; what follows is what changes.
#
# **The block.** 256 threads = 8 warps per 128 × 256 tile of `c`, arranged 2 × 4. The K tiles
# are `BK` = 64 bytes deep: 64 int8 values, as deep as lab 10's float16 tiles and half their
# bytes (measured on an H100, 64-byte K tiles ran 1.1x the speed of 128-byte ones).
#
# **The shared tiles, slice by slice.** Both operands are read along `k`: a K tile of `a` is
# 128 rows of `a`, `k0` to `k0 + 63`, and a K tile of `B` is 256 rows of `b` (a `col_major`
# `matrix_b` fragment is 16 rows of `b`). A fragment is 16 deep, and a load needs a 32-byte
# aligned pointer: in a tile stored row by row (`as[r][kk]`, 64 bytes a row), the fragments
# of every other 16-deep slice would start 16 bytes into a 32-byte boundary — misaligned, and
# padding the rows cannot fix that. So store each K tile as `BK / 16` **slices**, each an
# array of rows of 16 bytes: `as[buf][s][r][q] = a[row0 + r][k0 + 16 s + q]`, and
# `bs[buf][s][j][q] = b[col0 + j][k0 + 16 s + q]`. A fragment is then 256 contiguous bytes,
# `&as[buf][s][wr + 16 i][0]` with `ldm` 16, and each 16-byte piece of a row of `a` or `b`
# lands in one row of one slice. No padding: a fragment load reads 8 rows of 16 bytes at a
# time, 128 contiguous bytes, every bank once.
#
# **Filling them.** Each piece is one `__pipeline_memcpy_async(dst, src, 16)`; outside the
# matrix (past `m`, `n` or `k`) a copy of 0 bytes with 16 zero-filled,
# `__pipeline_memcpy_async(dst, a, 16, 16)`. Two threads per row: thread `t` copies slices
# `t % 2`, `t % 2 + 2`, ... of row `t / 2` of each tile (of `b`'s also row `t / 2 + 128`), so
# that each pair reads whole 32-byte pieces of a row. A 16-byte copy needs its piece 16-byte
# aligned and wholly inside or outside the matrix: `k` and both row strides multiples of 16,
# `a` and `b` 16-byte aligned. Where they are not (rows of `b` padded by an odd count,
# `k = 17`), fill the same pieces byte by byte with plain loads and stores, zeros past `m`,
# `n` or `k`: slower, and correct. The test is the same for every thread, and the pipeline's
# barrier publishes those stores as it does the copies.
#
# **Shared memory.** 3 stages × (128 + 256) rows × 64 bytes = 73 728 bytes (72 KiB),
# dynamic: `extern __shared__ __align__(128) unsigned char smem[];`, cut into `as` and `bs`
# with casts to pointers to arrays (lab 10), `shared=` in the launcher. The epilogue's 8 int
# scratch tiles (8 KiB) reuse its start, after a `__syncthreads()`. 1 block per SM: a thread
# may use up to 255 registers (`__launch_bounds__(256, 1)`), and needs 128 for the
# accumulators.
#
# **The epilogue.** A fragment's layout in registers is unspecified, and the scales depend on
# each element's row and column. So each warp stores a finished accumulator to a 16 × 16 `int`
# scratch tile of its own (`store_matrix_sync(scratch[warp], acc, 16, wmma::mem_row_major)`),
# `__syncwarp()`, and then lane `l` takes 8 of its ints (row `l / 2`, columns `(l % 2) * 8`
# onwards): `(float)v * s_row[row] * s_col[col]`, each rounded once with
# `__float2bfloat16_rn`; `__syncwarp()` before the next fragment. Where `n` is a multiple of 8
# and `c` 16-byte aligned, the 8 bfloat16s go out as one 16-byte store (`pack`); otherwise one
# by one, those inside `c` only.
#
# <details><summary>Hint 1 — one K tile at a time first</summary>
#
# Correctness before speed: the same tiles and fragments without the pipeline. One buffer per
# tile, `for (k0 = 0; k0 < k; k0 += BK)`: fill `as` and `bs` with 16-byte copies (or byte by
# byte); `__pipeline_wait_prior(0)` and `__syncthreads()`; for each slice `s`, load `fa[i]`
# from `&as[0][s][wr + 16 i][0]` and `fb[j]` from `&bs[0][s][wc + 16 j][0]` (`ldm` 16) and
# `wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j])`; `__syncthreads()` again before the
# next K tile overwrites the buffers. Every lane of a warp makes every WMMA call, also for
# fragments past the matrix (they multiply zeros). Then make it lab 10's pipeline.
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# Thread `t`: row `r = t / 2` of the tile, slices `s = 2 g + t % 2` for `g` = 0..3 (bytes
# `k0 + 16 s` to `+ 15`). Of `a`: row `row0 + r`, into `as[buf][s][r]`; of `b`: rows
# `col0 + r` and `col0 + r + 128`, into `bs[buf][s][r]` and `bs[buf][s][r + 128]`. Sources
# `a + (long long)(row0 + r) * stride_am + k0 + 16 s` (64-bit: `row * stride` may pass 2^31
# in a large matrix). Inside where the row is below `m` (or `n`) and `k0 + 16 s < k`
# (with 16-byte copies, `k` is a multiple of 16). Byte by byte: byte `q` inside where also
# `k0 + 16 s + q < k`.
# </details>
#
# <details><summary>Hint 3 — the checks' messages</summary>
#
# "depends on thread order": a `__syncthreads()` missing around the refill. Wrong on most
# elements, as if a few values were 256 off: the fragments read the bytes as `unsigned char`.
# A WMMA call inside a branch that splits a warp, or a pointer 16 bytes past a 32-byte
# boundary, is named with its line (without a GPU; on a GPU, undefined behaviour); "read of
# dynamic shared memory at byte ...": `shared=` smaller than what the kernel cuts from `smem`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "int8_matmul_cu", "locked": false, "schema_version": 3, "solution": true}
INT8_MATMUL_CU = r"""
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// Two floats rounded to a pair of bfloat16s, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

#define BM 128      // rows of c per block
#define BN 256      // columns of c per block
#define BK 64       // depth of one K tile, in bytes
#define STAGES 3    // K tile buffers: 2 tiles in flight while one is multiplied
#define WM 64       // rows of c per warp
#define WN 64       // columns of c per warp: 4 x 4 fragments, each fragment load feeds 4 products
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 8 warps
#define GROUP_M 16  // tile rows per group of the numbering
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define PASS (THREADS / 2)  // rows of a tile one pass of the block copies: 2 threads a row
static_assert(SLICES % 2 == 0, "slice 0 of every K tile goes to register set 0");
static_assert(BM % PASS == 0 && BN % PASS == 0, "whole passes of the block's copies");

// 1 block per SM: a thread may use up to 255 registers. It needs them: 16 accumulator
// fragments (128 ints) and two sets of 4 + 4 operand fragments.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
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
    // STAGES buffers of each K tile, slice by slice: as[buf][s][r][q] = a[row0 + r][k0 + 16 s
    // + q]. Each 16 x 16 fragment is 256 contiguous bytes (ldm 16); smem is 128-byte aligned
    // and every fragment's offset a multiple of 256. The epilogue's scratch tiles (a 16 x 16
    // int tile per warp, 8 KiB) reuse the start of it.
    extern __shared__ __align__(128) unsigned char smem[];
    signed char(*as)[SLICES][BM][16] = reinterpret_cast<signed char(*)[SLICES][BM][16]>(smem);
    signed char(*bs)[SLICES][BN][16] =
        reinterpret_cast<signed char(*)[SLICES][BN][16]>(as + STAGES);
    int(*scratch)[16 * 16] = reinterpret_cast<int(*)[16 * 16]>(smem);

    // The tile of c, numbered in groups of GROUP_M tile rows (shared tiles of a and b in L2).
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // 16-byte copies where every piece is aligned and wholly inside or outside the matrix
    // (the same for all threads); byte by byte otherwise.
    const bool vec = k % 16 == 0 && stride_am % 16 == 0 && stride_bn % 16 == 0 &&
                     reinterpret_cast<size_t>(a) % 16 == 0 &&
                     reinterpret_cast<size_t>(b) % 16 == 0;

    // This thread's pieces: row cr (and cr + PASS, ...) of each tile, slices cs, cs + 2, ...
    // (two threads a row: each pair reads 32 contiguous bytes). The rows' starts, set once.
    const int cr = threadIdx.x / 2, cs = threadIdx.x % 2;
    const signed char *a_src = a + (long long)(row0 + cr) * stride_am;  // 64-bit: row * stride
    const signed char *b_src = b + (long long)(col0 + cr) * stride_bn;

    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0);

    // The copies' kind, 16-byte pieces or bytes, is a compile-time constant in each of two
    // copies of the pipeline below (VEC), one of which runs: a run-time test in every copy
    // cost the K loop 9% (8192^3 on an H100).
    struct Pieces { enum { vec = true }; };
    struct Bytes { enum { vec = false }; };
    auto pipeline = [&](auto kind) {
        constexpr bool VEC = decltype(kind)::vec;

        // One piece: 16 bytes of a row at column kk, inside the matrix if `row_in` and kk < k.
        // Outside: a copy of 0 bytes with 16 bytes of zero fill, from the matrix's start (never
        // read).
        auto piece = [&](signed char *dst, const signed char *src, const signed char *start,
                         bool row_in, int kk) {
            if constexpr (VEC) {
                const bool inside = row_in && kk < k;
                __pipeline_memcpy_async(dst, inside ? src : start, 16, inside ? 0 : 16);
            } else {  // the slow path, kept rolled: both pipelines fit 255 registers unspilled
#pragma unroll 1
                for (int q = 0; q < 16; ++q) dst[q] = row_in && kk + q < k ? src[q] : 0;
            }
        };
        // Start the copies of the K tile at k0 into buffer buf.
        auto issue = [&](int buf, int k0) {
#pragma unroll
            for (int g = 0; g < SLICES / 2; ++g) {
                const int s = 2 * g + cs, kk = k0 + 16 * s;
#pragma unroll
                for (int p = 0; p < BM / PASS; ++p)
                    piece(as[buf][s][cr + p * PASS],
                          a_src + (long long)p * PASS * stride_am + kk, a,
                          row0 + cr + p * PASS < m, kk);
#pragma unroll
                for (int p = 0; p < BN / PASS; ++p)
                    piece(bs[buf][s][cr + p * PASS],
                          b_src + (long long)p * PASS * stride_bn + kk, b,
                          col0 + cr + p * PASS < n, kk);
            }
        };

        // Two register sets of operand fragments: the products of one slice run while the
        // fragments of the next slice are loaded into the other set, hiding the loads' latency.
        wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa[2][FM];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb[2][FN];
        auto load = [&](int set, int buf, int s) {  // the fragments of slice s of buffer buf
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[set][i], &as[buf][s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[set][j], &bs[buf][s][wc + 16 * j][0], 16);
        };

        // The pipeline, as lab 10's: STAGES - 1 K tiles in flight ahead of the one multiplied,
        // tiles past k issued too (all zero fill), so that __pipeline_wait_prior(STAGES - 2)
        // always means "the next tile has landed".
        //
        //     issue tiles 0 .. STAGES - 2 (a commit each); wait for tile 0; load its slice 0
        //     for each tile t, for each slice s:
        //         last slice: wait for tile t + 1 (this thread's copies); __syncthreads()
        //         slice 0: issue tile t + STAGES - 1 into tile t - 1's buffer; commit
        //         load the next slice (after the last: slice 0 of tile t + 1), multiply slice s
        //
        // One barrier per K tile does both jobs: past it every thread's copies of tile t + 1 are
        // visible, and every warp has loaded its last fragments of tile t, so tile t's buffer may
        // be refilled (at slice 0 of tile t + 1).
        const int k_tiles = (k + BK - 1) / BK;
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            issue(s, s * BK);
            __pipeline_commit();
        }
        __pipeline_wait_prior(STAGES - 2);  // tile 0 has landed (this thread's copies)
        __syncthreads();                    // ... every thread's
        load(0, 0, 0);
        int buf = 0;  // tile t's buffer
        for (int t = 0; t < k_tiles; ++t) {
            const int next = buf + 1 == STAGES ? 0 : buf + 1;    // tile t + 1's
            const int refill = buf == 0 ? STAGES - 1 : buf - 1;  // tile t - 1's, now free
#pragma unroll
            for (int s = 0; s < SLICES; ++s) {
                if (s == SLICES - 1) {
                    __pipeline_wait_prior(STAGES - 2);  // tile t + 1 has landed (this thread's)
                    __syncthreads();  // ... every thread's; every warp is done loading tile t
                }
                if (s == 0) {
                    issue(refill, (t + STAGES - 1) * BK);
                    __pipeline_commit();
                }
                if (s + 1 < SLICES)  // slice s + 1 into the other register set...
                    load((s + 1) % 2, buf, s + 1);
                else  // ... or slice 0 of the next tile (SLICES is even: set 0)
                    load(0, next, 0);
#pragma unroll
                for (int i = 0; i < FM; ++i)
#pragma unroll
                    for (int j = 0; j < FN; ++j)
                        wmma::mma_sync(acc[i][j], fa[s % 2][i], fb[s % 2][j], acc[i][j]);
            }
            buf = next;
        }
    };
    if (vec)
        pipeline(Pieces{});
    else
        pipeline(Bytes{});
    __pipeline_wait_prior(0);  // the zero fills past k have landed too
    __syncthreads();           // the buffers become the scratch tiles: every warp is done

    // Epilogue: int accumulator -> scratch tile -> 8 elements per lane, scaled in float32,
    // each rounded once to bfloat16; one 16-byte store where every row of c starts on a
    // 16-byte boundary (8 columns from a multiple of 8 then end inside c or at its edge).
    const bool wide = n % 8 == 0 && reinterpret_cast<size_t>(c) % 16 == 0;
    int *mine = scratch[warp];
    const int r = lane / 2, h = lane % 2 * 8;  // row r of a fragment, columns h .. h + 7
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past c
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int4 lo = *reinterpret_cast<const int4 *>(mine + r * 16 + h);
            const int4 hi = *reinterpret_cast<const int4 *>(mine + r * 16 + h + 4);
            const int v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
            const int row = frow + r, col = fcol + h;
            if (row < m) {
                const float sr = s_row[row];
                __nv_bfloat16 *out = c + (long long)row * n + fcol;  // the fragment's row
                if (wide) {
                    if (col < n) {
                        float f[8];
#pragma unroll
                        for (int q = 0; q < 8; ++q) f[q] = (float)v[q] * sr * s_col[col + q];
                        // Indexed as uint4s (nvcc 13 split `*(uint4 *)(out + h)` into four
                        // 4-byte stores).
                        reinterpret_cast<uint4 *>(out)[lane % 2] = make_uint4(
                            pack(f[0], f[1]), pack(f[2], f[3]), pack(f[4], f[5]), pack(f[6], f[7]));
                    }
                } else {
#pragma unroll
                    for (int q = 0; q < 8; ++q)
                        if (col + q < n)
                            out[h + q] = __float2bfloat16_rn((float)v[q] * sr * s_col[col + q]);
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
    WMMA, 8 warps per 128 x 256 tile of c.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(256, 1, 1), grid=(tiles, 1) and shared= the bytes of
    the kernel's dynamic shared memory.
    """
    ### BEGIN SOLUTION
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) \
        and s_col.shape == (n,), (f"shapes do not chain: a {tuple(a.shape)}, b "
                                  f"{tuple(b.shape)}, c {tuple(c.shape)}")
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    bm, bn, bk, stages = 128, 256, 64, 3  # BM, BN, BK, STAGES in INT8_MATMUL_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
    smem = stages * (bm + bn) * bk  # bytes: STAGES buffers of as and bs
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
        block=(256, 1, 1),
        grid=(tiles, 1),
        shared=smem,  # 147456 bytes, over 48 KiB: SourceModule's launch makes the opt-in
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
# The int8 tensor cores of an H100 or H200 run at twice the float16 rate. The CUDA kernel
# feeds them as lab 10's float16 kernel does (bigger warp tiles, K tiles in flight, a grouped
# numbering of the tiles); the epilogue is the part that is new, and it costs the same at any
# `k`: a larger share of the time at 4096³ than at 8192³.

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
