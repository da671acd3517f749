# %% [markdown]
# # Lab 10 — Matrix multiplication, in Triton and in CUDA C
#
# `c = a @ b`: `c[i, j] = sum over kk of a[i, kk] * b[kk, j]`, for `a` of `m × k` and `b` of
# `k × n`. The rows of `a` and `b` may be **padded** (`a.stride(0)` can be larger than `k`,
# `b.stride(0)` larger than `n`; the padding holds NaN), their columns are adjacent. `c` is
# `m × n`, contiguous, and arrives allocated: write into it.
#
# Every earlier lab was **memory-bound**: a few operations per element, so the time was the
# time to move the bytes, and the goal was the copy roof. A matrix product is different. It
# reads `m k + k n` numbers and writes `m n`, but does `2 m n k` operations: at 4096³ that is
# 680 floating-point operations per byte of minimum traffic. Done well, the time goes to
# arithmetic; done naively, every operand is fetched from memory again for each product, and
# the time goes to memory after all. This lab is about the difference.
#
# **What you will learn**
# - **arithmetic intensity** and the roofline: why a matmul can be compute-bound when every
#   other lab was memory-bound, and what "can" depends on;
# - **tiling**: a block computes a tile of `c`, and stages the tiles of `a` and `b` it needs in
#   shared memory, so each element is fetched from memory once per tile instead of once per
#   product; then **register tiling**: each thread computes a small tile of `c` from values it
#   holds in registers, so each shared-memory read feeds several multiply-adds;
# - **`tl.dot`** and its precision: on float32 blocks it uses the tensor cores in **TF32** by
#   default (10 mantissa bits instead of 23), which fails a float32 tolerance;
#   `input_precision="ieee"` asks for float32;
# - **tensor cores** for float16: a warp multiplies 16 × 16 × 16 tiles in one instruction,
#   **accumulating in float32**; in CUDA C through WMMA fragments (`<mma.h>`), fed from shared
#   memory that `__pipeline_memcpy_async` (cp.async) fills for the next K tile while the
#   current one is multiplied (**double buffering**);
# - a 1-D grid of tiles, numbered in **groups** so that blocks running together share their
#   tiles of `a` and `b` in the L2 cache; 64-bit offsets.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | which tile of `c` am I? | one program per `BLOCK_SIZE_M × BLOCK_SIZE_N` tile on a 1-D grid: `pid = tl.program_id(0)`, then `pid_m`, `pid_n` from it | one block per tile on a 1-D grid: `blockIdx.x`, then the tile's row and column from it; `threadIdx.x` inside |
# | walk along `k` | `for k0 in range(0, k, BLOCK_SIZE_K)`: load a `BLOCK_SIZE_M × BLOCK_SIZE_K` block of `a` and a `BLOCK_SIZE_K × BLOCK_SIZE_N` block of `b` | the same loop; each K tile is first copied into `__shared__` arrays by the whole block |
# | the tails of `m`, `n`, `k` | masks on the loads, `other=0.0`: a zero adds nothing to the sum; a mask on the store | bounds checks when filling the shared tiles (zeros outside) and when writing `c` |
# | staging and reuse | the compiler: `tl.dot`'s operands go through shared memory, laid out for it | by hand: `__shared__` tiles, `__syncthreads()` after filling them and before refilling them |
# | the multiply-adds | `acc = tl.dot(a, b, acc)`, a `BLOCK_SIZE_M × BLOCK_SIZE_N` float32 accumulator in registers | float32: each thread keeps an 8 × 8 tile of `c` in registers; float16: WMMA fragments, `wmma::mma_sync` |
# | float32 precision | `input_precision="ieee"` (the default `"tf32"` rounds the inputs to 10 mantissa bits) | plain `float` arithmetic is IEEE |
# | tensor cores, float16 | `tl.dot` on float16 blocks, float32 accumulator | `nvcuda::wmma`: `matrix_a`, `matrix_b` fragments of `__half`, an `accumulator` fragment of `float` |
# | prefetch the next K tile | `num_stages=3`: the compiler pipelines the loop | `__pipeline_memcpy_async` into the other buffer, `__pipeline_commit()`, `__pipeline_wait_prior(1)` |
# | offsets past 2^31 − 1 | `.to(tl.int64)` on the tile's row and column numbers | `(long long)` on each `row * stride` |
#
# **What you write**, for each of two exercises: a Triton kernel and its launcher, a CUDA C
# kernel (in a source string) and its launcher.
# 1. `matmul_fp32`: float32 in, float32 out, any sizes.
# 2. `matmul_fp16`: float16 in, float32 accumulation, float16 out, on the tensor cores; `m`,
#    `n` and `k` multiples of 16.
#
# **How you are graded**: correctness on many shapes you do not see (1 × 1 × 1, thin and long
# products, tails on every axis, padded rows, an input that does not start on a 16-byte
# boundary; on a GPU also views whose offsets pass 2^31 and grids of more than 65535 tiles),
# fresh random inputs, compared with a float64 product; on a GPU, the time of your kernels at
# 4096³ (and 8192³ in float16) against reference kernels, reported in TFLOP/s and against
# cuBLAS. Without a GPU, Triton runs in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab10_matmul"

# %% [markdown]
# ## Why a matmul can be compute-bound
#
# A GPU has two ceilings. An H200 moves about 4.3 TB/s between its memory and its cores (the
# copy roof these labs measured on one), and computes about 67 TFLOP/s in plain float32 (its
# CUDA cores) or about 990 TFLOP/s in float16 on its tensor cores (the vendor's dense
# figures). Divide one by the other: a kernel needs
# about 16 float32 operations per byte it moves to keep the CUDA cores busy, about 230 float16
# operations per byte for the tensor cores. That ratio of work to traffic is the kernel's
# **arithmetic intensity**; below the ceiling's ratio the kernel waits for memory
# (memory-bound: every earlier lab, at well under 1 operation per byte), above it, for
# arithmetic (compute-bound). Drawn as attainable FLOP/s against intensity, the two ceilings
# make the **roofline**: a slope, then a flat roof.
#
# The intensity of a matmul depends on how it is computed:
#
# - **naively**, one thread per element of `c`, each reading its row of `a` and column of `b`
#   from memory: 2 loads per multiply-add, 1/4 operation per byte (float32). Caches catch some
#   of the re-reads; it is still memory-bound, far below the roof.
# - **with tiles**: a block that computes a `T × T` tile of `c` needs a `T × k` strip of `a`
#   and a `k × T` strip of `b`. Loaded once into shared memory, K tile by K tile, each element
#   of the strips is used `T` times. The traffic drops by a factor `T`: at `T = 128`, 32
#   float32 operations per byte fetched, past the float32 ridge.
# - and **the minimum**: each matrix read once, `c` written once: `2 m n k / (4 (m k + k n +
#   m n))` = 680 operations per byte at 4096³ in float32. No kernel gets there (the tiles of
#   `a` are re-read for every column of tiles), but it says the work dominates.
#
# Tiling moves the bottleneck from memory to the next level down: shared memory. In the
# tiled kernel each multiply-add still reads two numbers from shared memory; shared memory is
# fast, but not that fast. The last step keeps operands in **registers**: a thread that
# computes an 8 × 8 piece of `c` reads 8 values of `a` and 8 of `b` per step of `kk` and does
# 64 multiply-adds with them. That is where the arithmetic units finally become the limit.
#
# So this lab measures **TFLOP/s** (`2 m n k` per call over the time), not GB/s, and compares
# you with cuBLAS (what `a @ b` runs), timed beside the reference on the same GPU.
#
# ## Exercise 1 — float32
#
# ### Part 1 — Triton
#
# One program per `BLOCK_SIZE_M × BLOCK_SIZE_N` tile of `c`. It loops over `k` in steps of
# `BLOCK_SIZE_K`: loads a `BLOCK_SIZE_M × BLOCK_SIZE_K` block of `a` (rows `offs_m`, columns
# `offs_k`) and a `BLOCK_SIZE_K × BLOCK_SIZE_N` block of `b`, and adds their product to a
# float32 accumulator, `acc = tl.dot(a_blk, b_blk, acc)`. After the loop it stores `acc`. The
# staging in shared memory and the split of the product among threads are the compiler's.
#
# **The grid.** Tiles are numbered on a **1-D grid**: `pid = tl.program_id(0)` runs over
# `cdiv(m, BLOCK_SIZE_M) * cdiv(n, BLOCK_SIZE_N)` tiles, and the tile's row and column come
# from it (`pid // tiles_n`, `pid % tiles_n`). A 2-D grid would work too, but its second and
# third axes stop at 65535 programs: 8.4 million columns of `c` in tiles of 128 is 65625.
#
# **The tails.** Each of `m`, `n`, `k` may stop inside a block. Rows of `a` past `m` and
# columns of `b` past `n` only feed elements of `c` that are not stored; but columns of `a`
# and rows of `b` past `k` would add garbage into elements that are: load them with
# `other=0.0`, and the extra terms add zero.
#
# **Precision: TF32.** On float32 blocks, `tl.dot` runs on the tensor cores in **TF32** unless
# told otherwise: each input is cut to 10 mantissa bits (float32 has 23), the products are
# summed in float32. That is ~1000 times faster than float32 on the CUDA cores and good enough
# for much of deep learning, but it is not float32: each product is off by about 2^-11
# relative, and over `k = 1000` terms the sum by about 1e-2 where float32's own rounding errs
# by 1e-5. The checks compare with a float64 product at a float32 tolerance, and TF32 fails
# them on every shape but 1 × 1 × 1 (without a GPU, the grader's interpreter rounds as the
# tensor cores do). `tl.dot(a_blk, b_blk, acc, input_precision="ieee")` computes in float32:
# on a GPU that is the CUDA cores' fused multiply-adds, the same arithmetic as Part 2.
#
# <details><summary>Hint 1 — the tile, the offsets, the loop</summary>
#
# With `pid_m`, `pid_n` the tile's row and column: `offs_m = pid_m * BLOCK_SIZE_M +
# tl.arange(0, BLOCK_SIZE_M)`, `offs_n` likewise. Inside `for k0 in range(0, k,
# BLOCK_SIZE_K)`: `offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)`; the block of `a` is at
# `a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]`, the block of `b` at
# `b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]`. Start with
# `acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)`.
# </details>
#
# <details><summary>Hint 2 — masks, and "wrong by about 1e-2"</summary>
#
# `a`'s block: `(offs_m[:, None] < m) & (offs_k[None, :] < k)`, `other=0.0`; `b`'s:
# `(offs_k[:, None] < k) & (offs_n[None, :] < n)`. The store: rows below `m`, columns below
# `n`, at `c_ptr + offs_m[:, None] * n + offs_n[None, :]`. Right on 1 × 1 × 1 and wrong by
# 1e-3 to 1e-1 everywhere else: TF32, see above.
# </details>
#
# <details><summary>Hint 3 — 64 bits, and the launch</summary>
#
# `offs_m * stride_am` passes 2^31 − 1 on large or widely padded matrices, and so does
# `offs_k * stride_bk`: make `pid_m` and `pid_n` int64 (`.to(tl.int64)`), and `offs_k` too
# (`.to(tl.int64)`) before it multiplies a stride. The launch:
# `grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)`; pass `a.stride(0)`
# and `b.stride(0)`, never `k` and `n` in their place (padded rows).
# </details>

# %% nbgrader={"grade": false, "grade_id": "matmul_fp32_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def matmul_fp32_kernel(
    a_ptr,  # a: m x k float32, rows stride_am elements apart
    b_ptr,  # b: k x n float32, rows stride_bk elements apart
    c_ptr,  # c: m x n float32, contiguous
    m,  # rows of a and c
    n,  # columns of b and c
    k,  # columns of a, rows of b
    stride_am,  # elements between the starts of two rows of a (>= k)
    stride_bk,  # elements between the starts of two rows of b (>= n)
    BLOCK_SIZE_M: tl.constexpr,  # rows of c per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of c per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    # 64-bit from here on: offs_m * stride_am passes 2^31 - 1 on large matrices.
    pid_m = (pid // tiles_n).to(tl.int64)
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of a and c
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # columns of b and c
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = (k0 + tl.arange(0, BLOCK_SIZE_K)).to(tl.int64)  # * stride_bk: 64-bit
        # The last block of rows, of columns and of k runs past the matrix: zeros there add
        # nothing to the sum (and rows past m, columns past n, are never stored).
        a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
        b_blk = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :],
                        mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
        # IEEE float32: the default, TF32, keeps 10 of the 23 mantissa bits of each input.
        acc = tl.dot(a_blk, b_blk, acc, input_precision="ieee")
    # The last tiles of rows and columns run past c.
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc, mask=mask)
    ### END SOLUTION


def matmul_fp32_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float32, one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of c."""
    ### BEGIN SOLUTION
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    # 64 x 64 tiles, 32 deep: 4 warps each hold 32 elements of the accumulator per thread.
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 64, 64, 32
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    matmul_fp32_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4)
    ### END SOLUTION


# %% [markdown]
# ### Part 2 — CUDA C: shared-memory tiles, then register tiles
#
# One block of 256 threads per `BM × BN` = 128 × 128 tile of `c`, numbered on a 1-D grid as in
# Triton. The block walks along `k` in K tiles of `BK` = 8:
#
# 1. **fill**: the block copies the `BM × BK` piece of `a` and the `BK × BN` piece of `b` into
#    `__shared__` arrays, 4 + 4 elements per thread, zeros where the piece runs past the
#    matrix;
# 2. `__syncthreads()`: every element is in shared memory before anyone reads one;
# 3. **multiply**: for each `kk` of the K tile, every thread reads the values it needs from
#    shared memory into registers and does its multiply-adds;
# 4. `__syncthreads()` again: nobody refills the tiles while a slower warp is still reading
#    them.
#
# **Register tiles.** With one element of `c` per thread, a 128 × 128 tile would need 16384
# threads, and each multiply-add would read two floats from shared memory: shared memory's
# bandwidth, not the arithmetic, would set the pace. Instead each of the 256 threads owns an
# 8 × 8 piece of `c`, 64 float accumulators in registers. Per `kk` it reads 8 values of `a`'s
# column `kk` and 8 of `b`'s row `kk`, and does all 64 products of the two: 16 reads for 64
# multiply-adds, a quarter of the shared-memory traffic per operation, in registers the
# compiler can schedule freely.
#
# **Which 8 × 8?** Thread `t` has `tx = t % 16`, `ty = t / 16`. Its rows are `ty * 4 + 0..3`
# and `64 + ty * 4 + 0..3`, its columns `tx * 4 + 0..3` and `64 + tx * 4 + 0..3`: two groups of
# 4, 64 apart, not 8 in a row. The reason is shared memory's **banks** (lab 09): the 16
# threads of a half-warp with different `tx` read `b`'s row `kk` at 16 consecutive groups of 4
# floats, as `float4`s, 256 contiguous bytes: served without conflicts. Eight in a row would
# place the groups 32 bytes apart, two of them in the same banks.
#
# **`a` is stored transposed** in shared memory, `as[kk][i]`: the 8 values a thread needs from
# `a` are then 2 × 4 consecutive floats of one row of `as`, two `float4` reads, like `b`'s. A
# row of `as` is `BM + 4` floats long: filling it writes `as[kk][i]` for 8 consecutive `kk`
# and 4 consecutive `i` per warp, and without the 4 extra floats those 32 writes would land
# in 4 banks (8 threads each, one after another). With them, row `kk` starts `4 kk` banks
# further: 32 banks.
#
# **Faster: the next K tile in flight.** In the scheme above every thread waits at step 1 for
# its loads from global memory, then at step 2 for the slowest thread's. Two buffers of each
# shared tile remove the wait: the loads of K tile `t + 1` go into registers (4 + 4 floats a
# thread) *before* the multiply-adds of tile `t`, so they travel while the thread computes;
# after the multiply-adds they are stored into the other buffer, and one `__syncthreads()` a K
# tile is enough (past it tile `t + 1` is complete, and nobody reads tile `t`'s buffer any
# more, so it can take tile `t + 2`). Loading 4 consecutive floats as one `float4` (16 bytes)
# needs every float4 of a row wholly inside or wholly outside the matrix and 16-byte aligned:
# `k`, `n` and the strides multiples of 4 and the pointers aligned; the kernel checks once, the
# same for every thread, and loads float by float otherwise. `__launch_bounds__(256, 2)` keeps
# each thread to 128 registers, so two blocks share an SM: one block's barrier is the other's
# work.
#
# <details><summary>Hint 1 — get it right with one element per thread first</summary>
#
# A 16 × 16 block, `TILE` = 16: thread `(tx, ty)` computes `c[row0 + ty][col0 + tx]`. Per K
# tile it copies `a[row0 + ty][k0 + tx]` into `as[ty][tx]` and `b[k0 + ty][col0 + tx]` into
# `bs[ty][tx]` (zeros outside the matrix), `__syncthreads()`, adds `as[ty][kk] * bs[kk][tx]`
# over `kk`, `__syncthreads()`. That passes every check; on a GPU it is a few times slower
# than the reference, because each multiply-add reads two floats from shared memory.
# </details>
#
# <details><summary>Hint 2 — who fills what</summary>
#
# The `a` piece has `BM × BK` = 1024 floats: element `e = threadIdx.x + p * 256` (`p` = 0..3)
# is row `e / BK`, column `e % BK` of the piece, so 8 neighbouring threads read 8 neighbouring
# floats of a row of `a`. Store it at `as[e % BK][e / BK]`. The `b` piece likewise, with `BN`
# columns: `bs[e / BN][e % BN]`. Zero where the row or the column is outside the matrix. After
# the loop over `kk`, thread `(tx, ty)` writes `acc[i][j]` to row
# `row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4)` and the matching column, if inside `c`.
# </details>
#
# <details><summary>Hint 3 — "depends on thread order", "still hold the fill value"</summary>
#
# Without a GPU, shared memory starts every block filled with NaN, and every launch runs a
# second time with each block's threads in reverse order. NaN in `c`, or a result that changes
# with the order, means a read of a shared tile before it was full, or a refill while another
# thread was still reading it: one of the two `__syncthreads()` is missing, or sits inside a
# branch that not every thread takes. Wrong only when `k` is not a multiple of 8: the last K
# tile was skipped (`k / BK` tiles instead of `(k + BK - 1) / BK`) or not zero-filled.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matmul_fp32_cu", "locked": false, "schema_version": 3, "solution": true}
MATMUL_FP32_CU = r"""
#define BM 128  // rows of c per block
#define BN 128  // columns of c per block
#define BK 8    // depth of one K tile
#define THREADS 256  // 16 x 16 threads, each an 8 x 8 piece of c
#define GROUP_M 16   // tile rows per group of the numbering

// 2 blocks per SM: at most 65536 / (2 x 256) = 128 registers per thread (64 accumulators, 16
// operands, 8 for the next K tile in flight), so that one block's barrier is the other's work.
__global__ void __launch_bounds__(THREADS, 2)
matmul_fp32_kernel(const float *__restrict__ a,  // m x k, rows stride_am apart
                   const float *__restrict__ b,  // k x n, rows stride_bk apart
                   float *__restrict__ c,        // m x n, contiguous
                   int m,                        // rows of a and c
                   int n,                        // columns of b and c
                   int k,                        // columns of a, rows of b
                   int stride_am,                // elements between rows of a
                   int stride_bk)                // elements between rows of b
{
    /// BEGIN SOLUTION
    // Two buffers of each piece: K tile t is multiplied from one while K tile t + 1, already
    // loaded into registers, waits to be stored into the other. a's piece transposed
    // (as[buf][kk][i] = a[row0 + i][k0 + kk]), rows 4 floats longer (the transposing writes of
    // a warp spread over all 32 banks); b's piece as it is. 2 x 8.2 KiB.
    __shared__ __align__(16) float as[2][BK][BM + 4];
    __shared__ __align__(16) float bs[2][BK][BN];

    // The tile of c, numbered in groups of GROUP_M tile rows, column by column inside a group:
    // the blocks running together share their tiles of a and b in the L2.
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;

    // float4 global accesses where every float4 of a row is wholly inside the matrix or wholly
    // outside it, and 16-byte aligned: k, n and both strides multiples of 4, a, b, c on 16-byte
    // boundaries. Otherwise one float per access (a b that starts 4 bytes into its storage).
    // The same for every thread: no divergence.
    const bool vec = k % 4 == 0 && n % 4 == 0 && stride_am % 4 == 0 && stride_bk % 4 == 0 &&
                     reinterpret_cast<size_t>(a) % 16 == 0 &&
                     reinterpret_cast<size_t>(b) % 16 == 0 && reinterpret_cast<size_t>(c) % 16 == 0;

    // Each thread moves 4 consecutive floats of a row of a (row ai, columns ak..ak+3: 2 threads
    // per row of the 8-deep piece) and 4 of a row of b (row bk_, columns bj..bj+3: a warp along
    // a row) per K tile, through registers.
    const int ai = t / 2, ak = t % 2 * 4;
    const int bk_ = t / 32, bj = t % 32 * 4;
    float ra[4], rb[4];  // the next K tile, on its way from global memory
    auto fetch = [&](int k0) {
        const int arow = row0 + ai, acol = k0 + ak, brow = k0 + bk_, bcol = col0 + bj;
        const float *pa = a + (long long)arow * stride_am + acol;  // 64-bit: row * stride
        const float *pb = b + (long long)brow * stride_bk + bcol;
        if (vec) {  // the whole float4 is inside, or outside (then zeros: they add nothing)
            const float4 va = arow < m && acol < k ? *reinterpret_cast<const float4 *>(pa)
                                                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            const float4 vb = brow < k && bcol < n ? *reinterpret_cast<const float4 *>(pb)
                                                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            ra[0] = va.x, ra[1] = va.y, ra[2] = va.z, ra[3] = va.w;
            rb[0] = vb.x, rb[1] = vb.y, rb[2] = vb.z, rb[3] = vb.w;
        } else {  // float by float: past m, n or k, zeros
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                ra[q] = arow < m && acol + q < k ? pa[q] : 0.0f;
                rb[q] = brow < k && bcol + q < n ? pb[q] : 0.0f;
            }
        }
    };
    auto stash = [&](int buf) {  // registers -> shared buffer buf
#pragma unroll
        for (int q = 0; q < 4; ++q) as[buf][ak + q][ai] = ra[q];  // transposed
        *reinterpret_cast<float4 *>(&bs[buf][bk_][bj]) = make_float4(rb[0], rb[1], rb[2], rb[3]);
    };

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    const int k_tiles = (k + BK - 1) / BK;  // the last K tile may be short: zeros fill it
    fetch(0);
    stash(0);
    __syncthreads();  // K tile 0 is complete before any thread reads it
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int buf = kt % 2;
        // The next K tile's loads are issued now and travel during the 8 x 64 multiply-adds:
        // nothing waits for them until stash.
        if (kt + 1 < k_tiles) fetch((kt + 1) * BK);
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            // Rows ty*4 + 0..3 and 64 + ty*4 + 0..3, columns tx*4 + 0..3 and 64 + tx*4 + 0..3.
            const float4 a0 = *reinterpret_cast<const float4 *>(&as[buf][kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&as[buf][kk][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&bs[buf][kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&bs[buf][kk][64 + tx * 4]);
            const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += av[i] * bv[j];
        }
        // The other buffer was last read before the previous __syncthreads(): free to refill.
        if (kt + 1 < k_tiles) stash(1 - buf);
        __syncthreads();  // the next tile is complete, and every thread is done with this one
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
        if (row >= m) continue;  // the block tile's rows past c
        float *out = c + (long long)row * n;
#pragma unroll
        for (int h = 0; h < 2; ++h) {  // columns tx*4 + 0..3, then 64 + tx*4 + 0..3
            const int col = col0 + h * 64 + tx * 4;
            if (vec) {
                if (col < n)  // n % 4 == 0: the whole float4 is inside
                    *reinterpret_cast<float4 *>(out + col) = make_float4(
                        acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            } else {
#pragma unroll
                for (int q = 0; q < 4; ++q)
                    if (col + q < n) out[col + q] = acc[i][4 * h + q];  // c's edges
            }
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "matmul_fp32_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
matmul_fp32_kernel_cu = SourceModule(MATMUL_FP32_CU).get_function("matmul_fp32_kernel")


def matmul_fp32_cuda(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float32 with matmul_fp32_kernel_cu, one block of 256 threads per tile.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(threads, 1, 1) and grid=(tiles, 1).
    """
    ### BEGIN SOLUTION
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    bm, bn = 128, 128  # BM and BN in MATMUL_FP32_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
    matmul_fp32_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(256, 1, 1),
        grid=(tiles, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Shapes include 1 × 1 × 1, tails on every axis (17 × 33 × 65), a `k` shorter than one K tile,
# a long thin product (3 × 5 × 1000) and padded rows. A failure names the shape (`m`, `k`,
# `n`) and the first wrong elements of `c` by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_matmul_fp32_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", matmul_fp32_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", matmul_fp32_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_matmul_fp32_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", matmul_fp32_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", matmul_fp32_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launcher against cuBLAS (`a @ b`, float32 without TF32, torch's
# default) from 512³ to 4096³, in TFLOP/s, with a plot. Without a GPU it says "skipped: needs
# a GPU".
#
# The staircase of CUDA C kernels, each one change from the last, at 4096³ on an H200:
#
# | step | kernel | global reads per multiply-add | shared reads per multiply-add | TFLOP/s | × cuBLAS |
# |---|---|---|---|---|---|
# | naive | one element of `c` per thread, its row of `a` and column of `b` from memory | 2 (caches catch some) | 0 | | |
# | tiled | 16 × 16 tiles of `a` and `b` in shared memory, one element of `c` per thread | 1/8 | 2 | | |
# | register-tiled | 128 × 128 tiles, an 8 × 8 piece of `c` per thread | 1/64 | 1/4 | 35 | 0.69 |
# | + in flight | the same, plus 16-byte global loads and the next K tile fetched during this one, two blocks an SM (this lab's solution) | 1/64 | 1/4 | 41 | 0.80 |
# | reference | the same technique, tuned | 1/64 | 1/4 | 39 | 0.76 |
#
# (cuBLAS: 51 TFLOP/s, measured in the same run on 2026-12-02; the naive and tiled steps are
# not measured yet.)

# %% nbgrader={"grade": true, "grade_id": "perf_matmul_fp32_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", matmul_fp32_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", matmul_fp32_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_matmul_fp32_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", matmul_fp32_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", matmul_fp32_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — float16 on the tensor cores
#
# `a`, `b` and `c` are float16 now; the sum is accumulated in **float32** and rounded to
# float16 once, when `c` is written. `m`, `n` and `k` are multiples of 16, and the row strides
# multiples of 8.
#
# **Tensor cores.** Since Volta, each SM has units that multiply small matrices: a **warp**
# hands them a 16 × 16 tile of `a` and a 16 × 16 tile of `b` (float16) and gets back their
# product added to a 16 × 16 accumulator (float32): 4096 multiply-adds from one warp-wide
# operation. The operation is **warp-collective**: the 32 threads of the warp execute it
# together, each holding a slice of every tile in its registers (a **fragment**), in a layout
# the hardware chooses. On an H200 they deliver 15 times the float32 rate of the CUDA cores.
#
# **float32 accumulation.** A float16 has 11 significant bits. The products are exact in
# float32; their sum must stay there: rounded to float16 after every K tile, the partial sums
# (growing like `sqrt(k)`) lose about 2^-11 of their size at each step, and at `k = 1024` the
# result is off by twice what a single rounding at the end costs. The checks use `k` = 1024
# and 2048, and see it.
#
# **Why multiples of 16.** The tensor core's tile is 16 × 16 × 16. With `m`, `n`, `k`
# multiples of 16, every 16 × 16 fragment of `c` is wholly inside the matrix or wholly outside,
# and so is every 16-byte piece (8 halves) of a row of `a` or `b` — with 16-byte aligned rows
# (strides multiples of 8), the unit in which the tiles are copied. The kernel still handles
# tails, at that granularity: a 128 × 128 block tile of a 48 × 80 `c` is mostly outside, and
# `k = 48` ends inside a K tile (32 or 64 deep). Real libraries meet the same constraint by
# padding the matrices (cuBLAS's tensor-core paths want multiples of 8); arbitrary sizes would
# cost a scalar path for every load and store and teach nothing new after Exercise 1.
#
# ### Part 1 — Triton
#
# Your Exercise 1 kernel nearly works: on float16 blocks `tl.dot` uses the tensor cores and
# accumulates into the float32 `acc` you pass it. Two changes: the default precision (the
# `input_precision` argument only concerns float32 inputs: leave it out), and the store, which
# rounds `acc` to float16 with `.to(tl.float16)` (or `c_ptr.dtype.element_ty`).
#
# Then speed. At 8192³, `a` and `b` are 128 MiB each, twice the L2 cache. Programs that run
# at the same time should use the same tiles of `a` and `b`, so that the L2 serves the second
# request. Numbered row by row, the 132 programs of one wave share a few rows of `a` but touch
# 132 different column tiles of `b`. Numbered in **groups** of `GROUP_SIZE_M` tile rows, column
# by column inside a group, a wave covers a square-ish patch of `c`: `GROUP_SIZE_M` tile rows of
# `a` and 132 / `GROUP_SIZE_M` tile columns of `b`, both reused across the patch. And
# `num_stages=3` lets the compiler load the next K tiles while the tensor cores work on this
# one.
#
# <details><summary>Hint 1 — from Exercise 1</summary>
#
# Copy your float32 kernel and launcher. Drop `input_precision="ieee"`; store
# `acc.to(tl.float16)`. Bigger tiles pay now: 128 × 256 (each byte fetched feeds twice the
# products of a 128 × 128 tile), `BLOCK_SIZE_K = 64`, `num_warps=8`, `num_stages=3`. On an
# H200, against 128 × 128: 0.79× → 0.89× the reference at 4096³.
# </details>
#
# <details><summary>Hint 2 — the grouped numbering</summary>
#
# With `tiles_m`, `tiles_n` the tile counts: `per_group = GROUP_SIZE_M * tiles_n` programs
# form a group; `first_m = (pid // per_group) * GROUP_SIZE_M` is its first tile row;
# `rows = min(tiles_m - first_m, GROUP_SIZE_M)` (the last group may be shorter); then
# `pid_m = first_m + (pid % per_group) % rows` and `pid_n = (pid % per_group) // rows`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matmul_fp16_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def matmul_fp16_kernel(
    a_ptr,  # a: m x k float16, rows stride_am elements apart
    b_ptr,  # b: k x n float16, rows stride_bk elements apart
    c_ptr,  # c: m x n float16, contiguous
    m,  # rows of a and c (a multiple of 16)
    n,  # columns of b and c (a multiple of 16)
    k,  # columns of a, rows of b (a multiple of 16)
    stride_am,  # elements between the starts of two rows of a
    stride_bk,  # elements between the starts of two rows of b
    BLOCK_SIZE_M: tl.constexpr,  # rows of c per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of c per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
    GROUP_SIZE_M: tl.constexpr,  # tile rows per group of the numbering
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    # Groups of GROUP_SIZE_M tile rows, numbered column by column: the programs of one wave
    # share their tiles of a and b in the L2.
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % rows).to(tl.int64)  # 64-bit offsets from here
    pid_n = ((pid % per_group) // rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)  # float32 accumulation
    # The pointers of the first blocks, built once and moved a step along k each time (the
    # form of Triton's tutorial: 4% faster on the H200 than rebuilding them every step).
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None].to(tl.int64) * stride_bk + offs_n[None, :]
    for k0 in range(0, k, BLOCK_SIZE_K):
        # The block tile runs past m, n or k at the edges: zeros add nothing.
        a_blk = tl.load(a_ptrs, mask=(offs_m[:, None] < m) & (offs_k[None, :] < k - k0),
                        other=0.0)
        b_blk = tl.load(b_ptrs, mask=(offs_k[:, None] < k - k0) & (offs_n[None, :] < n),
                        other=0.0)
        acc = tl.dot(a_blk, b_blk, acc)  # float16 in, tensor cores, float32 accumulator
        a_ptrs += BLOCK_SIZE_K
        b_ptrs += BLOCK_SIZE_K * stride_bk
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # c's edges
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc.to(tl.float16), mask=mask)
    ### END SOLUTION


def matmul_fp16_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b, float16 in and out, float32 accumulation, on the tensor cores."""
    ### BEGIN SOLUTION
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M = 128, 256, 64, 16
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    matmul_fp16_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M,
                             num_warps=8, num_stages=3)
    ### END SOLUTION


# %% [markdown]
# ### Part 2 — CUDA C: WMMA fragments
#
# `#include <mma.h>` gives `nvcuda::wmma`, CUDA's portable interface to the tensor cores:
#
# | call | what the warp does |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;` | declares its share of a 16 × 16 tile of `a` (also `matrix_b`, and `accumulator` with `float` and no layout) |
# | `wmma::fill_fragment(acc, 0.0f);` | zeroes an accumulator |
# | `wmma::load_matrix_sync(fa, ptr, ldm);` | loads the 16 × 16 tile at `ptr`, rows `ldm` elements apart (`ldm` a multiple of 8 for halves, `ptr` 32-byte aligned) |
# | `wmma::mma_sync(acc, fa, fb, acc);` | `acc += fa × fb`, 4096 multiply-adds |
# | `wmma::store_matrix_sync(ptr, acc, ldm, wmma::mem_row_major);` | writes the accumulator out, rows `ldm` apart |
#
# All 32 threads of the warp must make each of these calls together, with the same
# arguments: never inside a branch that splits a warp (without a GPU the grader's CPU backend
# refuses it with the line; on a GPU it is undefined behaviour).
#
# **The block.** 256 threads = 8 warps per 256 × 128 tile of `c`, arranged 4 × 2: each warp
# owns a 64 × 64 piece of the tile, a 4 × 4 array of 16 × 16 accumulator fragments. For each
# 16-deep slice of the K tile, the warp loads 4 fragments of `a` and 4 of `b` and does the 16
# products: each fragment it loads feeds 4 tensor-core operations, the register tiling of
# Exercise 1 one level up.
#
# **Shared memory and bank conflicts.** The K tile (32 deep) of `a`, 256 × 32 halves, and of
# `b`, 32 × 128, are copied to shared memory, 16 bytes per copy. Each row is padded by 8
# halves (`BK + 8`, `BN + 8`): a fragment load reads 16-byte pieces of 8 consecutive rows, and
# with rows 80 (or 272) bytes apart instead of 64 (256) those 8 pieces start in 8 different
# groups of banks.
#
# **cp.async double buffering.** `__pipeline_memcpy_async(dst, src, 16)` (`<cuda_pipeline.h>`)
# starts a 16-byte copy from global to shared memory and returns at once; `__pipeline_commit()`
# closes a batch of them; `__pipeline_wait_prior(n)` waits until all but the last `n` batches
# have landed. With two buffers per tile, the loop over K tiles becomes:
#
#     start the copies of K tile 0 into buffer 0; commit
#     for each K tile t:
#         wait_prior(0): this thread's copies of tile t have landed; __syncthreads()
#         start the copies of K tile t + 1 into buffer (t + 1) % 2 (if there is one); commit
#         multiply from buffer t % 2
#
# so the copies of one K tile travel while the tensor cores work on the previous one. The one
# `__syncthreads()` does two jobs: after it every thread's copies of tile t are visible, and
# every warp is done multiplying tile t - 1, whose buffer the copies of tile t + 1 then refill.
# (A second barrier at the end of each step could do the second job: two per K tile.) Pieces
# outside the matrix (a block tile past `m` or `n`, a K tile past `k`) are written as zeros
# directly, or copied as 0 bytes with 16 bytes of zero fill:
# `__pipeline_memcpy_async(dst, src, 16, 16)`.
#
# **A deeper pipeline.** With `STAGES` buffers instead of two, `STAGES - 1` K tiles travel
# while one is multiplied: the loop issues tile `t + STAGES - 1` into the buffer tile `t - 1`
# has left, and `__pipeline_wait_prior(STAGES - 2)` waits for tile `t + 1` only. This lab's
# solution uses 3 stages, and two register sets of fragments: the fragments of the next
# 16-deep slice load while the products of this one run.
#
# **Writing `c`.** An accumulator is float32 and `c` is float16, and a fragment's layout in
# the registers is unspecified: each warp stores a finished accumulator to a 16 × 16 float
# scratch tile of its own in shared memory (`store_matrix_sync`), then each of its 32 threads
# converts 8 of those floats (half a row) and writes them to `c` as one 16-byte store.
# `__syncwarp()` between the two (the threads read what other threads of the warp wrote), and
# before the next fragment reuses the scratch tile.
#
# The tiles are numbered on a 1-D grid in groups of 16 tile rows, as in Part 1.
#
# **Dynamic shared memory.** Three buffers of 32-deep tiles, rows padded, are
# 3 × (256 × 40 + 32 × 136) halves = 87 552 bytes, 85.5 KiB (two buffers of 64-deep 128 × 128
# tiles would be 70 KiB), and a block's `__shared__` arrays are capped at 48 KiB (nvcc refuses more; without a GPU the launch is
# refused, with CUDA's "too many resources requested for launch"). Beyond that, shared memory
# must be **dynamic**: its size is given at the launch, not in the source.
#
# - In the kernel, one array without a size, `extern __shared__ __align__(128) unsigned char
#   smem[];`, cut into the arrays you need with casts to pointers to arrays:
#   `__half (*as)[BM][BK + PAD] = reinterpret_cast<__half (*)[BM][BK + PAD]>(smem);` and
#   `as[buf][r][cc]` indexes as before. The next array starts where this one ends.
# - In the launcher, the bytes of everything cut from it, as the launch's `shared=`.
# - Above 48 KiB, CUDA must also be told that the kernel may use that much: in plain pycuda,
#   `func.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes)` before
#   the launch, or the launch fails. This notebook's `SourceModule` does it for you whenever
#   `shared=` is over 48 KiB: you pass `shared=` and nothing else (the CPU backend needs no
#   opt-in). Both refuse more than 227 KiB per block, static and dynamic together.
#
# Without a GPU, dynamic shared memory starts filled with NaN, as static shared memory does,
# and a block has what its launch asked for: a `shared=` forgotten, or too small, stops the
# launch at the first access past it ("read of dynamic shared memory at byte ..., past the 0
# bytes this launch asked for"), as a GPU would (an overrun of less than a 4 KiB page can go
# unnoticed there). Work the bytes out from the arrays you cut. The epilogue's scratch tiles
# (8 KiB) need not add to them: once the loop is done they can reuse buffer 0, after a
# `__syncthreads()` (another warp may still be multiplying from it).
#
# The cost is **fewer blocks per SM**. An SM has 228 KiB of shared memory and 65 536
# registers. At 85.5 KiB a block, 2 blocks fit its shared memory; but at 256 threads a block,
# 2 blocks fit its registers only if each thread uses at most 65 536 / (2 × 256) = 128, and a
# warp's 16 accumulator fragments are 128 floats a thread on their own. So this kernel runs 1
# block per SM, with up to 255 registers a thread (`__launch_bounds__(256, 1)`: threads per
# block, blocks per SM wanted; with 2, nvcc would keep to 128 and spill): 8 warps with 16
# independent products each per slice, and the pipeline, keep the tensor cores fed.
#
# <details><summary>Hint 1 — one fragment per warp first</summary>
#
# Correctness before speed: a block of 32 threads per 16 × 16 tile of `c`, a loop over `k` in
# steps of 16 with `load_matrix_sync` straight from `a + row0 * stride_am + k0` (ldm
# `stride_am`) and `b + k0 * stride_bk + col0` (ldm `stride_bk`), `mma_sync` into one float
# accumulator, then the scratch-tile epilogue below. It passes every check, and on a GPU it is
# several times slower than the bar: nothing is reused.
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# A K tile of `a` is 256 rows × 4 pieces of 16 bytes: piece `e` (`e = threadIdx.x + p * 256`,
# `p` = 0..3) is row `e / 4`, halves `(e % 4) * 8` to `+ 7`. Of `b`: 32 rows × 16 pieces
# (`p` = 0..1), row `e / 16`, halves `(e % 16) * 8` onwards. Copy with
# `__pipeline_memcpy_async(&as[buf][r][cc], a + (long long)row * stride_am + k0 + cc, 16)`, and
# when the piece is outside, with 0 bytes read and 16 zero-filled (any valid source, such as
# `a` itself). Warp `w` owns rows `(w / 2) * 64` and columns `(w % 2) * 64` of the block tile;
# its fragment `[i][j]` of `a` starts at `&as[buf][wr + 16 i][kk]` with ldm `BK + 8`, of `b` at
# `&bs[buf][kk][wc + 16 j]` with ldm `BN + 8`.
# </details>
#
# <details><summary>Hint 3 — the epilogue, and the checks' messages</summary>
#
# Scratch tiles cut from the start of `smem` (buffer 0), after a `__syncthreads()`.
# For each fragment inside `c`: `store_matrix_sync(scratch[warp], acc[i][j], 16,
# wmma::mem_row_major)`, `__syncwarp()`, lane `l` converts floats `scratch[warp][(l / 2) * 16 +
# (l % 2) * 8 + 0..7]` with `__float2half_rn` and stores them at `c + (long long)(row + l / 2)
# * n + col + (l % 2) * 8`, `__syncwarp()`. Wrong by about 1e-3 relative on `k = 1024` only: a
# float16 accumulator, or a float16 sum somewhere. "depends on thread order": a
# `__syncthreads()` missing around the refill; a WMMA call inside a branch taken by part of a
# warp is named with its line.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matmul_fp16_cu", "locked": false, "schema_version": 3, "solution": true}
MATMUL_FP16_CU = r"""
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// Two floats rounded to a pair of halves, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __half2 pair = __floats2half2_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

#define BM 256      // rows of c per block
#define BN 128      // columns of c per block
#define BK 32       // depth of one K tile
#define STAGES 3    // K tile buffers: 2 tiles in flight while one is multiplied
#define WM 64       // rows of c per warp
#define WN 64       // columns of c per warp: 4 x 4 fragments, each fragment load feeds 4 products
#define PAD 8       // halves of padding per row of a shared tile
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 8 warps
#define GROUP_M 16  // tile rows per group of the numbering
#define FM (WM / 16)        // fragments of a warp, down
#define FN (WN / 16)        // ... and across
#define SLICES (BK / 16)    // 16-deep slices of a K tile
#define LDA (BK + PAD)      // row strides of the shared tiles, in halves
#define LDB (BN + PAD)
#define A_ROWS (THREADS / (BK / 8))  // rows of a's tile one pass of the block copies
#define B_ROWS (THREADS / (BN / 8))  // ... of b's
static_assert(SLICES % 2 == 0, "slice 0 of every K tile goes to register set 0");
static_assert(BM % A_ROWS == 0 && BK % B_ROWS == 0, "whole passes of the block's copies");

// 1 block per SM: a thread may use up to 255 registers. It needs them: 16 accumulator
// fragments (128 floats) and two sets of 4 + 4 operand fragments (64 registers). One block of
// 8 warps has enough independent products (16 per slice per warp) to keep the tensor cores fed.
extern "C" __global__ void __launch_bounds__(THREADS, 1)
matmul_fp16_kernel(const __half *__restrict__ a,  // m x k, rows stride_am apart
                   const __half *__restrict__ b,  // k x n, rows stride_bk apart
                   __half *__restrict__ c,        // m x n, contiguous
                   int m,                         // rows of a and c (a multiple of 16)
                   int n,                         // columns of b and c (a multiple of 16)
                   int k,                         // columns of a, rows of b (a multiple of 16)
                   int stride_am,                 // elements between rows of a (multiple of 8)
                   int stride_bk)                 // elements between rows of b (multiple of 8)
{
    /// BEGIN SOLUTION
    // STAGES buffers of each K tile, rows padded by 8 halves (16 bytes: the 8 rows a fragment
    // load reads start in 8 different groups of banks), in dynamic shared memory (the
    // launcher's shared=). A 16 x 16 float scratch tile per warp for the epilogue reuses the
    // start of it (8 KiB). smem is 128-byte aligned and every fragment's offset in it a
    // multiple of 32 bytes.
    extern __shared__ __align__(128) unsigned char smem[];
    __half(*as)[BM][LDA] = reinterpret_cast<__half(*)[BM][LDA]>(smem);
    __half(*bs)[BK][LDB] = reinterpret_cast<__half(*)[BK][LDB]>(as + STAGES);
    float(*scratch)[16 * 16] = reinterpret_cast<float(*)[16 * 16]>(smem);

    // The tile of c, numbered in groups of GROUP_M tile rows (shared tiles of a and b in L2).
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // This thread's 16-byte pieces: rows ar, ar + A_ROWS, ... of a's tile at halves ac..ac+7,
    // rows br, br + B_ROWS, ... of b's at halves bc..bc+7 (consecutive threads, consecutive
    // pieces of a row). The addresses of K tile 0, computed once.
    const int ar = threadIdx.x / (BK / 8), ac = threadIdx.x % (BK / 8) * 8;
    const int br = threadIdx.x / (BN / 8), bc = threadIdx.x % (BN / 8) * 8;
    const __half *a_src = a + (long long)(row0 + ar) * stride_am + ac;  // 64-bit: row * stride
    const __half *b_src = b + (long long)br * stride_bk + col0 + bc;

    // Start the copies of the K tile at k0 into buffer buf. A piece outside the matrices (the
    // block tile past m or n, the K tile past k) is a copy of 0 bytes with 16 bytes of zero
    // fill (the last argument): every thread makes the same calls, and its source, never read,
    // is the matrix's start.
    auto issue = [&](int buf, int k0) {
#pragma unroll
        for (int p = 0; p < BM / A_ROWS; ++p) {
            const bool inside = row0 + ar + p * A_ROWS < m && k0 + ac < k;
            const __half *src = a_src + (long long)p * A_ROWS * stride_am + k0;
            __pipeline_memcpy_async(&as[buf][ar + p * A_ROWS][ac], inside ? src : a, 16,
                                    inside ? 0 : 16);
        }
#pragma unroll
        for (int p = 0; p < BK / B_ROWS; ++p) {
            const bool inside = k0 + br + p * B_ROWS < k && col0 + bc < n;
            const __half *src = b_src + (long long)(k0 + p * B_ROWS) * stride_bk;
            __pipeline_memcpy_async(&bs[buf][br + p * B_ROWS][bc], inside ? src : b, 16,
                                    inside ? 0 : 16);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // Two register sets of operand fragments: the products of one slice run while the
    // fragments of the next slice are loaded into the other set, hiding the loads' latency.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2][FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2][FN];
    auto load = [&](int set, int buf, int kk) {  // the fragments of slice kk of buffer buf
#pragma unroll
        for (int i = 0; i < FM; ++i)
            wmma::load_matrix_sync(fa[set][i], &as[buf][wr + i * 16][kk], LDA);
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::load_matrix_sync(fb[set][j], &bs[buf][kk][wc + j * 16], LDB);
    };

    // The pipeline: STAGES - 1 K tiles in flight ahead of the one multiplied. Tiles past k
    // are issued too, all zero fill: every K tile step commits one batch, so
    // __pipeline_wait_prior(STAGES - 2) always means "the next tile has landed".
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
        const int next = buf + 1 == STAGES ? 0 : buf + 1;       // tile t + 1's
        const int refill = buf == 0 ? STAGES - 1 : buf - 1;     // tile t - 1's, now free
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
            if (s == SLICES - 1) {
                __pipeline_wait_prior(STAGES - 2);  // tile t + 1 has landed (this thread's)
                __syncthreads();  // ... every thread's; every warp is done loading tile t - 1
            }
            if (s == 0) {
                issue(refill, (t + STAGES - 1) * BK);
                __pipeline_commit();
            }
            if (s + 1 < SLICES)  // slice s + 1 into the other register set...
                load((s + 1) % 2, buf, (s + 1) * 16);
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
    __pipeline_wait_prior(0);  // the zero fills past k have landed too
    __syncthreads();           // the buffers become the scratch tiles: every warp is done

    // Epilogue: float accumulator -> scratch tile -> 8 halves per lane, one 16-byte store.
    float *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = row0 + wr + i * 16, col = col0 + wc + j * 16;
            if (row >= m || col >= n) continue;  // the whole warp skips a fragment past c
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int r = lane / 2, h = lane % 2 * 8;  // row r of the fragment, halves h..h+7
            const float4 lo = *reinterpret_cast<const float4 *>(mine + r * 16 + h);
            const float4 hi = *reinterpret_cast<const float4 *>(mine + r * 16 + h + 4);
            const uint4 out = make_uint4(pack(lo.x, lo.y), pack(lo.z, lo.w), pack(hi.x, hi.y),
                                         pack(hi.z, hi.w));  // 8 halves, each rounded once
            // Indexed as uint4s (nvcc 13 split `*(uint4 *)(c + ... + h)` into four 4-byte stores).
            reinterpret_cast<uint4 *>(c + (long long)(row + r) * n + col)[lane % 2] = out;
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "matmul_fp16_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
matmul_fp16_kernel_cu = SourceModule(MATMUL_FP16_CU, no_extern_c=True).get_function(
    "matmul_fp16_kernel")


def matmul_fp16_cuda(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float16 (float32 accumulation) with matmul_fp16_kernel_cu: WMMA, 8 warps
    per 256 x 128 tile of c.

    Kernel arguments as in matmul_fp32_cuda; block=(256, 1, 1), grid=(tiles, 1), shared= the
    bytes of the kernel's dynamic shared memory.
    """
    ### BEGIN SOLUTION
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    n = b.shape[1]
    for name, size in (("m", m), ("n", n), ("k", k)):
        assert size % 16 == 0, f"{name} = {size} is not a multiple of 16 (the WMMA tile)"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    for name, t in (("a", a), ("b", b), ("c", c)):  # the kernel copies 16-byte pieces of rows
        assert t.stride(0) % 8 == 0 and t.data_ptr() % 16 == 0, \
            f"{name}'s rows must start on 16-byte boundaries: stride {t.stride(0)} elements"
    bm, bn, bk, pad, stages = 256, 128, 32, 8, 3  # BM, BN, BK, PAD, STAGES in MATMUL_FP16_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    # bytes: STAGES buffers of as and bs, halves
    smem = stages * (bm * (bk + pad) + bk * (bn + pad)) * 2
    matmul_fp16_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(256, 1, 1),
        grid=(tiles, 1),
        shared=smem,  # 87552 bytes, over 48 KiB: SourceModule's launch makes the opt-in
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Shapes: one fragment (16³), block tiles that stop inside `c` (48 × 80), K tiles that stop
# partway (`k = 48`, `k = 96`), `k = 1024` (where a float16 accumulator fails), padded rows.

# %% nbgrader={"grade": true, "grade_id": "test_matmul_fp16_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", matmul_fp16_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", matmul_fp16_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_matmul_fp16_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", matmul_fp16_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", matmul_fp16_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launcher against cuBLAS's float16 matmul from 512³ to 8192³, in
# TFLOP/s; graded at 4096³ and 8192³.
#
# | kernel, float16, on an H200 (2026-12-02, one run) | 4096³ TFLOP/s | × cuBLAS | 8192³ TFLOP/s | × cuBLAS |
# |---|---|---|---|---|
# | cuBLAS (`a @ b`) | 751 | 1 | 763 | 1 |
# | 128 × 128 tiles, 64 × 32 per warp, two buffers of 64-deep K tiles | 315 | 0.42 | 315 | 0.41 |
# | 256 × 128 tiles, 64 × 64 per warp, 3 stages of 32-deep K tiles, two fragment sets (this lab's solution) | 382 | 0.51 | 391 | 0.51 |
# | the same, 128 × 256 tiles of 64-deep K tiles | 400 | 0.53 | 409 | 0.54 |
# | the CUDA reference | 360 | 0.48 | 362 | 0.47 |
# | Triton, `tl.dot` (the reference of Part 1) | 697 | 0.93 | 725 | 0.95 |
#
# (An earlier solution, 128 × 128 tiles with two buffers of 32-deep K tiles, measured 298,
# 0.39× cuBLAS, on 2026-12-01. The one-fragment-per-warp kernel of Hint 1 and the version
# without double buffering are not measured yet.)
#
# Why does WMMA stay well below cuBLAS, when Triton gets close? On Hopper GPUs (the H100 and
# H200), the fastest tensor-core instructions are **warpgroup** operations (`wgmma`): four warps
# issue one operation on operands that stay in shared memory, fed by the **TMA** unit, which
# copies whole tiles asynchronously. cuBLAS and Triton's compiler use them. WMMA (and the
# `mma.sync` instruction it becomes) is the older, per-warp path: it works on every GPU since
# Volta, and teaches the model, but it must first load each fragment into registers. The
# bar you are graded against is a reference written with what this lab teaches.

# %% nbgrader={"grade": true, "grade_id": "perf_matmul_fp16_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", matmul_fp16_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", matmul_fp16_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_matmul_fp16_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", matmul_fp16_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", matmul_fp16_cuda, graded=True)
### END HIDDEN TESTS
