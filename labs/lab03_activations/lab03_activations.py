# %% [markdown]
# # Lab 03 — Activation functions, in Triton and in CUDA C
#
# Five element-wise ops on a vector `x` of **float32, float16 or bfloat16**, each written twice:
#
# | op | `out[i] =` | as torch writes it |
# |---|---|---|
# | `relu` | `max(x, 0)` | `torch.relu(x)` |
# | `leaky_relu` | `x` if `x >= 0`, else `alpha * x` | `F.leaky_relu(x, alpha)` |
# | `sigmoid` | `1 / (1 + exp(-x))` | `torch.sigmoid(x)` |
# | `silu` | `x * sigmoid(x)` | `F.silu(x)` |
# | `clip` | `min(max(x, lo), hi)` | `torch.clamp(x, lo, hi)` |
#
# **What you will learn**
#
# 1. **One element-wise pattern**, written once per language and then reused five times: load
#    a block, widen to float32, compute, round once to the input's dtype, store.
# 2. **NaN goes through, as torch lets it**: `torch.relu(nan)` and `torch.clamp(nan, lo, hi)`
#    are NaN. The obvious max and min functions (`fmaxf`, `tl.maximum`) quietly turn a NaN
#    into a number; the tests plant NaN, `inf` and `-inf` in the inputs.
# 3. **A sigmoid that cannot overflow**: `exp(100)` is `inf` in float32, and `e^x / (1 + e^x)`
#    is then `inf / inf = NaN`. The tests use inputs scaled by 100.
# 4. **Compute in float32, store in the input's type**: float16 overflows at 65504, so
#    `exp(12)` in float16 is already `inf`.
# 5. **Scalar parameters** (`alpha`, `lo`, `hi`): how a Python float reaches a kernel.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | the element-wise pattern | `offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`, `mask = offs < n_elements`, one masked `tl.load` and `tl.store` | one 16-byte chunk (`uint4`) per thread, a scalar tail for the last `n % PACK` elements |
# | compute in float32 | `x = tl.load(...).to(tl.float32)`, then `.to(out_ptr.dtype.element_ty)` at the store | `to_float(v)` after the load, `from_float<T>(y)` before the store (given) |
# | exp in float32 only | `tl.exp` refuses float16 and bfloat16: *Expected dtype ['fp32', 'fp64'] but got fp16* | `__expf(float)` (the fast GPU exp); `hexp(__half)` computes in half and overflows past 11.09 |
# | a select | `tl.where(cond, a, b)` | `cond ? a : b` |
# | max / min that drop NaN | `tl.maximum(x, 0.0)`, `tl.minimum`, `tl.clamp` (by default) | `fmaxf(v, 0.0f)`, `fminf`, `max`, `min` |
# | max / min that keep NaN | `tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)`; `tl.where` with a comparison that is False for NaN | a comparison that is False for NaN: `v < 0.0f ? 0.0f : v` |
# | a fast division | `a / b` (Triton's float32 `/` is not the IEEE-rounded division; `tl.math.div_rn` is) | `__fdividef(a, b)`: fast, but 0 for `2^126 < abs(b) < 2^128`; plain `/` is IEEE-rounded and slower |
# | a scalar parameter | a Python float argument: `kernel[grid](x, out, n, alpha, BLOCK_SIZE=...)` arrives as float32 | a `float alpha` parameter: pass `np.float32(alpha)` (a Python float or `np.float64` is refused) |
# | float literals | Python floats in a kernel are float32 | `1.0f`, not `1.0`: a `double` literal makes the whole expression double precision |
#
# **What you write**, per op: the Triton kernel `<op>_kernel` and its launcher `<op>_triton`;
# in CUDA C (the string `<OP>_CU`) the body of the template `<op><T>`, which the kernels
# `<op>_kernel_f32`, `<op>_kernel_f16` and `<op>_kernel_bf16` call, and the launcher
# `<op>_cuda`. Each launcher receives the output `out` already allocated, and the op's
# parameters after it: `leaky_relu_triton(x, out, alpha)`, `clip_cuda(x, out, lo, hi)`.
#
# **How you are graded**: correctness of each op in each of the three dtypes on sizes you do
# not see, with fresh random inputs, NaN and infinities among them, and other parameter values;
# on a GPU, the bandwidth of your kernels against a reference. Without a GPU, Triton runs in
# its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check


import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab03_activations"

# %% [markdown]
# ## The element-wise pattern
#
# Every op of this lab is the same kernel around a different line, `y = op(x)`, as in lab01
# with one input instead of two. In **Triton**, one program handles `BLOCK_SIZE` elements:
#
# 1. its indices: `pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`, with `pid` from
#    `tl.program_id(axis=0)`;
# 2. a mask, `offs < n_elements`, for the last block, which runs past the end;
# 3. one masked `tl.load`, widened at once with `.to(tl.float32)`;
# 4. the op, in float32;
# 5. one masked `tl.store` of the result rounded with `.to(out_ptr.dtype.element_ty)`.
#
# The kernel is compiled once per dtype it meets. Widen whatever the input: `tl.exp` accepts
# only float32 and float64, and the interpreter (used without a GPU) cannot compute in bfloat16
# at all.
#
# In **CUDA C**, thread `i` (`blockIdx.x * blockDim.x + threadIdx.x`) handles the `i`-th
# 16-byte chunk of `x`:
#
# 1. `PACK = sizeof(uint4) / sizeof(T)` elements per chunk: 4 floats or 8 16-bit values; the
#    whole chunks are the first `n / PACK`;
# 2. a thread with a whole chunk loads it as one `uint4` through
#    `reinterpret_cast<const uint4 *>(x)`, sees its elements through a `const T *` to the
#    `uint4`, computes each (`from_float<T>(op(to_float(...)))`, a loop of `PACK` steps that
#    `#pragma unroll` keeps in registers) into a second `uint4`, and stores that in one piece;
# 3. the `n % PACK` elements after the last whole chunk go to the first threads of the grid,
#    one each: element `(n / PACK) * PACK + i`, if it is below `n`.
#
# Each source string starts with the same given helpers: `to_float(v)` widens an element of
# any of the three types (`__half2float`, `__bfloat162float`), `from_float<T>(y)` rounds a
# float to `T` to nearest even, as torch does (`__float2half_rn`, `__float2bfloat16_rn`). One
# way to write the op once per source is a lambda inside the template,
# `auto op = [](float v) { return ...; };`, called for the chunk and for the tail. The three
# `extern "C"` kernels, one per dtype, are given; the cell compiles with
# `SourceModule(..., no_extern_c=True)` because `<cuda_fp16.h>` and `<cuda_bf16.h>` are C++.
#
# The launchers are lab01's: one program per `BLOCK_SIZE` elements (Triton); one thread per
# 16-byte chunk and at least one block (CUDA), `np.uintp(t.data_ptr())` for each tensor,
# `np.int32(n)` for `int n`.

# %% [markdown]
# ## 1 — relu
#
# `out = max(x, 0)`, with `relu(nan) = nan`, `relu(inf) = inf`, `relu(-inf) = 0`.
#
# The trap is NaN. Every comparison with NaN is False, and the usual maximum functions are
# defined to return the *other* operand when one is NaN. Found under the Triton interpreter
# (numpy's `fmax`), and the same on a GPU, where `tl.maximum` becomes PTX `max.f32`:
#
# | written as | `relu(nan)` |
# |---|---|
# | `tl.maximum(x, 0.0)` | `0.0`: NaN dropped |
# | `tl.where(x > 0, x, 0.0)` | `0.0`: NaN dropped (`nan > 0` is False) |
# | `tl.maximum(x, 0.0, propagate_nan=tl.PropagateNan.ALL)` | `nan` |
# | CUDA `fmaxf(v, 0.0f)`, `max(v, 0.0f)` | `0.0`: NaN dropped |
#
# <details><summary>Hint 1 — which select keeps NaN?</summary>
#
# A select `cond ? a : b` (`tl.where(cond, a, b)`) sends NaN to `b`, because a comparison with
# NaN is False. So put `x` in the branch that a False condition picks.
# </details>
#
# <details><summary>Hint 2 — the comparison to use</summary>
#
# "Is `x` below zero?" is False for NaN *and* for positive numbers: both should come out as
# `x`. Only the True case gives zero. The same condition serves Triton and CUDA.
# </details>
#
# <details><summary>Hint 3 — putting it in the pattern</summary>
#
# Triton: the op is one `tl.where` on the float32 values, then the usual cast at the store.
# CUDA: write the op once, as a lambda taking and returning `float`, and call it in the chunk
# loop and for the tail element; the launcher is lab01's, with one input instead of two.
# </details>

# %% nbgrader={"grade": false, "grade_id": "relu_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def relu_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    # x < 0 is False for NaN: a NaN takes the x branch and comes out NaN, as in torch.relu.
    # (tl.maximum(x, 0.0) would return 0.0 for it.)
    y = tl.where(x < 0.0, 0.0, x)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def relu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = relu(x), one program per BLOCK_SIZE elements; float32, float16 or bfloat16."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    relu_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "relu_cu", "locked": false, "schema_version": 3, "solution": true}
RELU_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// Given (as in lab01): to_float widens one element, from_float<T> rounds a float to T.
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

// out = relu(x) for n elements of type T: the kernels below call it with their own T.
template <class T>
__device__ __forceinline__ void relu(const T *__restrict__ x,  // input
                                     T *__restrict__ out,      // output, same length
                                     int n)                    // number of elements
{
    /// BEGIN SOLUTION
    // v < 0 is False for NaN: a NaN takes the v branch and stays NaN, as in torch.relu.
    // (fmaxf(v, 0.0f) would return 0 for it.)
    auto op = [](float v) { return v < 0.0f ? 0.0f : v; };
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {  // the last block runs past the last whole chunk
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % PACK threads have a leftover element
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
    /// END SOLUTION
}

// One kernel per dtype; extern "C" keeps the names unmangled for get_function.
extern "C" __global__ void relu_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           int n)
{
    relu(x, out, n);
}

extern "C" __global__ void relu_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, int n)
{
    relu(x, out, n);
}

extern "C" __global__ void relu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, int n)
{
    relu(x, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "relu_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
relu_module_cu = SourceModule(RELU_CU, no_extern_c=True)
relu_kernels_cu = {
    torch.float32: relu_module_cu.get_function("relu_kernel_f32"),
    torch.float16: relu_module_cu.get_function("relu_kernel_f16"),
    torch.bfloat16: relu_module_cu.get_function("relu_kernel_bf16"),
}


def relu_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = relu(x) with relu_kernels_cu[x.dtype], one thread per 16-byte chunk.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    # A uint4 load must start on a 16-byte boundary: fresh torch tensors do, a view may not.
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()  # elements per thread: 4 floats or 8 16-bit values
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)  # at least one block, for the tail
    relu_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                               block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time relu
#
# Each check runs your launcher in float32, float16 and bfloat16 on a few sizes (1, a tail
# after whole blocks, a prime holding NaN, `inf` and `-inf`) and compares with `torch.relu`
# computed in float64. A failure names the size, the dtype and the first wrong elements. On a
# GPU, `bench` times your launcher against torch from L2-resident sizes to 2^28 elements;
# without one it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "test_relu_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", relu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", relu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_relu_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", relu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", relu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_relu_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", relu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", relu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_relu_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", relu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", relu_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 2 — leaky_relu
#
# `out = x` where `x >= 0`, `alpha * x` elsewhere (torch's default `alpha` is 0.01; the tests
# try others). New here: a **scalar parameter**. The launcher receives it after `out`,
# `leaky_relu_triton(x, out, alpha)`, as a Python float.
#
# <details><summary>Hint 1 — getting alpha into the kernel</summary>
#
# The kernels already take `alpha` after `n`. Triton: pass the launcher's Python float as it
# is, between `n` and `BLOCK_SIZE=`; the kernel receives a float32 scalar. CUDA: the kernels
# take `float alpha`; pass `np.float32(alpha)`. Nothing converts CUDA arguments, so a Python
# float or an `np.float64` (8 bytes, for a 4-byte C `float`) is refused.
# </details>
#
# <details><summary>Hint 2 — NaN and the infinities</summary>
#
# Here NaN is easy: `alpha * nan` is NaN, so whichever branch a NaN takes, it stays NaN.
# `-inf` becomes `alpha * -inf = -inf`, as in torch. Multiply in float32, after widening, and
# round once at the store.
# </details>
#
# <details><summary>Hint 3 — the CUDA lambda</summary>
#
# A lambda in the template can capture the parameter by value, `[alpha](float v) { ... }`, and
# be called for the chunk and for the tail exactly as in relu.
# </details>

# %% nbgrader={"grade": false, "grade_id": "leaky_relu_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def leaky_relu_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    alpha,  # slope for x < 0 (a float32 scalar)
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.where(x < 0.0, alpha * x, x)  # NaN takes the x branch (alpha * NaN is NaN anyway)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def leaky_relu_triton(x: torch.Tensor, out: torch.Tensor, alpha: float) -> None:
    """out = leaky_relu(x, alpha), one program per BLOCK_SIZE elements."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    leaky_relu_kernel[grid](x, out, n, alpha, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "leaky_relu_cu", "locked": false, "schema_version": 3, "solution": true}
LEAKY_RELU_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// Given (as in lab01): to_float widens one element, from_float<T> rounds a float to T.
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

// out = leaky_relu(x, alpha) for n elements of type T.
template <class T>
__device__ __forceinline__ void leaky_relu(const T *__restrict__ x,  // input
                                           T *__restrict__ out,      // output, same length
                                           int n,                    // number of elements
                                           float alpha)              // slope for x < 0
{
    /// BEGIN SOLUTION
    auto op = [alpha](float v) { return v < 0.0f ? alpha * v : v; };  // NaN stays NaN
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
    /// END SOLUTION
}

extern "C" __global__ void leaky_relu_kernel_f32(const float *__restrict__ x,
                                                 float *__restrict__ out, int n, float alpha)
{
    leaky_relu(x, out, n, alpha);
}

extern "C" __global__ void leaky_relu_kernel_f16(const __half *__restrict__ x,
                                                 __half *__restrict__ out, int n, float alpha)
{
    leaky_relu(x, out, n, alpha);
}

extern "C" __global__ void leaky_relu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                                  __nv_bfloat16 *__restrict__ out, int n,
                                                  float alpha)
{
    leaky_relu(x, out, n, alpha);
}
"""

# %% nbgrader={"grade": false, "grade_id": "leaky_relu_cuda", "locked": false, "schema_version": 3, "solution": true}
leaky_relu_module_cu = SourceModule(LEAKY_RELU_CU, no_extern_c=True)
leaky_relu_kernels_cu = {
    torch.float32: leaky_relu_module_cu.get_function("leaky_relu_kernel_f32"),
    torch.float16: leaky_relu_module_cu.get_function("leaky_relu_kernel_f16"),
    torch.bfloat16: leaky_relu_module_cu.get_function("leaky_relu_kernel_bf16"),
}


def leaky_relu_cuda(x: torch.Tensor, out: torch.Tensor, alpha: float) -> None:
    """out = leaky_relu(x, alpha) with leaky_relu_kernels_cu[x.dtype]; alpha as np.float32."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    leaky_relu_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()),
                                     np.int32(n), np.float32(alpha),
                                     block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time leaky_relu
#
# The public checks use the default `alpha = 0.01`; the hidden ones use other slopes.

# %% nbgrader={"grade": true, "grade_id": "test_leaky_relu_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", leaky_relu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", leaky_relu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_leaky_relu_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", leaky_relu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", leaky_relu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_leaky_relu_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", leaky_relu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", leaky_relu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_leaky_relu_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", leaky_relu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", leaky_relu_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 3 — sigmoid
#
# `out = 1 / (1 + exp(-x))`, with `sigmoid(inf) = 1`, `sigmoid(-inf) = 0`, `sigmoid(nan) = nan`.
#
# Written as `exp(x) / (1 + exp(x))` it breaks for large `x`: float32's `exp` overflows past
# 88.7, and `inf / inf` is NaN. The tests scale `x` by 100, so about a fifth of the inputs are
# past that point. Computing `exp` in float16 breaks much sooner: 65504 = e^11.09, so
# `exp(12)` is already `inf`. The float16 tolerance is tight near zero on purpose:
# `sigmoid(-12) = 6.1e-6` must not come out as 0.
#
# <details><summary>Hint 1 — which form overflows?</summary>
#
# Try `x = 100` in float32 in both forms, `1 / (1 + exp(-x))` and `exp(x) / (1 + exp(x))`, and
# `x = -100` too. A form is safe when the `exp` it computes can never be `inf` where the
# answer matters.
# </details>
#
# <details><summary>Hint 2 — an exp that cannot overflow</summary>
#
# `e = exp(-|x|)` lies in (0, 1] for every `x`: it can underflow to 0, never overflow. With it,
# `sigmoid(|x|) = 1 / (1 + e)` and `sigmoid(-|x|) = e / (1 + e)`. The denominator is in [1, 2]:
# any division is safe, even CUDA's fast `__fdividef`.
# </details>
#
# <details><summary>Hint 3 — dtypes and NaN</summary>
#
# Compute in float32: Triton's `tl.exp` refuses float16 and bfloat16 with
# *Expected dtype ['fp32', 'fp64'] but got fp16*, and in CUDA use `__expf` on the widened float,
# not `hexp` on a `__half`. For NaN, choose between the two forms with a comparison that is
# False for NaN, and check that the branch a NaN takes computes with `e` (which is NaN then).
# </details>

# %% nbgrader={"grade": false, "grade_id": "sigmoid_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def sigmoid_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    e = tl.exp(-tl.abs(x))  # in (0, 1]: underflows to 0 for large |x|, never overflows
    r = 1.0 / (1.0 + e)  # sigmoid(|x|); 1 + e is in [1, 2]
    y = tl.where(x >= 0.0, r, e * r)  # sigmoid(-|x|) = e / (1 + e); NaN: e * r is NaN
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def sigmoid_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = sigmoid(x), one program per BLOCK_SIZE elements."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    sigmoid_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "sigmoid_cu", "locked": false, "schema_version": 3, "solution": true}
SIGMOID_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// Given (as in lab01): to_float widens one element, from_float<T> rounds a float to T.
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

// out = sigmoid(x) for n elements of type T.
template <class T>
__device__ __forceinline__ void sigmoid(const T *__restrict__ x,  // input
                                        T *__restrict__ out,      // output, same length
                                        int n)                    // number of elements
{
    /// BEGIN SOLUTION
    auto op = [](float v) {
        float e = __expf(-fabsf(v));            // in (0, 1]: never overflows
        float r = __fdividef(1.0f, 1.0f + e);   // sigmoid(|v|); the divisor is in [1, 2]
        return v >= 0.0f ? r : e * r;           // NaN: v >= 0 is False and e * r is NaN
    };
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
    /// END SOLUTION
}

extern "C" __global__ void sigmoid_kernel_f32(const float *__restrict__ x,
                                              float *__restrict__ out, int n)
{
    sigmoid(x, out, n);
}

extern "C" __global__ void sigmoid_kernel_f16(const __half *__restrict__ x,
                                              __half *__restrict__ out, int n)
{
    sigmoid(x, out, n);
}

extern "C" __global__ void sigmoid_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                               __nv_bfloat16 *__restrict__ out, int n)
{
    sigmoid(x, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "sigmoid_cuda", "locked": false, "schema_version": 3, "solution": true}
sigmoid_module_cu = SourceModule(SIGMOID_CU, no_extern_c=True)
sigmoid_kernels_cu = {
    torch.float32: sigmoid_module_cu.get_function("sigmoid_kernel_f32"),
    torch.float16: sigmoid_module_cu.get_function("sigmoid_kernel_f16"),
    torch.bfloat16: sigmoid_module_cu.get_function("sigmoid_kernel_bf16"),
}


def sigmoid_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = sigmoid(x) with sigmoid_kernels_cu[x.dtype]."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    sigmoid_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()),
                                  np.int32(n), block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time sigmoid
#
# Sizes 1 and 129, 1999 inputs scaled by 100 (overflowing `exp` in float32 and float16 unless
# the form is stable), and 997 holding NaN and the infinities.

# %% nbgrader={"grade": true, "grade_id": "test_sigmoid_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", sigmoid_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", sigmoid_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_sigmoid_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", sigmoid_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", sigmoid_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_sigmoid_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", sigmoid_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", sigmoid_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_sigmoid_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", sigmoid_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", sigmoid_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 4 — silu
#
# `out = x * sigmoid(x)` (also called swish). Each exercise's cells are graded on their own,
# so write the stable sigmoid again here rather than calling the one above.
#
# Special values follow from the formula, as in torch: `silu(inf) = inf * 1 = inf`,
# `silu(nan) = nan`, and `silu(-inf) = -inf * 0 = nan` (torch gives NaN there too, and so must
# you).
#
# <details><summary>Hint 1 — start from sigmoid</summary>
#
# The op is your stable sigmoid followed by one multiplication by `x`, in float32, rounded once
# at the store. Then fold the two: `x * e / (1 + e)` for negative `x` and `x / (1 + e)` for the
# rest is one division, where the sigmoid's reciprocal and two products were four operations.
# In float16, where each byte carries twice the arithmetic, that took a Triton kernel from 91%
# to 97% of the H200's copy roof.
# </details>
#
# <details><summary>Hint 2 — why not x / (1 + exp(-x))?</summary>
#
# In float32 it is safe (for very negative `x` it gives `x / inf = -0`), but it has the same
# trap as sigmoid in float16: `exp(-x)` overflows for `x < -11.09`, where silu is still as
# large as `-1.7e-4`. Keep `exp`'s argument non-positive, and everything in float32.
# </details>
#
# <details><summary>Hint 3 — CUDA: float, not double</summary>
#
# Write float literals (`1.0f`) and float functions (`__expf`, `fabsf`). `1.0 / (1.0 + exp(-v))`
# is correct, but `1.0` is a `double`, so the division, the addition and `exp` itself are done
# in double precision: the result passes every check here, and on a GPU it runs on the far
# fewer double-precision units (H100/H200: half as many, most GPUs 1/32 or 1/64).
# </details>

# %% nbgrader={"grade": false, "grade_id": "silu_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def silu_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    e = tl.exp(-tl.abs(x))  # in (0, 1]: never overflows
    # x * sigmoid(x) in one division: x / (1 + e) for x >= 0, x * e / (1 + e) below
    y = tl.where(x >= 0.0, x, x * e) / (1.0 + e)
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def silu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(x) = x * sigmoid(x), one program per BLOCK_SIZE elements."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    silu_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "silu_cu", "locked": false, "schema_version": 3, "solution": true}
SILU_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// Given (as in lab01): to_float widens one element, from_float<T> rounds a float to T.
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

// out = silu(x) = x * sigmoid(x) for n elements of type T.
template <class T>
__device__ __forceinline__ void silu(const T *__restrict__ x,  // input
                                     T *__restrict__ out,      // output, same length
                                     int n)                    // number of elements
{
    /// BEGIN SOLUTION
    auto op = [](float v) {
        float e = __expf(-fabsf(v));           // in (0, 1]: never overflows
        float r = __fdividef(1.0f, 1.0f + e);  // the divisor is in [1, 2]
        return v * (v >= 0.0f ? r : e * r);    // -inf * 0 = NaN, as in torch
    };
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
    /// END SOLUTION
}

extern "C" __global__ void silu_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           int n)
{
    silu(x, out, n);
}

extern "C" __global__ void silu_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, int n)
{
    silu(x, out, n);
}

extern "C" __global__ void silu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, int n)
{
    silu(x, out, n);
}
"""

# %% nbgrader={"grade": false, "grade_id": "silu_cuda", "locked": false, "schema_version": 3, "solution": true}
silu_module_cu = SourceModule(SILU_CU, no_extern_c=True)
silu_kernels_cu = {
    torch.float32: silu_module_cu.get_function("silu_kernel_f32"),
    torch.float16: silu_module_cu.get_function("silu_kernel_f16"),
    torch.bfloat16: silu_module_cu.get_function("silu_kernel_bf16"),
}


def silu_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(x) with silu_kernels_cu[x.dtype]."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    silu_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                               block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time silu
#
# The same sizes and special values as sigmoid.

# %% nbgrader={"grade": true, "grade_id": "test_silu_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", silu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", silu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_silu_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", silu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", silu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_silu_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", silu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", silu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_silu_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", silu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", silu_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## 5 — clip
#
# `out = min(max(x, lo), hi)` for `lo <= hi`, as `torch.clamp(x, lo, hi)`: `inf` becomes `hi`,
# `-inf` becomes `lo`, and NaN stays NaN. Two parameters, `clip_triton(x, out, lo, hi)`.
#
# <details><summary>Hint 1 — the parameters</summary>
#
# As `alpha` in leaky_relu: two more kernel parameters, passed as Python floats to Triton and
# as `np.float32` to CUDA, in the order `lo, hi`.
# </details>
#
# <details><summary>Hint 2 — the NaN trap, twice</summary>
#
# `fminf(fmaxf(v, lo), hi)` turns NaN into `lo`; `tl.minimum(tl.maximum(x, lo), hi)` and
# `tl.clamp(x, lo, hi)` do the same (by default). torch keeps the NaN.
# </details>
#
# <details><summary>Hint 3 — two selects</summary>
#
# Two comparisons, each False for NaN: if `x` is below `lo` take `lo`, else if it is above `hi`
# take `hi`, else take `x`. In Triton, nested `tl.where`s (or `tl.clamp` with
# `propagate_nan=tl.PropagateNan.ALL`). In CUDA, two `? :` one after the other,
# `t = v < lo ? lo : v` then `t > hi ? hi : t`: nvcc compiles them to two selects, where the
# nested form `v < lo ? lo : (v > hi ? hi : v)` becomes a branch for every element.
# </details>

# %% nbgrader={"grade": false, "grade_id": "clip_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def clip_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    lo,  # lower bound (a float32 scalar)
    hi,  # upper bound, >= lo
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    # Both comparisons are False for NaN: it falls through to x. (tl.maximum / tl.minimum
    # would turn it into lo.)
    y = tl.where(x < lo, lo, tl.where(x > hi, hi, x))
    tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def clip_triton(x: torch.Tensor, out: torch.Tensor, lo: float, hi: float) -> None:
    """out = clamp(x, lo, hi), one program per BLOCK_SIZE elements."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    assert lo <= hi, f"lo = {lo} > hi = {hi}"
    n = out.numel()
    BLOCK_SIZE = 1024
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    clip_kernel[grid](x, out, n, lo, hi, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "clip_cu", "locked": false, "schema_version": 3, "solution": true}
CLIP_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// Given (as in lab01): to_float widens one element, from_float<T> rounds a float to T.
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

// out = clamp(x, lo, hi) for n elements of type T.
template <class T>
__device__ __forceinline__ void clip(const T *__restrict__ x,  // input
                                     T *__restrict__ out,      // output, same length
                                     int n,                    // number of elements
                                     float lo,                 // lower bound
                                     float hi)                 // upper bound, >= lo
{
    /// BEGIN SOLUTION
    // Both comparisons are False for NaN: it falls through to v. (fminf(fmaxf(v, lo), hi)
    // would return lo for it.)
    // One select after the other, not nested: nvcc turns nested ?: into a branch per element.
    auto op = [lo, hi](float v) {
        const float t = v < lo ? lo : v;
        return t > hi ? hi : t;
    };
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
    /// END SOLUTION
}

extern "C" __global__ void clip_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           int n, float lo, float hi)
{
    clip(x, out, n, lo, hi);
}

extern "C" __global__ void clip_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, int n, float lo, float hi)
{
    clip(x, out, n, lo, hi);
}

extern "C" __global__ void clip_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, int n, float lo,
                                            float hi)
{
    clip(x, out, n, lo, hi);
}
"""

# %% nbgrader={"grade": false, "grade_id": "clip_cuda", "locked": false, "schema_version": 3, "solution": true}
clip_module_cu = SourceModule(CLIP_CU, no_extern_c=True)
clip_kernels_cu = {
    torch.float32: clip_module_cu.get_function("clip_kernel_f32"),
    torch.float16: clip_module_cu.get_function("clip_kernel_f16"),
    torch.bfloat16: clip_module_cu.get_function("clip_kernel_bf16"),
}


def clip_cuda(x: torch.Tensor, out: torch.Tensor, lo: float, hi: float) -> None:
    """out = clamp(x, lo, hi) with clip_kernels_cu[x.dtype]; lo and hi as np.float32."""
    ### BEGIN SOLUTION
    assert x.shape == out.shape, f"shapes differ: {x.shape}, {out.shape}"
    assert x.dtype == out.dtype, f"dtypes differ: {x.dtype}, {out.dtype}"
    assert lo <= hi, f"lo = {lo} > hi = {hi}"
    assert x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, \
        "uint4 loads need 16-byte aligned tensors"
    n = out.numel()
    pack = 16 // out.element_size()
    threads = 256
    blocks = max(triton.cdiv(n // pack, threads), 1)
    clip_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                               np.float32(lo), np.float32(hi),
                               block=(threads, 1, 1), grid=(blocks, 1))
    ### END SOLUTION


# %% [markdown]
# ### Check and time clip
#
# The public checks clip to [-1, 1]; the hidden ones to other ranges.

# %% nbgrader={"grade": true, "grade_id": "test_clip_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", clip_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", clip_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_clip_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", clip_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", clip_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_clip_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", clip_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", clip_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_clip_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", clip_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", clip_cuda, graded=True)
### END HIDDEN TESTS
