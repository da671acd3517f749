# %% [markdown]
# # Lab 15 — Simple inference: a linear layer with its activation fused, in Triton and in CUDA C
#
# The MLP of a transformer block is two or three linear layers with an activation between
# them. The first, in inference, is
#
#     y = gelu_tanh(x · Wᵀ + b)
#
# with `x` the activations of `m` tokens (`m × k`), `W` the layer's weight (`n × k`, as
# `torch.nn.Linear` stores it) and `b` its bias (`[n]`). Eager torch runs it as two kernels:
# `F.linear` (a cuBLAS GEMM, the bias added in its epilogue) writes `y`, then `F.gelu` reads
# `y` back and writes it again. Every element of `y` crosses the memory bus three times instead
# of once. A **fused** kernel applies the bias and the activation to the accumulator, in
# registers, after the loop over `k` and **before the one store**: the *epilogue*.
#
# **The exercise.** `y = gelu_tanh(x · wᵀ + b)` in **bfloat16**:
#
# - `x`: bfloat16, `m × k`, row-major; its rows may be **padded** (`x.stride(0)` ≥ `k`);
# - `w`: bfloat16, **`n × k`**, row-major: row `j` of `w` is column `j` of `Wᵀ`, so `Wᵀ` is
#   `k × n` **column-major** (WMMA's `col_major` `matrix_b`). Its rows may be padded too;
# - `b`: bfloat16 `[n]`;
# - `y`: bfloat16 `m × n`, contiguous, allocated: write into it.
#
# `gelu_tanh(v) = 0.5 v (1 + tanh(sqrt(2/π) (v + 0.044715 v³)))`, torch's
# `F.gelu(v, approximate="tanh")` (lab 04). Any `m`, `n`, `k`.
#
# **Three rules of the arithmetic.**
#
# 1. **Sum in float32.** The tensor cores multiply bfloat16s exactly and add in float32; a
#    bfloat16 running sum keeps 8 significant bits and loses the small terms.
# 2. **The epilogue in float32**: `v = acc + b[j]` (the bias before the activation), then
#    GELU's **tanh** form (the erf form is another function: up to 4.7e-4 apart).
# 3. **Round once**, to bfloat16, at the store.
#
# The check compares with the float64 result, at one bfloat16 ulp relative (1e-4 absolute).
#
# **What you will learn**
# - bfloat16 on the tensor cores: `tl.dot` into a float32 accumulator; WMMA `__nv_bfloat16`
#   fragments and a `float` accumulator;
# - the **epilogue**: bias and activation applied to the accumulator before the one store,
#   against a GEMM and then an element-wise kernel (one more read and write of `y`);
# - where the saving matters: at a decode-like batch (64 tokens) the kernel is bound by
#   reading `W`; at a prefill-like batch (4096 tokens) by the multiply-adds.
#
# **What you write**: a Triton kernel and its launcher, a CUDA C kernel (in a source string)
# and its launcher.
#
# **How you are graded**: correctness on shapes you do not see (1 × 1 × 1, thin products,
# tails on every axis, padded rows, rows not 16-byte aligned), fresh random inputs, compared
# with a float64 result; on a GPU, the time of your kernels at 64 × 4096 × 4096 and
# 4096 × 4096 × 4096 against reference kernels, in TFLOP/s and against cuBLAS + a GELU kernel.
# Without a GPU, Triton runs in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported.
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab15_fused_linear"

# %% [markdown]
# ## Part 1 — Triton
#
# Lab 10's float16 kernel, with `b` of lab 14's layout and a new epilogue:
#
# - **the blocks are bfloat16**, loaded as they are (half the bytes of float32), and summed in
#   `acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)`. Masked loads fill with
#   `other=0.0`. `tl.dot` multiplies the bfloat16 blocks themselves on the tensor cores:
#   `acc = tl.dot(x_blk, w_blk, acc)`. A product of two bfloat16s is exact in float32, and the
#   sum is float32 (widening the blocks to float32 first gives the same numbers through TF32,
#   at half the rate);
# - **`w` is `n × k`**: the `BLOCK_SIZE_K × BLOCK_SIZE_N` block `tl.dot` wants is
#   `w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]`;
# - **the epilogue**: the bias as a row (`[None, :]`), then GELU, then `.to(tl.bfloat16)` and
#   the masked store. `tanh` is not in the interpreter (`libdevice.tanh` needs a GPU):
#   `0.5 (1 + tanh(u)) = sigmoid(2u)`, so `gelu_tanh(v) = v / (1 + exp(-2u))`.
#
# <details><summary>Hint 1 — the offsets</summary>
#
# As in lab 14: `pid` → `pid_m`, `pid_n` (64-bit), `offs_m`, `offs_n`; inside
# `for k0 in range(0, k, BLOCK_SIZE_K)`, `offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)`. The block
# of `x` is at `x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]`, the block of `Wᵀ` at
# `w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]` (element `[kk, j]` is `w[j, kk]`).
# </details>
#
# <details><summary>Hint 2 — masks, and "elements differ" on most shapes</summary>
#
# `x`'s block: `(offs_m[:, None] < m) & (offs_k[None, :] < k)`, `other=0.0`; `Wᵀ`'s block:
# `(offs_k[:, None] < k) & (offs_n[None, :] < n)`. Wrong where `k` is not a multiple of
# `BLOCK_SIZE_K` only: the `k` part of a mask. A few elements wrong on every shape, 16³
# included: the sum kept (or rounded) in bfloat16 before the epilogue.
# </details>
#
# <details><summary>Hint 3 — the epilogue, and its order</summary>
#
# `bias = tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)`;
# `v = acc + bias[None, :]`, then GELU of `v`. The bias goes **inside** the activation
# (`gelu(acc) + b` is another layer: wrong on most elements). Wrong only where `y` is small
# (around `v ≈ -3`): the erf form of GELU, or a bfloat16 rounding before GELU.
# </details>
#
# <details><summary>Hint 4 — GELU in float32</summary>
#
# `u = 0.7978845608028654 * (v + 0.044715 * v * v * v)` (`sqrt(2/π)`), then
# `out = v / (1.0 + tl.exp(-2.0 * u))`: for `v` far below zero, `exp` overflows to `inf` and
# `out` is `-0.0`, as it should be. Store `out.to(tl.bfloat16)` at
# `y_ptr + offs_m[:, None] * n + offs_n[None, :]` with the mask of rows below `m` and columns
# below `n`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "linear_gelu_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def linear_gelu_kernel(
    x_ptr,  # x: m x k bfloat16, rows stride_xm elements apart
    w_ptr,  # w: n x k bfloat16 (W^T = w^T, k x n column-major), rows stride_wn elements apart
    b_ptr,  # b: [n] bfloat16
    y_ptr,  # y: m x n bfloat16, contiguous
    m,  # rows of x and y
    n,  # rows of w, columns of y
    k,  # columns of x and w
    stride_xm,  # elements between the starts of two rows of x (>= k)
    stride_wn,  # elements between the starts of two rows of w (>= k)
    BLOCK_SIZE_M: tl.constexpr,  # rows of y per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of y per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    pid_m = (pid // tiles_n).to(tl.int64)  # 64-bit offsets from here
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of x and y
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # rows of w, columns of y
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        # Past m, n or k: zeros, which add nothing.
        x_blk = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
        # W^T's block, BLOCK_SIZE_K x BLOCK_SIZE_N: element [kk, j] is w[j, kk].
        w_blk = tl.load(w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None],
                        mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
        acc = tl.dot(x_blk, w_blk, acc)  # bfloat16 products, exact; a float32 sum
    # The epilogue, in float32 on the accumulator: the bias, then GELU (tanh form, as
    # v * sigmoid(2u)); one rounding to bfloat16 at the store.
    bias = tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)
    v = acc + bias[None, :]
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2 / pi) (v + 0.044715 v^3)
    out = v / (1.0 + tl.exp(-2.0 * u))
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # y's edges
    tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16), mask=mask)
    ### END SOLUTION


def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                       y: torch.Tensor) -> None:
    """y = gelu_tanh(x @ w.T + b) in bfloat16, float32 accumulation."""
    ### BEGIN SOLUTION
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"shapes do not chain: x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 64, 64, 32
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    linear_gelu_kernel[grid](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C: bfloat16 WMMA fragments and a fused epilogue
#
# Lab 14's kernel with bfloat16 in place of int8: `matrix_a` and `matrix_b` fragments of
# `__nv_bfloat16` (shape 16 × 16 × 16) and an `accumulator` of `float`.
#
# | call | here |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;` | a 16 × 16 tile of `x`, rows along `k` |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;` | a 16 × 16 tile of `Wᵀ`, column-major: 16 rows of `w`, along `k` |
# | `wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;` | the float32 sums; `wmma::fill_fragment(acc, 0.0f)` |
# | `wmma::load_matrix_sync(f, ptr, ldm)` | `ldm` a multiple of 8 elements (16 bytes); `ptr` **32-byte aligned** |
#
# **The block.** 128 threads = 4 warps per 64 × 64 tile of `y`, arranged 2 × 2: each warp
# owns a 32 × 32 piece, 2 × 2 accumulator fragments. The block walks along `k` in K tiles of
# `BK` = 32 elements, stored as `BK / 16` **slices** of 64 × 16 (`xs[s][r][q] =
# x[row0 + r][k0 + 16 s + q]`, `ws[s][j][q] = w[col0 + j][k0 + 16 s + q]`): a fragment is 512
# contiguous bytes, `&xs[s][wr + 16 i][0]` with `ldm` 16.
#
# **Filling them.** A K tile of `x` is 64 rows × 4 pieces of 8 elements (16 bytes): 256
# pieces, 2 per thread; of `w` the same. Where every piece is wholly inside or outside and
# 16-byte aligned (`k` and both row strides multiples of 8, the pointers aligned), copy a piece
# as one `int4`, zeros outside; otherwise element by element, zeros past `m`, `n` or `k`.
# `__syncthreads()` before the fragments are loaded, and again before the next K tile
# overwrites them.
#
# **The epilogue.** The bias depends on each element's column, and a fragment's layout in
# registers is unspecified: each warp stores a finished accumulator to a 16 × 16 `float`
# scratch tile of its own (`store_matrix_sync(scratch[warp], acc, 16, wmma::mem_row_major)`),
# `__syncwarp()`, and lane `l` takes 8 of its floats (row `l / 2`, columns `(l % 2) * 8`
# onwards): `v = acc + __bfloat162float(b[col])`, GELU with `tanhf`, rounded once with
# `__float2bfloat16_rn`, stored if inside `y`; `__syncwarp()` before the next fragment.
#
# <details><summary>Hint 1 — the loop over K tiles</summary>
#
# `for (k0 = 0; k0 < k; k0 += BK)`: fill `xs` and `ws`; `__syncthreads()`; for each slice
# `s`: load `fa[i]` from `&xs[s][wr + 16 i][0]` and `fb[j]` from `&ws[s][wc + 16 j][0]`
# (`ldm` 16), `wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j])`; `__syncthreads()`. Every
# lane of a warp makes every WMMA call, also for fragments past the matrix (they multiply
# zeros).
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# Piece `e = threadIdx.x + p * 128` (`p` = 0, 1) is row `r = e / 4` of the tile and piece
# `q8 = e % 4` of it: elements `k0 + 8 q8` to `+ 7` of row `row0 + r` of `x`, into
# `xs[q8 / 2][r][8 (q8 % 2)]` (as `*reinterpret_cast<int4 *>(...)`). The same for `w` with
# `col0`. Element by element: `e` from `threadIdx.x` to `64 * BK` in steps of 128, row
# `e / BK`, element `q = e % BK`, slice `q / 16`. Offsets in 64 bits:
# `(long long)row * stride_xm`. A zero is `__float2bfloat16(0.0f)`.
# </details>
#
# <details><summary>Hint 3 — the epilogue</summary>
#
# `const float v = mine[(lane / 2) * 16 + h + q] + __bfloat162float(b[col]);`
# `const float g = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));`
# `out[col] = __float2bfloat16_rn(g);`. A warp whose fragment lies wholly past `y` skips it
# as a whole (`continue` before `store_matrix_sync`), so no WMMA call splits a warp.
# </details>
#
# <details><summary>Hint 4 — the checks' messages</summary>
#
# "depends on thread order": a `__syncthreads()` missing before or after the multiply-adds.
# Wrong on most elements: the bias after the activation, or `Wᵀ` read as row-major (`w` as
# `k × n`). A WMMA call inside a branch that splits a warp, or a pointer 16 bytes past a
# 32-byte boundary, is named with its line (without a GPU; on a GPU, undefined behaviour).
# </details>

# %% nbgrader={"grade": false, "grade_id": "linear_gelu_cu", "locked": false, "schema_version": 3, "solution": true}
LINEAR_GELU_CU = r"""
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64    // rows of y per block
#define BN 64    // columns of y per block
#define BK 32    // depth of one K tile, in elements
#define WM 32    // rows of y per warp
#define WN 32    // columns of y per warp
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 4 warps
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define PIECES (BK / 8)   // 16-byte pieces of a row of a K tile
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across

extern "C" __global__ void __launch_bounds__(THREADS)
linear_gelu_kernel(const __nv_bfloat16 *__restrict__ x,  // m x k, rows stride_xm apart
                   const __nv_bfloat16 *__restrict__ w,  // n x k (W^T col-major), stride_wn apart
                   const __nv_bfloat16 *__restrict__ b,  // [n]
                   __nv_bfloat16 *__restrict__ y,        // m x n, contiguous
                   int m,                                // rows of x and y
                   int n,                                // rows of w, columns of y
                   int k,                                // columns of x and w
                   int stride_xm,                        // elements between rows of x
                   int stride_wn)                        // elements between rows of w
{
    /// BEGIN SOLUTION
    // K tiles slice by slice: xs[s][r][q] = x[row0 + r][k0 + 16 s + q]. Each 16 x 16 fragment
    // is 512 contiguous bytes, 32-byte aligned (ldm 16).
    __shared__ __align__(32) __nv_bfloat16 xs[SLICES][BM][16];
    __shared__ __align__(32) __nv_bfloat16 ws[SLICES][BN][16];
    __shared__ __align__(32) float scratch[THREADS / 32][16 * 16];  // a warp's epilogue tile

    const int tiles_n = (n + BN - 1) / BN;
    const int row0 = blockIdx.x / tiles_n * BM, col0 = blockIdx.x % tiles_n * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // 16-byte pieces where each is wholly inside or outside and aligned; the same for all.
    const bool vec = k % 8 == 0 && stride_xm % 8 == 0 && stride_wn % 8 == 0 &&
                     reinterpret_cast<size_t>(x) % 16 == 0 &&
                     reinterpret_cast<size_t>(w) % 16 == 0;
    const __nv_bfloat16 bzero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[FN];

    for (int k0 = 0; k0 < k; k0 += BK) {
        if (vec) {
            for (int e = threadIdx.x; e < BM * PIECES; e += THREADS) {  // 2 pieces a thread
                const int r = e / PIECES, p = e % PIECES, kk = k0 + 8 * p;
                const int4 zero = make_int4(0, 0, 0, 0);
                const __nv_bfloat16 *px = x + (long long)(row0 + r) * stride_xm + kk;  // 64-bit
                const __nv_bfloat16 *pw = w + (long long)(col0 + r) * stride_wn + kk;
                *reinterpret_cast<int4 *>(&xs[p / 2][r][8 * (p % 2)]) =
                    row0 + r < m && kk < k ? *reinterpret_cast<const int4 *>(px) : zero;
                *reinterpret_cast<int4 *>(&ws[p / 2][r][8 * (p % 2)]) =
                    col0 + r < n && kk < k ? *reinterpret_cast<const int4 *>(pw) : zero;
            }
        } else {  // element by element: zeros past m, n or k
            for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
                const int r = e / BK, q = e % BK, kk = k0 + q;
                xs[q / 16][r][q % 16] =
                    row0 + r < m && kk < k ? x[(long long)(row0 + r) * stride_xm + kk] : bzero;
                ws[q / 16][r][q % 16] =
                    col0 + r < n && kk < k ? w[(long long)(col0 + r) * stride_wn + kk] : bzero;
            }
        }
        __syncthreads();  // the tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &xs[s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], &ws[s][wc + 16 * j][0], 16);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp is done with the tiles before they are refilled
    }

    // Epilogue: float accumulator -> scratch tile -> 8 elements per lane: the bias, GELU's
    // tanh form in float32, one rounding to bfloat16.
    float *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past y
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int row = frow + lane / 2, h = lane % 2 * 8;
            if (row < m) {
                __nv_bfloat16 *out = y + (long long)row * n;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + h + q;
                    if (col < n) {
                        const float v = mine[(lane / 2) * 16 + h + q] + __bfloat162float(b[col]);
                        const float g =
                            0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
                        out[col] = __float2bfloat16_rn(g);
                    }
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "linear_gelu_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
linear_gelu_kernel_cu = SourceModule(LINEAR_GELU_CU, no_extern_c=True).get_function(
    "linear_gelu_kernel")


def linear_gelu_cuda(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                     y: torch.Tensor) -> None:
    """y = gelu_tanh(x @ w.T + b) in bfloat16 with linear_gelu_kernel_cu: WMMA, 4 warps per
    64 x 64 tile of y.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(128, 1, 1) and grid=(tiles, 1).
    """
    ### BEGIN SOLUTION
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"shapes do not chain: x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    bm, bn = 64, 64  # BM and BN in LINEAR_GELU_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
    linear_gelu_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(w.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(y.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(x.stride(0)),
        np.int32(w.stride(0)),
        block=(128, 1, 1),
        grid=(tiles, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Shapes: one fragment (16³), whole tiles (32 × 48 × 64), tails on every axis (17 × 33 × 40),
# `k = 256`, padded rows of `x`. A failure names the shape (`m`, `n`, `k`) and the first
# wrong elements of `y` by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", linear_gelu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", linear_gelu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", linear_gelu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", linear_gelu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launcher against eager torch,
# `F.gelu(F.linear(x, w, b), approximate="tanh")`: a cuBLAS GEMM that writes `y`, then a GELU
# kernel that reads `y` back and writes it again. Graded at a decode-like batch (64 × 4096 ×
# 4096: 34 MB of weight read for 2 GFLOP, bound by memory) and a prefill-like one (4096 ×
# 4096 × 4096: 137 GFLOP, bound by the tensor cores), in TFLOP/s; the sweep goes from 16 to
# 4096 rows. Without a GPU it says "skipped: needs a GPU". (Not measured yet on the course GPU.)
#
# What the fusion saves is the second pass over `y`: `2 · 2 · m · n` bytes (a read and a
# write of bfloat16) and a launch. At 64 rows that is 1 MB beside 34 MB of weight; at 4096
# rows, 67 MB beside the GEMM's own traffic. Where lab 10's float16 kernel went next —
# cp.async double buffering, bigger warp tiles, a grouped numbering of the tiles — goes for
# this one too; the epilogue costs the same at any `k`.

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", linear_gelu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", linear_gelu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", linear_gelu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", linear_gelu_cuda, graded=True)
### END HIDDEN TESTS
