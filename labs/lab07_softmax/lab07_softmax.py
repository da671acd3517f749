# %% [markdown]
# # Lab 07 — Row softmax, in Triton and in CUDA C
#
# `out[r, c] = exp(x[r, c] - m_r) / sum_c' exp(x[r, c'] - m_r)` with `m_r = max_c x[r, c]`,
# for a float32 matrix of `n_rows × n_cols` (up to 16384 columns). Rows of `x` may be
# **padded**: `x.stride(0)` can be larger than `n_cols`; `out` is contiguous.
#
# Subtracting the row max does not change the result, but without it `exp(200.0)` overflows
# float32 and the row becomes `inf / inf = nan`. The tests use such rows.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | one row per worker | `row = tl.program_id(0)`, the whole row in one block: `BLOCK_SIZE = triton.next_power_of_2(n_cols)` | `row = blockIdx.x`; the block's threads stride over the row: `for (c = threadIdx.x; c < n_cols; c += blockDim.x)` |
# | padded rows | `x_ptr + row * stride_xr + offs` | `x + (size_t)row * stride_xr + c` |
# | the columns past `n_cols` | `tl.load(..., mask=offs < n_cols, other=-float("inf"))`: the padding cannot win the max and adds `exp(-inf) = 0` to the sum | a sentinel: a thread with no columns starts its max at `-INFINITY` and its sum at `0` |
# | reductions | `tl.max(x, axis=0)`, `tl.sum(e, axis=0)` | each thread reduces its columns, then the block combines: partials in `extern __shared__` memory halved in a tree with `__syncthreads()` between steps (or warp shuffles `__shfl_xor_sync`) |
# | read once | the row stays in registers between max, exp and sum | re-reading the row is served by the L2 cache; a register-cached row is faster (see the reference) |
#
# **What you write**: the Triton kernel `softmax_kernel` and launcher `softmax_triton`; the CUDA
# kernel `softmax_kernel` (string `SOFTMAX_CU`) and launcher `softmax_cuda`. Launchers receive
# `out` already allocated.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import torch
import triton
import triton.language as tl

from grader.cuda import SourceModule
from grader.notebook import bench, check

LAB = "lab07_softmax"

# %% [markdown]
# ## Part 1 — Triton
#
# One program per row. Load the row with a mask and `other=-inf`, subtract its max,
# exponentiate, divide by the sum, store with the same mask.

# %% nbgrader={"grade": false, "grade_id": "softmax_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def softmax_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_cols,  # columns per row
    stride_xr,  # elements between the starts of two rows of x
    BLOCK_SIZE: tl.constexpr,  # a power of two >= n_cols
):
    ### BEGIN SOLUTION
    row = tl.program_id(0).to(tl.int64)  # row * stride can pass 2^31 on large inputs
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols  # the block is wider than the row
    x = tl.load(x_ptr + row * stride_xr + offs, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)
    ### END SOLUTION


def softmax_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = softmax(x, dim=1), one program per row."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    # More warps for longer rows: each thread then holds at most 32 elements in registers.
    num_warps = min(max(BLOCK_SIZE // 1024, 4), 16)
    softmax_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=num_warps)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C
#
# One block per row. Each thread reduces the columns `threadIdx.x, threadIdx.x + blockDim.x, …`;
# then the block combines the per-thread results in shared memory. Three passes over the row:
# max, sum of exponentials, write.

# %% nbgrader={"grade": false, "grade_id": "softmax_cu", "locked": false, "schema_version": 3, "solution": true}
SOFTMAX_CU = r"""
// Combine one value per thread into one value per block, in dynamic shared memory.
// blockDim.x must be a power of two; every thread of the block must call it.
__device__ float block_reduce(float v, bool is_max)
{
    extern __shared__ float partial[];
    partial[threadIdx.x] = v;
    __syncthreads();
    /// BEGIN SOLUTION
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float other = partial[threadIdx.x + half];
            partial[threadIdx.x] = is_max ? fmaxf(partial[threadIdx.x], other)
                                          : partial[threadIdx.x] + other;
        }
        __syncthreads();  // the next step reads what this one wrote
    }
    /// END SOLUTION
    float result = partial[0];
    __syncthreads();  // partial[] is reused by the next reduction
    return result;
}

__global__ void softmax_kernel(const float *__restrict__ x,  // input, n_rows x n_cols
                               float *__restrict__ out,      // output, contiguous
                               int n_cols,                   // columns per row
                               int stride_xr)                // elements between rows of x
{
    /// BEGIN SOLUTION
    const float *row_in = x + (size_t)blockIdx.x * stride_xr;
    float *row_out = out + (size_t)blockIdx.x * n_cols;
    float m = -INFINITY;  // the sentinel: a thread with no columns cannot win the max
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) m = fmaxf(m, row_in[c]);
    m = block_reduce(m, true);
    float s = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) s += expf(row_in[c] - m);
    s = block_reduce(s, false);
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) row_out[c] = expf(row_in[c] - m) / s;
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "softmax_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
softmax_kernel_cu = SourceModule(SOFTMAX_CU).get_function("softmax_kernel")


def softmax_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = softmax(x, dim=1), one block per row; `shared=` sizes extern __shared__ in bytes."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    threads = 256
    softmax_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n_cols),
        np.int32(x.stride(0)),
        block=(threads, 1, 1),
        grid=(n_rows, 1),
        shared=threads * 4,
    )
    ### END SOLUTION


# %% [markdown]
# ## Check your work
#
# Shapes include a single element, padded rows, and rows scaled by 200 (which overflow
# `exp` unless the max is subtracted).

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", softmax_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", softmax_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", softmax_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", softmax_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ## How fast?
#
# On a GPU: GB/s of both launchers against `torch.softmax` and the copy roof, with a plot.

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", softmax_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", softmax_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", softmax_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", softmax_cuda, graded=True)
### END HIDDEN TESTS
