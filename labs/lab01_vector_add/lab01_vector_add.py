# %% [markdown]
# # Lab 01 — Vector addition, in Triton and in CUDA C
#
# `out[i] = x[i] + y[i]` for `n` elements of **float32, float16 or bfloat16** (`x`, `y` and
# `out` always share one dtype). Simple on purpose: this lab is about the **launch model**, the
# same idea written twice, and about moving data in wide, aligned pieces whatever its type.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | which piece of work am I? | `pid = tl.program_id(axis=0)` — one *program* handles a whole block | `blockIdx.x * blockDim.x + threadIdx.x` — one *thread* handles one element (or a few) |
# | how many of me? | the launch grid `grid = (triton.cdiv(n, BLOCK_SIZE),)` | `grid=(blocks, 1)`, `block=(threads, 1, 1)` |
# | a block of indices | `offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)` | each thread computes its own `i` |
# | the last block runs past the end | `mask = offs < n_elements`, passed to `tl.load` / `tl.store` | `if (i < n) { ... }`, or a grid-stride loop `for (i = ...; i < n; i += stride)` |
# | wide memory access | `tl.load` of a block: the compiler vectorises | one 16-byte load per thread (`uint4`): 4 floats or 8 16-bit values, with a scalar tail |
# | the dtype | one kernel for all three: the pointers carry it (`out_ptr.dtype.element_ty`) and Triton compiles a version per dtype | one `__global__` kernel per dtype, `extern "C"`; the launcher picks one by `x.dtype` |
# | float16 / bfloat16 | `x.to(tl.float32)` after the load, `.to(out_ptr.dtype.element_ty)` before the store | `__half` (`<cuda_fp16.h>`) and `__nv_bfloat16` (`<cuda_bf16.h>`): widen with `to_float(v)`, round back with `from_float<T>(s)` (given) |
# | passing arguments | the tensors themselves: `vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=...)` | raw pointers and C-sized integers: `np.uintp(x.data_ptr())` for `const T *x`, `np.int32(n)` for `int n` |
#
# **What you write**: the Triton kernel `vector_add_kernel` and its launcher `vector_add_triton`;
# in CUDA C (the string `VECTOR_ADD_CU`) the body of the template `vector_add<T>`, which the
# kernels `vector_add_kernel_f32`, `vector_add_kernel_f16` and `vector_add_kernel_bf16` call, and
# the launcher `vector_add_cuda`. Each launcher receives the output `out` already allocated:
# write into it. Add in float32 and round once to the output's dtype, as `torch.add` does.
#
# **How you are graded**: correctness in each of the three dtypes on many sizes you do not see
# (tails like 1, 3, 4097), with fresh random inputs; on a GPU, the bandwidth of your kernels
# against a reference. Without a GPU, Triton runs in its interpreter and CUDA C on the CPU:
# correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab01_vector_add"

# %% [markdown]
# ## Part 1 — Triton
#
# Each program loads one block of `BLOCK_SIZE` elements of `x` and `y`, adds them and stores
# the block. The last block usually runs past `n_elements`: mask its loads and stores.
#
# The kernel is written once for the three dtypes: `tl.load` returns the pointer's element
# type, and Triton compiles (and caches) one version of the kernel per dtype it is called with.
# Widen both inputs with `.to(tl.float32)`, add, and round the sum back with
# `.to(out_ptr.dtype.element_ty)` before `tl.store`. On a GPU, adding in float16 would give the
# same result; the interpreter (used without a GPU) cannot do arithmetic on bfloat16 at all, so
# widening first is also what makes your kernel testable on a laptop.
#
# <details><summary>Hint 1 — which elements a program owns</summary>
#
# `tl.program_id(axis=0)` is this program's index in the grid. Its block starts at
# `pid * BLOCK_SIZE`; `tl.arange(0, BLOCK_SIZE)` added to that start gives the block's
# `BLOCK_SIZE` offsets at once, one per lane.
# </details>
#
# <details><summary>Hint 2 — the last block</summary>
#
# A comparison of the offsets with `n_elements` is a block of booleans. Pass it as `mask=` to
# both loads and to the store: the lanes past the end then read nothing and write nothing.
# </details>
#
# <details><summary>Hint 3 — pointers and values</summary>
#
# `x_ptr + offs` is a block of addresses; `tl.load` of it is a block of values in the tensor's
# dtype. Widen both with `.to(tl.float32)`, add, and give `tl.store` the sum rounded with
# `.to(out_ptr.dtype.element_ty)`.
# </details>
#
# <details><summary>Hint 4 — the launcher</summary>
#
# The grid is a tuple: one program per block, `triton.cdiv(n, BLOCK_SIZE)` of them. A kernel is
# launched as `kernel[grid](...)`, with the tensors themselves (Triton passes their addresses),
# `n`, and the block size as a keyword: `BLOCK_SIZE=1024`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "vector_add_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def vector_add_kernel(
    x_ptr,  # first input: float32, float16 or bfloat16
    y_ptr,  # second input, same dtype
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end: its extra lanes touch nothing
    # Add in float32 whatever the storage type, then round once to the output's dtype.
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y, launched as a 1-D grid of programs; any of float32, float16, bfloat16."""
    ### BEGIN SOLUTION
    assert x.shape == y.shape == out.shape, f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% [markdown]
# ## Part 2 — CUDA C
#
# The same operation, one thread per piece of work: `i = blockIdx.x * blockDim.x + threadIdx.x`;
# threads with `i` past the end must not touch memory.
#
# **One kernel per dtype.** A C pointer has one element type, so the source writes the work
# once, as the template `vector_add<T>` (`T` = `float`, `__half` or `__nv_bfloat16`), and three
# `extern "C" __global__` kernels — `vector_add_kernel_f32`, `vector_add_kernel_f16`,
# `vector_add_kernel_bf16` — each calling it with its type. `extern "C"` keeps their names as
# written, so `get_function("vector_add_kernel_f16")` finds them (C++ would mangle the name).
# `<cuda_fp16.h>` and `<cuda_bf16.h>` are C++ headers, which do not compile inside the
# `extern "C" { }` that `SourceModule` wraps around a source by default: the cell compiles with
# `SourceModule(VECTOR_ADD_CU, no_extern_c=True)`, and each kernel says `extern "C"` itself.
# You write the body of `vector_add<T>`, and the launcher.
#
# **16-bit types.** `__half` and `__nv_bfloat16` are 16-bit storage types: add in float. Two
# helpers are given above the template: `to_float(v)` widens an element of any of the three
# types (`__half2float`, `__bfloat162float`), `from_float<T>(s)` rounds a float to `T`, to
# nearest even as torch does (`__float2half_rn`, `__float2bfloat16_rn`).
#
# **Wide loads.** Start with one element per thread:
# `out[i] = from_float<T>(to_float(x[i]) + to_float(y[i]))`. For full marks on a GPU, give each
# thread 16 bytes, the widest load a thread can issue (what Triton's `tl.load` of a block does
# for you): one `uint4` is `16 / sizeof(T)` elements, 4 floats or 8 16-bit values. Load it with
# `reinterpret_cast<const uint4 *>(x)[i]`, read its elements through
# `reinterpret_cast<const T *>(&a)`, and let the first threads finish the leftover
# `n % (16 / sizeof(T))` elements one each. torch's allocations are 16-byte aligned, so the
# `uint4` loads are legal (check it in the launcher: a view may start anywhere).
#
# **The launcher** passes raw addresses and C-sized integers; nothing converts them, so each must
# match its kernel parameter: `np.uintp(x.data_ptr())` for `const T *x` (the tensor's address
# on the device), `np.int32(n)` for `int n`. It picks the kernel for `x.dtype` from
# `vector_add_kernels_cu`. The kernel is compiled by pycuda's `SourceModule` on a GPU and by
# the lab's CPU backend without one — the same launch call.
#
# <details><summary>Hint 1 — one element per thread first</summary>
#
# Get the one-element version right before the wide one: thread `i` adds element `i` if
# `i < n`. It passes every test; only its speed is missing.
# </details>
#
# <details><summary>Hint 2 — chunks of 16 bytes</summary>
#
# `constexpr int PACK = sizeof(uint4) / sizeof(T);` is the number of elements in 16 bytes.
# Thread `i` now owns chunk `i`, elements `i * PACK` to `i * PACK + PACK - 1`; there are
# `n / PACK` whole chunks, and a thread past the last one loads nothing.
# </details>
#
# <details><summary>Hint 3 — the elements inside a uint4</summary>
#
# Load `a` and `b` as `uint4`, and read them as arrays of `T` through pointers to them,
# `reinterpret_cast<const T *>(&a)`; fill a third `uint4` the same way, element by element, in a
# loop of `PACK` steps under `#pragma unroll`, and store it once.
# </details>
#
# <details><summary>Hint 4 — the leftover elements</summary>
#
# The last `n % PACK` elements belong to no whole chunk. They start at `(n / PACK) * PACK`:
# thread `i` adds the leftover element at that start plus `i`, if it is below `n`, one element
# the narrow way.
# </details>
#
# <details><summary>Hint 5 — how many threads</summary>
#
# One thread per chunk: `n // pack` chunks (`pack = 16 // out.element_size()`), in blocks of
# 256 threads, so `triton.cdiv(n // pack, 256)` blocks, and never fewer than one: a vector
# shorter than a chunk still has its leftover elements.
# </details>

# %% nbgrader={"grade": false, "grade_id": "vector_add_cu", "locked": false, "schema_version": 3, "solution": true}
VECTOR_ADD_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// The arithmetic is done in float whatever the storage type: to_float widens one element,
// from_float<T> rounds a float back to T (to nearest even, as torch does).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// out = x + y for n elements of type T (float, __half or __nv_bfloat16): the kernels below
// call it with their own T.
template <class T>
__device__ __forceinline__ void vector_add(const T *__restrict__ x,  // first input
                                           const T *__restrict__ y,  // second input
                                           T *__restrict__ out,      // output, same length
                                           int n)                    // number of elements
{
    /// BEGIN SOLUTION
    // Thread i adds the elements of 16-byte chunk i: one uint4 load per input instead of 4
    // (float) or 8 (16-bit) narrow ones. The n % PACK elements after the last whole chunk are
    // added one each by the first threads.
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {  // the last block runs past the last whole chunk
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 b = reinterpret_cast<const uint4 *>(y)[i];
        uint4 c;
        // a, b and c seen as PACK elements each; indexed by constants once unrolled, they
        // stay in registers.
        const T *xs = reinterpret_cast<const T *>(&a);
        const T *ys = reinterpret_cast<const T *>(&b);
        T *sums = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            sums[k] = from_float<T>(to_float(xs[k]) + to_float(ys[k]));
        }
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % PACK threads have a leftover element
        out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]));
    }
    /// END SOLUTION
}

// One kernel per dtype; extern "C" keeps the names unmangled for get_function.
extern "C" __global__ void vector_add_kernel_f32(const float *__restrict__ x,
                                                 const float *__restrict__ y,
                                                 float *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f16(const __half *__restrict__ x,
                                                 const __half *__restrict__ y,
                                                 __half *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                                  const __nv_bfloat16 *__restrict__ y,
                                                  __nv_bfloat16 *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "vector_add_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# no_extern_c=True: the fp16/bf16 headers are C++, so the source cannot sit inside the
# extern "C" { } that SourceModule adds by default; each kernel is extern "C" itself.
vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
# The kernel for each dtype, by the name it has in VECTOR_ADD_CU.
vector_add_kernels_cu = {
    torch.float32: vector_add_module_cu.get_function("vector_add_kernel_f32"),
    torch.float16: vector_add_module_cu.get_function("vector_add_kernel_f16"),
    torch.bfloat16: vector_add_module_cu.get_function("vector_add_kernel_bf16"),
}


def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y with vector_add_kernels_cu[x.dtype].

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert x.shape == y.shape == out.shape, f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    load_bytes = 16  # one uint4 per thread
    # A uint4 load must start on a 16-byte boundary: fresh torch tensors do, a view may not.
    assert all(t.data_ptr() % load_bytes == 0 for t in (x, y, out)), \
        "uint4 loads need 16-byte aligned tensors"
    kernel = vector_add_kernels_cu[out.dtype]
    n = out.numel()
    pack = load_bytes // out.element_size()  # elements per thread: 4 floats or 8 16-bit
    threads = 256
    # One thread per 16-byte chunk, and at least one block for the tail of a tiny vector.
    blocks = max(triton.cdiv(n // pack, threads), 1)
    kernel(
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
