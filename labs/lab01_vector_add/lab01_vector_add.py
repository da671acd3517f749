# %% [markdown]
# # Lab 01 — Vector addition, in Triton and in CUDA C
#
# `out[i] = x[i] + y[i]` for `n` float32 elements. Simple on purpose: this lab is about the
# **launch model**, the same idea written twice.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | which piece of work am I? | `pid = tl.program_id(axis=0)` — one *program* handles a whole block | `blockIdx.x * blockDim.x + threadIdx.x` — one *thread* handles one element (or a few) |
# | how many of me? | the launch grid `grid = (triton.cdiv(n, BLOCK_SIZE),)` | `grid=(blocks, 1)`, `block=(threads, 1, 1)` |
# | a block of indices | `offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)` | each thread computes its own `i` |
# | the last block runs past the end | `mask = offs < n_elements`, passed to `tl.load` / `tl.store` | `if (i < n) { ... }`, or a grid-stride loop `for (i = ...; i < n; i += stride)` |
# | wide memory access | `tl.load` of a block: the compiler vectorises | `float4` loads: four floats per instruction, with a scalar tail |
#
# **What you write**: the Triton kernel `vector_add_kernel` and its launcher `vector_add_triton`,
# the CUDA kernel `vector_add_kernel` (in the string `VECTOR_ADD_CU`) and its launcher
# `vector_add_cuda`. Each launcher receives the output `out` already allocated: write into it.
#
# **How you are graded**: correctness on many sizes you do not see (tails like 1, 3, 4097),
# with fresh random inputs; on a GPU, the bandwidth of your kernels against a reference.
# Without a GPU, Triton runs in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
import numpy as np
import torch
import triton
import triton.language as tl

from grader.cuda import SourceModule
from grader.notebook import bench, check

LAB = "lab01_vector_add"

# %% [markdown]
# ## Part 1 — Triton
#
# Each program loads one block of `BLOCK_SIZE` elements of `x` and `y`, adds them and stores
# the block. The last block usually runs past `n_elements`: mask its loads and stores.

# %% nbgrader={"grade": false, "grade_id": "vector_add_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def vector_add_kernel(
    x_ptr,  # first input
    y_ptr,  # second input
    out_ptr,  # output, same length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)
    ### END SOLUTION


def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y, launched as a 1-D grid of programs."""
    ### BEGIN SOLUTION
    assert x.shape == y.shape == out.shape, f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C
#
# The same operation, one thread per piece of work: `i = blockIdx.x * blockDim.x + threadIdx.x`;
# threads with `i` past the end must not touch memory. Start with one element per thread;
# for full marks on a GPU, give each thread one `float4` (four floats in one 16-byte load —
# what Triton's `tl.load` of a block does for you) and let the first threads finish the
# `n % 4` leftovers. torch's allocations are 16-byte aligned, so `float4` loads are legal.
# The kernel is compiled by pycuda's `SourceModule` on a GPU and by the lab's CPU backend
# without one — the same launch call.

# %% nbgrader={"grade": false, "grade_id": "vector_add_cu", "locked": false, "schema_version": 3, "solution": true}
VECTOR_ADD_CU = r"""
__global__ void vector_add_kernel(const float *__restrict__ x,  // first input
                                  const float *__restrict__ y,  // second input
                                  float *__restrict__ out,      // output, same length
                                  int n)                        // number of elements
{
    /// BEGIN SOLUTION
    // Thread i adds the four floats of float4 number i: one 16-byte load per input instead of
    // four 4-byte ones. The n % 4 floats left at the end are added one each by the first threads.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {  // the last block runs past the end
        float4 a = reinterpret_cast<const float4 *>(x)[i];
        float4 b = reinterpret_cast<const float4 *>(y)[i];
        reinterpret_cast<float4 *>(out)[i] =
            make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
    }
    int tail = 4 * n4 + i;
    if (tail < n) {
        out[tail] = x[tail] + y[tail];
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "vector_add_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
vector_add_kernel_cu = SourceModule(VECTOR_ADD_CU).get_function("vector_add_kernel")


def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y with the CUDA kernel above: pass pointers as np.uintp, sizes as np.int32."""
    ### BEGIN SOLUTION
    n = out.numel()
    threads = 256
    # One thread per float4, at least one block for the scalar tail of a tiny vector.
    blocks = max((n // 4 + threads - 1) // threads, 1)
    vector_add_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(y.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ## Check your work
#
# Each check runs your launcher on several sizes (tails included) with random inputs and
# compares with `x + y`. A failure names the size and the first wrong elements.

# %% nbgrader={"grade": true, "grade_id": "test_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", vector_add_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", vector_add_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", vector_add_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", vector_add_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ## How fast?
#
# On a GPU, `bench` times both launchers against `torch.add` on sizes from L2-resident to
# far larger than the L2, prints GB/s and % of the device's copy bandwidth, and plots them.
# Without a GPU it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", vector_add_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", vector_add_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", vector_add_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", vector_add_cuda, graded=True)
### END HIDDEN TESTS
