# %% [markdown]
# # Lab 09 — Matrix transpose, in Triton and in CUDA C
#
# `out[j, i] = x[i, j]` for a float32 matrix `x` of `n_rows × n_cols`. The rows of `x` may be
# **padded** (`x.stride(0)` can be larger than `n_cols`; the padding holds NaN), its columns are
# adjacent (`x.stride(1) == 1`). `out` is `n_cols × n_rows`, contiguous (`out.stride() ==
# (n_rows, 1)`), and arrives allocated: write into it.
#
# A transpose does no arithmetic: each element is read once and written once, somewhere else.
# It could run as fast as a copy. Written the obvious way it runs at a fraction of that, and
# the reason is not the amount of data but the **order** in which a warp touches it. The cure
# is to stage a tile of the matrix on the chip, in **shared memory**, and change its
# orientation there.
#
# **What you will learn**
# - why the obvious transpose is slow: if a warp reads along a row of `x`, it writes down a
#   column of `out`, and the other way round; one of the two is uncoalesced whatever you pick;
# - staging a tile in shared memory, so that the global reads *and* the global writes run along
#   rows, and only the on-chip accesses run down columns;
# - `__syncthreads()`: the thread that writes an element of `out` is not the one that read it
#   from `x`, so every load into the tile must be finished before any thread reads from it;
# - shared-memory **banks**: why a warp reading a column of `float tile[32][32]` waits 32 times
#   as long as one reading a row, and why one extra column, `tile[32][33]`, fixes it;
# - the same staging in Triton, done for you: load a tile with `x`'s strides, store it with
#   `out`'s, and the compiler puts the shared memory and the barrier between the two;
# - 64-bit offsets on both sides of the copy.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | which tile am I? | `pid_m = tl.program_id(axis=0)` counts tiles down the rows of `x`, `pid_n = tl.program_id(axis=1)` across its columns | `blockIdx.y` down the rows of `x`, `blockIdx.x` across its columns; `threadIdx.x`, `threadIdx.y` inside the tile |
# | read a tile of `x` | `tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)`: a `BLOCK_SIZE_M × BLOCK_SIZE_N` tile, in registers | each thread loads `TILE / BLOCK_ROWS` elements, `threadIdx.x` along the row of `x`, into `tile[threadIdx.y + k][threadIdx.x]` |
# | turn it around | the compiler: the store's addresses run along the other axis, so it passes the tile through shared memory between the load and the store | by hand: `__shared__ float tile[TILE][TILE + 1]`, and `__syncthreads()` between filling it and reading it |
# | write it to `out` | `tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)`: the same tile, `out`'s strides; or store `tl.trans(x)` with the offsets transposed too | each thread reads `tile[threadIdx.x][threadIdx.y + k]` and writes it `threadIdx.x` along a row of `out` |
# | the edges | one mask `(offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)` for the load and the store | a bounds check in each phase (`x`'s row and column, then `out`'s); no `return` before the barrier |
# | bank conflicts | the compiler lays out its staging buffer | yours: the `+ 1` column |
# | offsets past 2^31 − 1 | `.to(tl.int64)` on **both** program ids: `offs_n * n_rows` grows as fast as `offs_m * stride_xm` | `(long long)` on both products |
#
# **What you write**: the Triton kernel `transpose_kernel` and its launcher `transpose_triton`;
# the CUDA kernel `transpose_kernel` (in the string `TRANSPOSE_CU`) and its launcher
# `transpose_cuda`.
#
# **How you are graded**: correctness on many shapes you do not see (1 × 1, a single row, a
# single column, non-square matrices with tails on both axes, padded rows, an `x` that does not
# start on a 16-byte boundary; on a GPU also a view whose offsets pass 2^31 and matrices of
# 70001 rows or columns), with fresh random inputs, compared bit for bit; on a GPU, the
# bandwidth of your kernels on 16384 × 16384 against a reference. Without a GPU, Triton runs in
# its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab09_transpose"

# %% [markdown]
# ## Why the obvious transpose is slow
#
# Give each thread one element: thread `(i, j)` reads `x[i, j]` and writes `out[j, i]`. A warp
# is 32 threads with consecutive `threadIdx.x`, and the memory system serves a warp's 32
# addresses together, in 32-byte **sectors**. Which index should `threadIdx.x` be?
#
# - `threadIdx.x` along `j` (a row of `x`): the warp reads 32 neighbouring floats, 128 bytes,
#   4 sectors, every byte used. It writes them to `out[j, i]` for 32 consecutive `j`: 32
#   different rows of `out`, `4 * n_rows` bytes apart, so 32 sectors, each carrying 4 useful
#   bytes out of 32.
# - `threadIdx.x` along `i` (a column of `x`): now the writes are 32 neighbouring floats of a
#   row of `out`, and the reads are the ones that land in 32 different rows.
#
# Either way, one side of the copy moves about 8 times the sectors it needs. (The L2 cache
# makes up for some of it: a sector half-written by one warp is often completed by a
# neighbouring block before it goes to memory. It is still far from a copy.)
#
# **Staging.** Let a block own a 32 × 32 tile. It reads the tile from `x` row by row (each
# warp along a row: coalesced) into shared memory, then writes it to `out` row by row of
# `out`, which means column by column of the tile. The access that runs down a column now
# happens in shared memory, on the chip, where there are no sectors to waste, and both global
# accesses run along rows.
#
# ## Part 1 — Triton
#
# One program per tile of `BLOCK_SIZE_M` rows × `BLOCK_SIZE_N` columns **of `x`**, on a 2-D
# grid: `tl.program_id(axis=0)` numbers the tile's row of tiles, `tl.program_id(axis=1)` its
# column of tiles. Load the tile from `x` as in lab 02 (rows `stride_xm` apart, columns
# adjacent). Element `[a, b]` of the loaded tile is `x[offs_m[a], offs_n[b]]`; it belongs at
# `out[offs_n[b], offs_m[a]]`, and `out`'s rows are `n_rows` elements apart.
#
# You never write the staging yourself. For each load and store the compiler chooses which
# axis of the tile the threads of a warp run along: the axis in which the addresses are
# contiguous (it knows: `tl.arange` is contiguous, and an integer argument equal to 1 or
# divisible by 16 is compiled as such). For the load of `x` that is axis 1; for the store into
# `out` it is axis 0. Between the two it inserts a change of layout that goes through shared
# memory, with the barrier, laid out to keep bank conflicts down: the CUDA tile below,
# generated.
#
# An equivalent way to write it: `tl.trans(x)` is the `BLOCK_SIZE_N × BLOCK_SIZE_M` tile
# turned around; store it with offsets built the other way round (`offs_n` down, `offs_m`
# across) and a mask to match. The compiler produces the same exchange.
#
# <details><summary>Hint 1 — the tile of x</summary>
#
# As in lab 02: `offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)` are the rows of
# `x` this program owns, `offs_n` likewise its columns, and
# `offs_m[:, None] * stride_xm + offs_n[None, :]` is a `BLOCK_SIZE_M × BLOCK_SIZE_N` tile of
# offsets into `x`. The mask tests both axes: tiles on the last row and on the last column of
# tiles run past the matrix.
# </details>
#
# <details><summary>Hint 2 — where each element goes</summary>
#
# `out` is `n_cols × n_rows` and contiguous: `out[j, i]` is at `j * n_rows + i`. For the tile,
# `j` runs along `offs_n` and `i` along `offs_m`: build a second tile of offsets from the same
# two ranges, with `offs_n` multiplied by `out`'s row stride and `offs_m` added. It has the
# same shape as the loaded tile, so the load's mask fits it too. `out`'s row stride is
# `n_rows`, not `n_cols`: the two agree only on square matrices (an out-of-bounds write on
# 3 × 7 while 1 × 1 passes is the sign).
# </details>
#
# <details><summary>Hint 3 — 64 bits, and the launch</summary>
#
# `tl.program_id` is 32-bit, and so is everything computed from it. `offs_m * stride_xm` passes
# 2^31 − 1 on a matrix of more than 2^31 elements or with rows far apart, and so does
# `offs_n * n_rows`: convert **both** program ids with `.to(tl.int64)`. The grid counts tiles,
# `(triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))`; axis 1 is limited to
# 65535 programs.
# </details>

# %% nbgrader={"grade": false, "grade_id": "transpose_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def transpose_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xm elements apart
    out_ptr,  # output, n_cols x n_rows, contiguous
    n_rows,  # rows of x (= columns of out)
    n_cols,  # columns of x (= rows of out)
    stride_xm,  # elements between the starts of two rows of x (>= n_cols)
    BLOCK_SIZE_M: tl.constexpr,  # rows of x per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns of x per tile
):
    ### BEGIN SOLUTION
    # 64-bit on both axes: offs_m * stride_xm and offs_n * n_rows each pass 2^31 - 1 on a
    # matrix of more than 2^31 elements.
    pid_m = tl.program_id(axis=0).to(tl.int64)
    pid_n = tl.program_id(axis=1).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of x = columns of out
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # columns of x = rows of out
    # Tiles on the last row and on the last column of tiles run past the matrix: one mask for
    # the load and the store, since element [a, b] of the tile is read and written by the same
    # lane.
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    # x[i, j] goes to out[j, i], at j * n_rows + i: the same tile with out's strides. The
    # compiler stages it through shared memory so that both accesses are coalesced.
    tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)
    ### END SOLUTION


def transpose_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x.T, one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of x, on a 2-D grid."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and out.shape == (x.shape[1], x.shape[0]), \
        f"out must be x's shape turned around: x {tuple(x.shape)}, out {tuple(out.shape)}"
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = x.shape
    BLOCK_SIZE_M, BLOCK_SIZE_N = 64, 64  # 4096 floats: 32 per thread of the 4 default warps
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))
    assert grid[1] <= 65535, f"{n_cols} columns need {grid[1]} tiles across: grid axis 1 <= 65535"
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0),
                           BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C: the tile by hand
#
# A block of `TILE × BLOCK_ROWS` threads (32 × 4) owns a `TILE × TILE` tile of `x`: the one
# whose first row is `blockIdx.y * TILE` and first column `blockIdx.x * TILE`. Each thread
# moves `TILE / BLOCK_ROWS` = 8 elements, `BLOCK_ROWS` rows apart (8 independent loads in
# flight per thread, as in lab 02; on an H200 at 16384 × 16384, 32 × 8 threads with 4 elements
# each moved 3540 GB/s, 32 × 4 threads with 8 each 3732). The kernel has two phases:
#
# 1. **load**: thread `(tx, ty)` reads `x[row0 + ty + k][col0 + tx]`, `threadIdx.x` along the
#    row of `x` (coalesced), and stores it in `tile[ty + k][tx]`;
# 2. **store**: the same thread now writes `out[col0 + ty + k][row0 + tx]`, `threadIdx.x` along
#    the row of `out` (coalesced), and the value it needs is `x[row0 + tx][col0 + ty + k]`,
#    which sits in `tile[tx][ty + k]`.
#
# **Why the barrier.** The element a thread writes in phase 2 was loaded in phase 1 by another
# thread, almost always of another warp. The warps of a block run independently: without a
# barrier a warp can reach phase 2 while the warps that fill its column of the tile are still
# waiting for their loads, and it writes whatever shared memory held. `__syncthreads()` between
# the phases holds every thread of the block until all of them have arrived: every load is in
# the tile before anyone reads it. It is a barrier for the **whole block**, so every thread
# must reach it: a thread outside the matrix skips its loads and stores but does not `return`
# early (its element of `out` may well be inside the matrix even when its element of `x` is
# not).
#
# **Why `TILE + 1`.** Shared memory is split into 32 **banks**, each 4 bytes wide: the float at
# word `w` of a shared array lives in bank `w % 32`. A warp's 32 accesses proceed at once when
# they fall in 32 different banks; those that share a bank (at different words) wait their
# turn. With `float tile[32][32]`, element `[r][c]` is word `32 * r + c`, in bank `c`: phase 1
# writes a row (32 banks, one step), but phase 2 reads a **column**, 32 words in one bank, 32
# steps. Declare the tile one column wider, `float tile[32][33]`: `[r][c]` is word
# `33 * r + c`, in bank `(r + c) % 32`, and a column spreads over all 32 banks. The extra column
# is never used; it only shifts each row by one bank.
#
# <details><summary>Hint 1 — the two index mappings</summary>
#
# With `row0 = blockIdx.y * TILE` and `col0 = blockIdx.x * TILE` (the tile's corner in `x`),
# phase 1 is a loop over `k = 0, BLOCK_ROWS, 2 * BLOCK_ROWS, …` below `TILE` that fills
# `tile[threadIdx.y + k][threadIdx.x]` from `x`'s row `row0 + threadIdx.y + k`, column
# `col0 + threadIdx.x`. Phase 2 is the same loop, writing row `col0 + threadIdx.y + k`,
# column `row0 + threadIdx.x` of `out` from `tile[threadIdx.x][threadIdx.y + k]`.
# </details>
#
# <details><summary>Hint 2 — the bounds, and "wrong only on some shapes"</summary>
#
# Each phase checks its own element: phase 1 that `x`'s row is below `n_rows` and its column
# below `n_cols`; phase 2 that `out`'s row is below `n_cols` and its column below `n_rows`. A
# thread may fail the first test and pass the second, which is why an early `return` loses
# elements of `out` ("still hold the fill value" on 3 × 7). Without a GPU, shared memory
# starts every block filled with NaN, and each launch runs again with the block's threads in
# another order: elements that "still hold the fill value" although your bounds are right, or
# "the result depends on thread order", mean the tile was read before it was full — no
# barrier between the loads into it and the reads from it.
# </details>
#
# <details><summary>Hint 3 — 64 bits, and the launcher</summary>
#
# `int` holds up to 2^31 − 1: widen one factor of each product, `(long long)row * stride_xm`
# and `(long long)out_row * n_rows`. The launcher: `block=(32, 4, 1)`, and a grid of
# `(tiles across the columns of x, tiles down its rows)`, x first; `gridDim.y` is limited to
# 65535. Every integer argument as `np.int32(...)`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "transpose_cu", "locked": false, "schema_version": 3, "solution": true}
TRANSPOSE_CU = r"""
#define TILE 32       // a block transposes a TILE x TILE tile of x
#define BLOCK_ROWS 4  // ... with TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS elements each

__global__ void transpose_kernel(const float *__restrict__ x,  // input, rows stride_xm apart
                                 float *__restrict__ out,      // output, n_cols x n_rows
                                 int n_rows,                   // rows of x
                                 int n_cols,                   // columns of x
                                 int stride_xm)                // elements between rows of x
{
    /// BEGIN SOLUTION
    // One column of padding: column c of the tile spans all 32 banks instead of one.
    __shared__ float tile[TILE][TILE + 1];
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;  // the tile's corner in x

    // Phase 1: threadIdx.x along a row of x, so a warp reads 32 neighbouring floats.
    const int col = col0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int row = row0 + threadIdx.y + k;
        // The last row and column of tiles run past the matrix. 64-bit: row * stride_xm
        // passes 2^31 - 1 on large matrices.
        if (row < n_rows && col < n_cols)
            tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * stride_xm + col];
    }
    // Every element of the tile is loaded (by threads of other warps, too) before any thread
    // reads one back. All threads reach this line: none has returned early.
    __syncthreads();

    // Phase 2: threadIdx.x along a row of out (= down a column of x), so a warp writes 32
    // neighbouring floats; the column of the tile is read from shared memory.
    const int out_col = row0 + threadIdx.x;  // a row of x
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int out_row = col0 + threadIdx.y + k;  // a column of x
        // out is n_cols x n_rows: its own bounds, not x's. 64-bit: out_row * n_rows.
        if (out_row < n_cols && out_col < n_rows)
            out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "transpose_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
transpose_kernel_cu = SourceModule(TRANSPOSE_CU).get_function("transpose_kernel")


def transpose_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x.T with transpose_kernel_cu, one block of TILE x BLOCK_ROWS threads per tile.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(32, 4, 1) and grid=(tiles across, tiles down).
    """
    ### BEGIN SOLUTION
    assert x.ndim == 2 and out.shape == (x.shape[1], x.shape[0]), \
        f"out must be x's shape turned around: x {tuple(x.shape)}, out {tuple(out.shape)}"
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = x.shape
    tile, block_rows = 32, 4  # TILE and BLOCK_ROWS in TRANSPOSE_CU
    grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, tile))
    assert grid[1] <= 65535, f"{n_rows} rows need {grid[1]} tiles down: gridDim.y <= 65535"
    transpose_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n_rows),
        np.int32(n_cols),
        np.int32(x.stride(0)),
        block=(tile, block_rows, 1),
        grid=grid,
    )
    ### END SOLUTION


# %% [markdown]
# ## Check your work
#
# Shapes include 1 × 1, a single row and a single column, non-square matrices with tails on
# both axes (3 × 7, 127 × 129) and padded rows. A failure names the shape and the first wrong
# elements of `out` by `[row, col]`: `out[j, i]` should hold `x[i, j]`.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", transpose_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", transpose_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", transpose_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", transpose_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ## How fast?
#
# A transpose reads and writes each element once, like a copy, so the goal is the device's
# copy bandwidth; `bench` prints GB/s and the share of that roof. torch's own
# `x.t().contiguous()`, the baseline in the plot, is a general strided copy and stays far
# below it.
#
# The lesson as a staircase of CUDA kernels, each one change from the last:
#
# | step | kernel | reads of `x` | writes of `out` | shared memory |
# |---|---|---|---|---|
# | naive | one element per thread, `threadIdx.x` along a row of `x` | coalesced | 32 rows apart: 8× the sectors | none |
# | coalesced | a 32 × 32 block stages its tile in `float tile[32][32]`, one element per thread | coalesced | coalesced | phase 2 reads a column: 32 accesses to one bank, one after another |
# | tiled | the same tile with 32 × 4 threads, 8 elements each | coalesced | coalesced | the same conflicts, but 8 loads in flight per thread and an eighth of the threads |
# | padded | `float tile[32][33]` | coalesced | coalesced | no conflicts |
#
# The GB/s of each step on 16384 × 16384 come from the H200 run: the lead fills them in here.
#
# Your kernels are graded against references that go one step further than the table: 16-byte
# loads and stores (`float4`) where the layout allows, and a thread-to-element mapping chosen
# so that the shared-memory accesses of those wider tiles stay free of bank conflicts.
#
# On a GPU, `bench` times your launcher against `x.t().contiguous()` from L2-resident sizes to
# 16384 × 16384, with a plot. Without a GPU it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", transpose_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", transpose_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", transpose_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", transpose_cuda, graded=True)
### END HIDDEN TESTS
