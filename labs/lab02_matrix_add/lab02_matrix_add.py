# %% [markdown]
# # Lab 02 — Matrix addition: the 2-D launch, in Triton and in CUDA C
#
# Lab 01 launched a line of workers over a vector. A matrix has two axes, and so does the launch
# here: each Triton *program* or each CUDA *thread block* owns one rectangular **tile** of the
# matrix. Two exercises, float32 only:
#
# 1. **`matrix_copy`** (warm-up): `out = x`. Rows of `x` may be **padded**: `x.stride(0)` can be
#    larger than `n_cols` (the padding holds NaN); `x.stride(1)` is 1.
# 2. **`matrix_add`**: `out = x + y` where `x` and `y` are **any strided views**: contiguous,
#    padded rows, **transposed** (`x.stride() == (1, n_rows)`: the columns are contiguous, not
#    the rows), or starting one element into their storage.
#
# In both, `out` is contiguous (`out.stride() == (n_cols, 1)`) and arrives allocated: write
# into it.
#
# **What you will learn**
# - a 2-D grid: which tile is mine (`tl.program_id(0)`, `tl.program_id(1)` ↔ `blockIdx.y`,
#   `blockIdx.x`), and how many tiles to launch;
# - element `(i, j)` of a strided view is at `i * stride(0) + j * stride(1)` — never
#   `i * n_cols + j`, unless you know the view is contiguous;
# - masks on **both** axes: the last row *and* the last column of tiles run past the matrix;
# - **coalescing**: which axis the 32 threads of a warp should walk, and why;
# - **64-bit offsets**: a 46341 × 46341 float32 matrix already has more than 2^31 elements, and
#   a view of a few rows far apart in a large buffer has offsets past 2^31 just as well.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | which tile am I? | `pid_m = tl.program_id(axis=0)` (rows), `pid_n = tl.program_id(axis=1)` (columns) | `blockIdx.y` (rows), `blockIdx.x` (columns); inside the block, `threadIdx.x` and `threadIdx.y` |
# | how many of me? | `grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))` | `grid=(cdiv(n_cols, TILE), cdiv(n_rows, TILE))`, `block=(TILE, BLOCK_ROWS, 1)`: x first, and x is the columns |
# | the tile's indices | `offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)`, then `offs_m[:, None]` (a column) and `offs_n[None, :]` (a row) broadcast to a `BLOCK_SIZE_M × BLOCK_SIZE_N` tile | each thread has one `col`; it loops over the rows of its tile, `BLOCK_ROWS` apart |
# | element `(i, j)` of a strided view | `x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn` | `x[(long long)row * stride_xm + (long long)col * stride_xn]` |
# | the edges | `mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)` on every load and store | `if (col < n_cols)` and `if (row < n_rows)` around every access |
# | coalescing | Triton lays the threads out along the contiguous axis for you (it knows `stride_xn` is 1: an integer argument equal to 1 is compiled as a constant) | yours to get right: `threadIdx.x` along the **columns** |
# | offsets past 2^31 − 1 | `tl.program_id(0).to(tl.int64)` before any multiplication by a stride | `(long long)row * stride_xm` |
# | grid limits | axis 0 up to 2^31 − 1 programs, axes 1 and 2 up to 65535 | `gridDim.x` up to 2^31 − 1, `gridDim.y` and `gridDim.z` up to 65535 |
# | strides | `x.stride(0)`, `x.stride(1)`: in **elements**, not bytes; passed as plain ints | the same numbers, as `np.int32(x.stride(0))` |
#
# **How you are graded**: correctness on many shapes you do not see (1 × 1, a single row or
# column, tails on both axes, primes, every layout above, and on a GPU a view whose offsets
# pass 2^31 and a matrix of more than 65535 rows), with fresh random inputs; on a GPU, the
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

LAB = "lab02_matrix_add"

# %% [markdown]
# ## Part 1 — warm-up: `matrix_copy` in Triton
#
# Cut the matrix into tiles of `BLOCK_SIZE_M` rows × `BLOCK_SIZE_N` columns and launch one
# program per tile, on a **2-D grid**: `tl.program_id(axis=0)` numbers the tile's row of tiles,
# `tl.program_id(axis=1)` its column of tiles. Inside a program, `tl.arange` gives a 1-D range;
# indexing it with `[:, None]` makes it a column and with `[None, :]` a row, and an arithmetic
# operation between a column and a row **broadcasts** to the whole tile, as in numpy.
#
# `x`'s rows are `stride_xm` elements apart (more than `n_cols` when the rows are padded); its
# columns are adjacent. `out` is contiguous: its rows are `n_cols` apart.
#
# <details><summary>Hint 1 — the tile's row and column indices</summary>
#
# `offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)` are the rows this program owns,
# `offs_n` likewise its columns. `offs_m[:, None] * stride_xm + offs_n[None, :]` is then a
# `BLOCK_SIZE_M × BLOCK_SIZE_N` tile of element offsets into `x`: add it to `x_ptr` and
# `tl.load` the whole tile at once.
# </details>
#
# <details><summary>Hint 2 — a tile on the edge</summary>
#
# Unless `BLOCK_SIZE_M` divides `n_rows`, the last row of tiles has rows past the end of the
# matrix; unless `BLOCK_SIZE_N` divides `n_cols`, the last column of tiles has columns past the
# end of each row — and a column past the end of row `i` is not outside the buffer, it is the
# start of row `i + 1` (or its padding). Build one boolean tile from a test on each axis,
# combined with `&`, and pass it as `mask=` to both the load and the store.
# </details>
#
# <details><summary>Hint 3 — "right on small matrices, wrong or crashing on huge ones"</summary>
#
# `tl.program_id` is a 32-bit integer, and so is everything computed from it: once
# `offs_m * stride_xm` passes 2^31 − 1 (a matrix of more than 2^31 elements, or rows very far
# apart) it wraps around to a negative offset. Convert the program id with `.to(tl.int64)`
# before multiplying. The launcher: the grid is a tuple of two numbers of tiles,
# `triton.cdiv` rounds up, and `x.stride(0)` is `stride_xm`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matrix_copy_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def matrix_copy_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xm elements apart
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_rows,  # rows
    n_cols,  # columns
    stride_xm,  # elements between the starts of two rows of x (>= n_cols)
    BLOCK_SIZE_M: tl.constexpr,  # rows per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns per tile
):
    ### BEGIN SOLUTION
    # 64-bit: offs_m * stride_xm passes 2^31 - 1 on a matrix of more than 2^31 elements.
    pid_m = tl.program_id(axis=0).to(tl.int64)
    pid_n = tl.program_id(axis=1)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # this tile's rows
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # this tile's columns
    # Tiles of the last row and of the last column of tiles run past the matrix.
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x, mask=mask)
    ### END SOLUTION


def matrix_copy_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x, one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile, on a 2-D grid."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape and x.ndim == 2, f"shapes differ: {x.shape}, {out.shape}"
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = x.shape
    # 4096 elements per program: 32 per thread of the 4 default warps, in 16-byte loads.
    BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 128
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))
    matrix_copy_kernel[grid](x, out, n_rows, n_cols, x.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N)
    ### END SOLUTION


# %% [markdown]
# ## Part 1 — warm-up: `matrix_copy` in CUDA C
#
# A thread block is 2-D too: `block=(TILE, BLOCK_ROWS, 1)` is `TILE × BLOCK_ROWS` threads, and
# each block owns a `TILE × TILE` tile of the matrix. Each thread owns one **column** of its
# tile and copies `TILE / BLOCK_ROWS` of its rows, `BLOCK_ROWS` apart (the constants are given at
# the top of `MATRIX_COPY_CU`).
#
# **Coalescing: why `threadIdx.x` runs along the columns.** A warp is 32 threads with
# consecutive `threadIdx.x` (the thread's number in its block is
# `threadIdx.x + threadIdx.y * blockDim.x`), and it issues each load *together*: the memory
# system serves the 32 addresses in 32-byte sectors. In a row-major matrix, neighbouring
# columns are neighbouring addresses, so with `col = ... + threadIdx.x` one load of a warp is
# 32 consecutive floats, 128 bytes, 4 sectors, every byte used. With `threadIdx.x` along the
# rows instead, the 32 addresses are a whole row apart: 32 sectors moved for 128 useful bytes,
# and a kernel several times slower. (A transposed input is read across its rows whatever you
# do; reading it well needs a tile staged through shared memory, the subject of a later lab.
# The graded bandwidth is measured on contiguous matrices.)
#
# **Why several rows per thread**: each thread then has several independent loads in flight,
# which is what keeps HBM busy (lab 01 got the same effect from 16-byte loads).
#
# **Why pointers that step down, not an offset per element**: `(long long)row * stride_xm` is a
# 64-bit multiplication, which the GPU does as several 32-bit instructions. Per element of a
# copy or an add, that arithmetic costs about as much time as the memory it addresses. Compute
# each pointer once, at the thread's first row, then move it `BLOCK_ROWS` rows down with an
# addition. Measured on an H200 at 16384 × 16384: `matrix_add` with an offset multiplied out
# per element and 4 rows per thread moved 0.83× the reference's bytes per second; with
# stepped pointers and 8 rows per thread, 0.98×.
#
# <details><summary>Hint 1 — from the block and thread to (row, col)</summary>
#
# The tile's first column is `blockIdx.x * TILE` and its first row `blockIdx.y * TILE`. The
# thread's column is `blockIdx.x * TILE + threadIdx.x`; its rows are
# `row0 + k` with `row0 = blockIdx.y * TILE + threadIdx.y` and `k = 0, BLOCK_ROWS,
# 2 * BLOCK_ROWS, …` below `TILE`.
# </details>
#
# <details><summary>Hint 2 — the edges, and the launcher</summary>
#
# A thread whose column is `>= n_cols` has nothing to do; a row `>= n_rows` must be skipped.
# Element `(row, col)` is `x[row * stride_xm + col]` and `out[row * n_cols + col]`: start
# `xp = x + row0 * stride_xm + col` (and `op` likewise), then after each row
# `xp += BLOCK_ROWS * stride_xm`, `op += BLOCK_ROWS * n_cols`. In the
# launcher, `grid=(number of tiles across the columns, number of tiles down the rows)` — x
# first — and every integer argument as `np.int32(...)` to match the kernel's `int`s.
# </details>
#
# <details><summary>Hint 3 — 64 bits</summary>
#
# `int` holds up to 2^31 − 1: `row * stride_xm` overflows once it passes that (a matrix of
# more than 2^31 elements, or rows very far apart), and signed overflow is undefined behaviour
# in C. Widen one factor first, `(long long)row * stride_xm`, so the multiplication is done in
# 64 bits.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matrix_copy_cu", "locked": false, "schema_version": 3, "solution": true}
MATRIX_COPY_CU = r"""
#define TILE 32       // a block owns a TILE x TILE tile of the matrix
#define BLOCK_ROWS 4  // ... with TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS rows per thread

__global__ void matrix_copy_kernel(const float *__restrict__ x,  // input, rows stride_xm apart
                                   float *__restrict__ out,      // output, contiguous
                                   int n_rows,                   // rows
                                   int n_cols,                   // columns
                                   int stride_xm)                // elements between rows of x
{
    /// BEGIN SOLUTION
    // threadIdx.x along the row: a warp reads 32 neighbouring floats, one coalesced access.
    const int col = blockIdx.x * TILE + threadIdx.x;
    if (col >= n_cols) return;  // the last column of tiles runs past the matrix
    const int row0 = blockIdx.y * TILE + threadIdx.y;  // this thread's first row
    // 64-bit: row * stride_xm passes 2^31 - 1 on a matrix of more than 2^31 elements.
    const float *xp = x + (long long)row0 * stride_xm + col;
    float *op = out + (long long)row0 * n_cols + col;
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {  // a constant count: the loads overlap
        if (row0 + k < n_rows) *op = *xp;  // the last row of tiles runs past the matrix
        xp += (long long)BLOCK_ROWS * stride_xm;  // BLOCK_ROWS rows down: an addition
        op += (long long)BLOCK_ROWS * n_cols;
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "matrix_copy_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
matrix_copy_kernel_cu = SourceModule(MATRIX_COPY_CU).get_function("matrix_copy_kernel")


def matrix_copy_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = x with matrix_copy_kernel_cu, one block of TILE x BLOCK_ROWS threads per tile.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(32, 4, 1) and grid=(tiles across, tiles down).
    """
    ### BEGIN SOLUTION
    assert x.shape == out.shape and x.ndim == 2, f"shapes differ: {x.shape}, {out.shape}"
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = x.shape
    tile, block_rows = 32, 4  # TILE and BLOCK_ROWS in MATRIX_COPY_CU
    grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, tile))
    assert grid[1] <= 65535, f"{n_rows} rows need {grid[1]} tiles down: gridDim.y <= 65535"
    matrix_copy_kernel_cu(
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
# ### Check the warm-up
#
# Shapes include 1 × 1, a single row, a single column, tails on both axes and padded rows. A
# failure names the shape and the first wrong elements by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_matrix_copy_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", matrix_copy_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", matrix_copy_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_matrix_copy_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", matrix_copy_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", matrix_copy_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# On a GPU, `bench` times your copy against `x.clone()` from L2-resident sizes to 16384 × 16384,
# in GB/s and % of the device's copy bandwidth, with a plot. Without a GPU it says
# "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_matrix_copy_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", matrix_copy_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", matrix_copy_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_matrix_copy_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", matrix_copy_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", matrix_copy_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Part 2 — `matrix_add` in Triton: any strides
#
# Now both inputs are arbitrary views, and each has **two** strides: element `(i, j)` of `x` is
# at `x_ptr + i * stride_xm + j * stride_xn`. Take them from `x.stride(0)`, `x.stride(1)`,
# `y.stride(0)`, `y.stride(1)`. For a transposed view `stride_xm` is 1 and `stride_xn` is
# `n_rows`; for padded rows `stride_xm > n_cols`; for a contiguous matrix `(n_cols, 1)`. One
# kernel handles them all. `out` is contiguous.
#
# <details><summary>Hint 1 — the same tile, two strides per input</summary>
#
# Keep the warm-up's `offs_m`, `offs_n` and mask. The offsets of `x`'s tile are
# `offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn`; `y` has its own two strides;
# `out`'s offsets are the warm-up's.
# </details>
#
# <details><summary>Hint 2 — "right when contiguous, wrong when padded or transposed"</summary>
#
# Somewhere a shape stands in for a stride: `n_cols` where `stride_xm` belongs (true only for
# contiguous rows), or `1` where `stride_xn` belongs (false for a transposed view). Or the
# strides are swapped: `stride_xm` goes with the row index `offs_m`.
# </details>
#
# <details><summary>Hint 3 — 64 bits, on both axes</summary>
#
# For a transposed `x`, `offs_n * stride_xn` is `column × n_rows`, which passes 2^31 as
# easily as `row × stride_xm` does: convert both program ids to `tl.int64`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matrix_add_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def matrix_add_kernel(
    x_ptr,  # first input, n_rows x n_cols, any strides
    y_ptr,  # second input, n_rows x n_cols, any strides
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_rows,  # rows
    n_cols,  # columns
    stride_xm,  # elements between x[i, j] and x[i + 1, j]
    stride_xn,  # elements between x[i, j] and x[i, j + 1]
    stride_ym,  # the same for y
    stride_yn,
    BLOCK_SIZE_M: tl.constexpr,  # rows per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns per tile
):
    ### BEGIN SOLUTION
    # 64-bit on both axes: for a transposed view, offs_n * stride_xn passes 2^31 as well.
    pid_m = tl.program_id(axis=0).to(tl.int64)
    pid_n = tl.program_id(axis=1).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)  # both edges
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x + y, mask=mask)
    ### END SOLUTION


def matrix_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y for any strides of x and y; out is contiguous."""
    ### BEGIN SOLUTION
    assert x.shape == y.shape == out.shape and x.ndim == 2, \
        f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    n_rows, n_cols = x.shape
    BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 128
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols,
                            x.stride(0), x.stride(1), y.stride(0), y.stride(1),
                            BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — `matrix_add` in CUDA C
#
# The warm-up's tiles and threads, with two strides per input. Keep `threadIdx.x` along the
# columns of `out`: its stores stay coalesced whatever the inputs' layouts.
#
# <details><summary>Hint 1 — the element of a strided view</summary>
#
# `x[(long long)row * stride_xm + (long long)col * stride_xn]`, and the same with `y`'s
# strides; `out[(long long)row * n_cols + col]`. As in the warm-up, form each pointer once at
# `row0` and step it by `BLOCK_ROWS` rows (`xp += (long long)BLOCK_ROWS * stride_xm`).
# </details>
#
# <details><summary>Hint 2 — "never written" or "differ" on non-square shapes only</summary>
#
# Check that the axis each index runs along matches the grid: `blockIdx.x` and `threadIdx.x`
# are the columns, and the grid's first number counts tiles across the columns. On a square
# matrix a swap of the two can go unnoticed; on 127 × 129 it cannot.
# </details>

# %% nbgrader={"grade": false, "grade_id": "matrix_add_cu", "locked": false, "schema_version": 3, "solution": true}
MATRIX_ADD_CU = r"""
#define TILE 32       // a block owns a TILE x TILE tile of the matrix
#define BLOCK_ROWS 4  // ... with TILE x BLOCK_ROWS threads: TILE / BLOCK_ROWS rows per thread

__global__ void matrix_add_kernel(const float *__restrict__ x,  // first input, any strides
                                  const float *__restrict__ y,  // second input, any strides
                                  float *__restrict__ out,      // output, contiguous
                                  int n_rows,                   // rows
                                  int n_cols,                   // columns
                                  int stride_xm,  // elements between x[i][j] and x[i + 1][j]
                                  int stride_xn,  // elements between x[i][j] and x[i][j + 1]
                                  int stride_ym,  // the same for y
                                  int stride_yn)
{
    /// BEGIN SOLUTION
    const int col = blockIdx.x * TILE + threadIdx.x;  // coalesced along out's rows
    if (col >= n_cols) return;
    const long long row0 = blockIdx.y * TILE + threadIdx.y;  // 64-bit offsets below
    const float *xp = x + row0 * stride_xm + (long long)col * stride_xn;
    const float *yp = y + row0 * stride_ym + (long long)col * stride_yn;
    float *op = out + row0 * n_cols + col;
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        if (row0 + k < n_rows) *op = *xp + *yp;
        xp += (long long)BLOCK_ROWS * stride_xm;  // each pointer BLOCK_ROWS rows down
        yp += (long long)BLOCK_ROWS * stride_ym;
        op += (long long)BLOCK_ROWS * n_cols;
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "matrix_add_cuda", "locked": false, "schema_version": 3, "solution": true}
matrix_add_kernel_cu = SourceModule(MATRIX_ADD_CU).get_function("matrix_add_kernel")


def matrix_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y with matrix_add_kernel_cu; x and y any strides, out contiguous.

    As in the warm-up: the arguments in the kernel's order, as C types (np.uintp for the
    tensors, np.int32 for every int, the strides included), block=(32, 4, 1).
    """
    ### BEGIN SOLUTION
    assert x.shape == y.shape == out.shape and x.ndim == 2, \
        f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    n_rows, n_cols = x.shape
    tile, block_rows = 32, 4  # TILE and BLOCK_ROWS in MATRIX_ADD_CU
    grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, tile))
    assert grid[1] <= 65535, f"{n_rows} rows need {grid[1]} tiles down: gridDim.y <= 65535"
    matrix_add_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(y.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n_rows),
        np.int32(n_cols),
        np.int32(x.stride(0)),
        np.int32(x.stride(1)),
        np.int32(y.stride(0)),
        np.int32(y.stride(1)),
        block=(tile, block_rows, 1),
        grid=grid,
    )
    ### END SOLUTION


# %% [markdown]
# ### Check `matrix_add`
#
# Shapes include tails on both axes, one input with padded rows, one transposed, and both
# strided differently at once. A failure names the layouts, e.g.
# `[n_rows=129, n_cols=127, y transposed]`.

# %% nbgrader={"grade": true, "grade_id": "test_matrix_add_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", matrix_add_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", matrix_add_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_matrix_add_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", matrix_add_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", matrix_add_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# On a GPU: GB/s of both launchers against `x + y` in torch, on contiguous matrices up to
# 16384 × 16384.

# %% nbgrader={"grade": true, "grade_id": "perf_matrix_add_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", matrix_add_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", matrix_add_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_matrix_add_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", matrix_add_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", matrix_add_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Beyond pointer arithmetic: tensor descriptors (not graded)
#
# Older Triton code describes a tile with `tl.make_block_ptr`. Block pointers are gone: since
# Triton 3.9, `tl.make_block_ptr` raises *"Block pointers have been removed in favor of the
# tensor descriptor API"*. Their successor describes the whole matrix once — base, shape,
# strides, tile shape — and loads tiles by their coordinates; the edges are handled for you.
# On Hopper (the H200) the loads and stores go through the **TMA**, the copy engine next to
# each SM:
#
# ```python
# @triton.jit
# def matrix_add_tma_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_ym,
#                           BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
#     # Each matrix described once: rows stride_*m apart, columns adjacent.
#     x_desc = tl.make_tensor_descriptor(x_ptr, shape=[n_rows, n_cols], strides=[stride_xm, 1],
#                                        block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
#     y_desc = tl.make_tensor_descriptor(y_ptr, shape=[n_rows, n_cols], strides=[stride_ym, 1],
#                                        block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
#     out_desc = tl.make_tensor_descriptor(out_ptr, shape=[n_rows, n_cols], strides=[n_cols, 1],
#                                          block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
#     m = tl.program_id(0) * BLOCK_SIZE_M  # the tile's first row and column
#     n = tl.program_id(1) * BLOCK_SIZE_N
#     x = x_desc.load([m, n])  # outside the matrix: reads zeros
#     y = y_desc.load([m, n])
#     out_desc.store([m, n], x + y)  # outside the matrix: not written
# ```
#
# The hardware's rules come with it: the base must be 16-byte aligned, the last stride must be
# 1 (a transposed view is described as its storage, with the two axes swapped), and every other
# stride a multiple of 16 bytes — 4 floats: rows padded by 31 do not qualify. A descriptor
# built inside the kernel needs a little global scratch memory, given once per process with
# `triton.set_allocator(...)`. Your graded kernels use plain pointer arithmetic, which works
# for every view and on every Triton version.
