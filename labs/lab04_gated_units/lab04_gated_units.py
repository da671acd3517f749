# %% [markdown]
# # Lab 04 — Gated linear units: SwiGLU and GeGLU, in Triton and in CUDA C
#
# The feed-forward block of most current language models projects each token twice, into a
# **gate** and an **up** vector of width `h`, and combines the two element-wise before the
# down projection:
#
# | unit | `out =` | activation | used by |
# |---|---|---|---|
# | SwiGLU | `silu(gate) * up` | `silu(g) = g * sigmoid(g) = g / (1 + exp(-g))` | Llama, Mistral, Qwen, PaLM |
# | GeGLU | `gelu_tanh(gate) * up` | `gelu_tanh(g) = 0.5 * g * (1 + tanh(sqrt(2/pi) * (g + 0.044715 * g**3)))` | T5 v1.1, Gemma |
#
# Everything is **bfloat16** in memory (`rows × h` with `rows` = tokens, `h` up to 14336 in
# Llama 3 8B) and **float32** in registers: load, widen, compute, round once, store.
#
# **What you will learn**
# - **Fusion.** One kernel that reads two tensors and writes one. Eager torch cannot: each op
#   is a kernel, and every intermediate goes to memory and back. The byte ledger, in elements
#   of `rows × h` (2 bytes each):
#
#   | how | kernels | reads | writes | traffic |
#   |---|---|---|---|---|
#   | `F.silu(gate) * up` (eager torch) | 2 | `gate`; then `tmp`, `up` | `tmp`; then `out` | 5 |
#   | `gate * torch.sigmoid(gate) * up` (the formula, op by op) | 3 | `gate`; `gate`, `s`; `t`, `up` | `s`; `t`; `out` | 8 |
#   | your fused kernel | 1 | `gate`, `up` | `out` | **3** |
#
#   The op is memory-bound (a few flops per 6 bytes), so time is traffic: a fused kernel at
#   the memory roof is 5/3 ≈ 1.67× faster than eager torch's two kernels at the same roof,
#   2.67× faster than the three-kernel spelling. Measured on an H200 at 16384 × 14336, bytes
#   counted as the fused ledger (6 per output element): eager torch SwiGLU 2507 GB/s, GeGLU
#   (tanh) 2428 GB/s, against a copy roof of about 4250–4350 GB/s. The reference kernels aim
#   at ≥ 1.6× torch, ≥ 90% of the roof.
# - **A packed layout and its row stride.** Models often compute gate and up with one matmul
#   into one `[rows, 2h]` tensor `x`: `gate = x[:, :h]`, `up = x[:, h:]`. Row `r`'s gate
#   starts at `x + r * x.stride(0)` (`2h`, or more if the rows are padded), its up `h`
#   elements later; `out` is a contiguous `[rows, h]`, rows `h` apart.
# - **bfloat16 on both sides**, and 16-byte accesses (8 bfloat16 at a time) in CUDA C.
# - **Why GELU's tanh form.** GELU is exactly `g * Phi(g) = 0.5 * g * (1 + erf(g / sqrt(2)))`.
#   The GELU paper offered the tanh curve as a cheap approximation, and GPT-2 and BERT (whose
#   frameworks had no fast erf on every device) were trained with it; a model must run with
#   the activation it was trained with (`approximate='tanh'` in torch, `gelu_new` /
#   `gelu_pytorch_tanh` in Hugging Face). The two differ by at most **4.7e-4** (measured in
#   float32 on [-10, 10], largest near `|g| = 2.7`): tiny for `g > 0`, but in the negative
#   tail, where GELU is small, it is 3% of the value at `g = -2.5`, 11% at `-3`. bfloat16 keeps
#   8 significant bits (0.4%), so an erf kernel fails this lab's checks. And the tanh form is
#   cheap in a kernel: `0.5 * (1 + tanh(y)) = sigmoid(2y) = 1 / (1 + exp(-2y))`, so
#   `gelu_tanh(g) = g / (1 + exp(-2y))` — one exponential and one division, the cost of SiLU.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | bfloat16 in memory, float32 in registers | `tl.load(p).to(tl.float32)`, then `.to(out_ptr.dtype.element_ty)` before `tl.store` (the CPU interpreter cannot compute in bfloat16 at all) | `__bfloat162float(v)`, `__float2bfloat16_rn(s)` (round to nearest even, as torch); by pairs: `__bfloat1622float2`, `__floats2bfloat162_rn` (`<cuda_bf16.h>`) |
# | the exponential | `tl.exp(x)`, or `tl.sigmoid(x)` | `__expf(x)`, the fast hardware exponential |
# | tanh | not in the interpreter (`libdevice.tanh` needs a GPU): use `sigmoid(2y)` | `tanhf(y)` works; `sigmoid(2y)` is cheaper |
# | 16-byte accesses | automatic, when Triton can prove alignment: tensors start 16-byte aligned, and it specialises integer arguments divisible by 16 (`h`, `stride_xr`) as such | `uint4` loads: 8 bfloat16, seen as 4 `__nv_bfloat162` pairs; a scalar path for the rest |
# | flat elementwise work | `offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`, `mask = offs < n_elements` | `i = blockIdx.x * blockDim.x + threadIdx.x`, `if (i < n)` |
# | rows × columns | `grid = (rows, triton.cdiv(h, BLOCK_SIZE))`: `row = tl.program_id(0)`, `cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)` | `grid=(rows, column_blocks)`: `row = blockIdx.x`, columns from `blockIdx.y`, `threadIdx.x` (rows on x: a grid's y and z stop at 65535) |
# | the packed halves | `x_ptr + row * stride_xr + cols` (gate), `+ h` (up) | `x + (size_t)row * stride_xr + c`, `+ h` |
# | 64-bit offsets | `tl.program_id(0).to(tl.int64)` before `row * stride_xr` | `(size_t)row * stride_xr` |
#
# **What you write**, for each of three exercises: a Triton kernel and its launcher, a CUDA C
# kernel (in a source string) and its launcher. Launchers receive `out` already allocated:
# write into it.
# 1. `swiglu`: SwiGLU on two separate contiguous tensors `gate`, `up` (flat: a 1-D kernel).
# 2. `swiglu_packed`: SwiGLU on one packed `x` (a 2-D kernel with a row stride).
# 3. `geglu_packed`: GeGLU (tanh) on the packed layout.
#
# **How you are graded**: correctness on many shapes you do not see (tails, one row, padded
# rows), fresh random inputs, compared with a float64 computation within one bfloat16 ulp; on
# a GPU, the bandwidth of each kernel against a reference kernel. Without a GPU, Triton runs
# in its interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab04_gated_units"

# %% [markdown]
# ## Exercise 1 — SwiGLU, two tensors
#
# `out = silu(gate) * up` for `gate`, `up`, `out` of shape `[rows, h]`, contiguous, bfloat16.
# Contiguous tensors of one shape are the same flat array of `n = rows * h` elements to a
# kernel: this is lab 01's vector add with two changes, the arithmetic and the dtype.
#
# ### Triton
#
# Each program loads one block of `BLOCK_SIZE` elements of `gate` and of `up`, widens them
# to float32, computes `silu(gate) * up`, rounds the block to bfloat16 and stores it.

# %% nbgrader={"grade": false, "grade_id": "swiglu_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def swiglu_kernel(
    gate_ptr,  # gate: n_elements bfloat16, contiguous
    up_ptr,  # up: same
    out_ptr,  # output: same
    n_elements,  # rows * h
    BLOCK_SIZE: tl.constexpr,  # elements per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0).to(tl.int64)  # pid * BLOCK_SIZE can pass 2^31
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    gate = tl.load(gate_ptr + offs, mask=mask).to(tl.float32)
    up = tl.load(up_ptr + offs, mask=mask).to(tl.float32)
    out = gate * tl.sigmoid(gate) * up  # silu(gate) * up, in float32
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)  # one rounding
    ### END SOLUTION


def swiglu_triton(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(gate) * up, all [rows, h] bfloat16 and contiguous: a 1-D grid of programs."""
    ### BEGIN SOLUTION
    assert gate.shape == up.shape == out.shape, \
        f"shapes differ: {gate.shape}, {up.shape}, {out.shape}"
    assert all(t.is_contiguous() for t in (gate, up, out)), "a flat kernel needs contiguous tensors"
    n = out.numel()
    BLOCK_SIZE = 2048  # 4 KiB of each tensor per program: 16 bytes per thread with 8 warps
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    swiglu_kernel[grid](gate, up, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — the shape of the kernel</summary>
#
# Start from lab 01's `vector_add_kernel`: program id, offsets, a mask, two masked loads, one
# masked store. Only the line between the loads and the store changes.
# </details>
#
# <details><summary>Hint 2 — the arithmetic</summary>
#
# Widen both loads with `.to(tl.float32)`. `silu(g) = g * sigmoid(g)`, and `tl.sigmoid`
# exists. Round once, at the store: `.to(out_ptr.dtype.element_ty)`.
# </details>
#
# <details><summary>Hint 3 — the launcher</summary>
#
# `n = out.numel()`, `grid = (triton.cdiv(n, BLOCK_SIZE),)`. A block of 2048 bfloat16 is 4 KiB
# per tensor: with `num_warps=8` (256 threads) each thread loads 16 bytes of each input.
# </details>
#
# ### CUDA C
#
# One thread per **16-byte chunk**: 8 bfloat16 of `gate` in one `uint4` load, 8 of `up` in
# another, 8 results in one `uint4` store. Inside the thread the chunk is four
# `__nv_bfloat162` pairs: `__bfloat1622float2(pair)` widens a pair to a `float2`,
# `__floats2bfloat162_rn(a, b)` rounds two floats back into a pair. `silu` is given.
# The `n % 8` elements after the last whole chunk are done one each by the first threads.
#
# `<cuda_bf16.h>` is a C++ header, so the cell compiles with `no_extern_c=True` and the kernel
# says `extern "C"` itself (its name stays `swiglu_kernel` for `get_function`).

# %% nbgrader={"grade": false, "grade_id": "swiglu_cu", "locked": false, "schema_version": 3, "solution": true}
SWIGLU_CU = r"""
#include <cuda_bf16.h>  // __nv_bfloat16, __nv_bfloat162 and their conversions

// silu(g) = g * sigmoid(g) = g / (1 + e^-g), in float. Below g = -88, e^-g overflows to inf
// and g / inf = -0: the right limit, no special case needed.
__device__ __forceinline__ float silu(float g) { return g / (1.0f + __expf(-g)); }

extern "C" __global__ void swiglu_kernel(const __nv_bfloat16 *__restrict__ gate,  // n elements
                                         const __nv_bfloat16 *__restrict__ up,    // n elements
                                         __nv_bfloat16 *__restrict__ out,         // n elements
                                         int n)                                   // rows * h
{
    /// BEGIN SOLUTION
    constexpr int PACK = 8;  // bfloat16 per 16 bytes
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's chunk
    const int n_chunks = n / PACK;
    if (i < n_chunks) {  // the last block runs past the last whole chunk
        const uint4 g = reinterpret_cast<const uint4 *>(gate)[i];
        const uint4 u = reinterpret_cast<const uint4 *>(up)[i];
        uint4 o;
        // The chunks as 4 pairs each: indexed by constants once unrolled, they stay in registers.
        const __nv_bfloat162 *g2 = reinterpret_cast<const __nv_bfloat162 *>(&g);
        const __nv_bfloat162 *u2 = reinterpret_cast<const __nv_bfloat162 *>(&u);
        __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
        for (int k = 0; k < PACK / 2; ++k) {
            const float2 gf = __bfloat1622float2(g2[k]);
            const float2 uf = __bfloat1622float2(u2[k]);
            o2[k] = __floats2bfloat162_rn(silu(gf.x) * uf.x, silu(gf.y) * uf.y);
        }
        reinterpret_cast<uint4 *>(out)[i] = o;
    }
    const int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % 8 threads have a leftover element
        out[tail] = __float2bfloat16_rn(silu(__bfloat162float(gate[tail])) *
                                        __bfloat162float(up[tail]));
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "swiglu_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
swiglu_kernel_cu = SourceModule(SWIGLU_CU, no_extern_c=True).get_function("swiglu_kernel")


def swiglu_cuda(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(gate) * up with swiglu_kernel_cu, one thread per 16-byte chunk.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert gate.shape == up.shape == out.shape, \
        f"shapes differ: {gate.shape}, {up.shape}, {out.shape}"
    # uint4 accesses need contiguous tensors starting on a 16-byte boundary (fresh ones do).
    assert all(t.is_contiguous() and t.data_ptr() % 16 == 0 for t in (gate, up, out)), \
        "the kernel needs contiguous, 16-byte aligned tensors"
    n = out.numel()
    assert n < 2**31, f"n = {n} does not fit the kernel's int"
    threads = 256
    blocks = max(triton.cdiv(n // 8, threads), 1)  # at least one block, for a tail-only n < 8
    swiglu_kernel_cu(
        np.uintp(gate.data_ptr()),
        np.uintp(up.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — one element per thread first</summary>
#
# Get it right before making it fast: `i = blockIdx.x * blockDim.x + threadIdx.x`, and if
# `i < n`, `out[i] = __float2bfloat16_rn(silu(__bfloat162float(gate[i])) *
# __bfloat162float(up[i]))`, with `cdiv(n, threads)` blocks. That passes every check; it reads
# 2 bytes per thread per load, which leaves bandwidth on the table on a GPU.
# </details>
#
# <details><summary>Hint 2 — 16 bytes per thread</summary>
#
# Thread `i` takes chunk `i`: `uint4 g = reinterpret_cast<const uint4 *>(gate)[i];`, the same
# for `up`. View the registers as pairs, `reinterpret_cast<const __nv_bfloat162 *>(&g)`, and
# loop `k = 0..3` under `#pragma unroll`: widen pair `k` of both, compute two results, round
# them into pair `k` of an output `uint4`, and store that with one `uint4` write.
# </details>
#
# <details><summary>Hint 3 — the tail</summary>
#
# With `n_chunks = n / 8`, elements `n_chunks * 8 … n - 1` belong to no chunk. Let thread `i`
# also take element `n_chunks * 8 + i` when that is below `n`: only threads 0 to 6 have one.
# Launch `max(cdiv(n / 8, threads), 1)` blocks, so that `n = 5` still gets a thread.
# </details>

# %% nbgrader={"grade": true, "grade_id": "test_swiglu_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", swiglu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", swiglu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_swiglu_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", swiglu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", swiglu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# On a GPU, `bench` times your launcher against eager torch (`F.silu(gate) * up`, two kernels)
# from small to far larger than the L2, in GB/s of the fused ledger and % of the copy roof,
# and plots them. Without a GPU it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_swiglu_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", swiglu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", swiglu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_swiglu_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", swiglu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", swiglu_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — SwiGLU, packed
#
# One tensor `x` of shape `[rows, 2h]` holds `[gate | up]` in each row; `out` is `[rows, h]`,
# contiguous. The memory is no longer one flat array: row `r` of the gate starts at
# `r * x.stride(0)`, its up `h` elements further, and its output at `r * h`. `x.stride(0)` is
# `2h`, or more when the rows are **padded** (the checks try that; the padding holds NaN).
# A row offset of `r * h` reads the wrong data from row 1 on.
#
# ### Triton
#
# A 2-D grid: `program_id(0)` is the row, `program_id(1)` the block of `BLOCK_SIZE` columns.
# Triton's grid axes 1 and 2 stop at 65535: rows (there can be many) go on axis 0.

# %% nbgrader={"grade": false, "grade_id": "swiglu_packed_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def swiglu_packed_kernel(
    x_ptr,  # [rows, 2h] bfloat16: gate = x[:, :h], up = x[:, h:2h]
    out_ptr,  # [rows, h] bfloat16, contiguous
    h,  # columns of out (half the columns of x)
    stride_xr,  # elements between the starts of two rows of x: 2h, or more if padded
    BLOCK_SIZE: tl.constexpr,  # columns per program
):
    ### BEGIN SOLUTION
    row = tl.program_id(axis=0).to(tl.int64)  # row * stride_xr can pass 2^31
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h  # the last block of a row runs past its end
    gate_row = x_ptr + row * stride_xr  # up is h elements further along the same row
    gate = tl.load(gate_row + cols, mask=mask).to(tl.float32)
    up = tl.load(gate_row + h + cols, mask=mask).to(tl.float32)
    out = gate * tl.sigmoid(gate) * up
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def swiglu_packed_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(x[:, :h]) * x[:, h:] for x [rows, 2h] (rows x.stride(0) apart), out [rows, h]."""
    ### BEGIN SOLUTION
    rows, h = out.shape
    assert x.shape == (rows, 2 * h), f"x is {tuple(x.shape)}, expected ({rows}, {2 * h})"
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(h), 2048))
    grid = (rows, triton.cdiv(h, BLOCK_SIZE))
    swiglu_packed_kernel[grid](x, out, h, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                               num_warps=8 if BLOCK_SIZE >= 2048 else 4)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — which program does what</summary>
#
# `grid = (rows, triton.cdiv(h, BLOCK_SIZE))`. In the kernel, `row = tl.program_id(0)` and
# `cols = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`, masked with `cols < h`.
# </details>
#
# <details><summary>Hint 2 — three addresses per row</summary>
#
# Gate: `x_ptr + row * stride_xr + cols`. Up: the same plus `h`. Out: `out_ptr + row * h +
# cols`. Pass `x.stride(0)` as `stride_xr`: never assume `2 * h`. Convert `row` with
# `.to(tl.int64)` first: 16384 rows × 28672 is close to 2^31 already.
# </details>
#
# <details><summary>Hint 3 — the block size</summary>
#
# A power of two, at least 16, not far above `h` (a block of 2048 for `h = 7` is mostly
# masked lanes): `max(16, min(triton.next_power_of_2(h), 2048))`.
# </details>
#
# ### CUDA C
#
# A 2-D grid too: `blockIdx.x` is the row (CUDA's `grid` y and z also stop at 65535) and
# `blockIdx.y * blockDim.x + threadIdx.x` the thread's 8-column chunk of that row.
#
# 16-byte loads need 16-byte aligned addresses: every row of gate, up and out starts on a
# 16-byte boundary only when `h` and the row stride are multiples of 8 (and the tensors
# themselves are aligned). The launcher knows and passes `aligned` (0 or 1); the kernel then
# takes the `uint4` path, or the scalar one: up to 8 columns one at a time. Both paths run
# whole warps the same way (the flag is the same for every thread), so the branch costs nothing.

# %% nbgrader={"grade": false, "grade_id": "swiglu_packed_cu", "locked": false, "schema_version": 3, "solution": true}
SWIGLU_PACKED_CU = r"""
#include <cuda_bf16.h>

__device__ __forceinline__ float silu(float g) { return g / (1.0f + __expf(-g)); }

extern "C" __global__ void swiglu_packed_kernel(
    const __nv_bfloat16 *__restrict__ x,  // [rows, 2h]: gate = x[:, :h], up = x[:, h:2h]
    __nv_bfloat16 *__restrict__ out,      // [rows, h], contiguous
    int h,                                // columns of out
    int stride_xr,                        // elements between the starts of two rows of x
    int aligned)                          // 1: every row of x and out is 16-byte aligned
{
    /// BEGIN SOLUTION
    constexpr int PACK = 8;  // bfloat16 per 16 bytes
    const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * stride_xr;  // 64-bit row offsets
    const __nv_bfloat16 *up = gate + h;
    __nv_bfloat16 *o = out + (size_t)blockIdx.x * h;
    const int c = (blockIdx.y * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
    if (c >= h) return;  // the last block of a row runs past its end
    if (aligned) {  // h % 8 == 0: the chunk is whole
        const uint4 g = *reinterpret_cast<const uint4 *>(gate + c);
        const uint4 u = *reinterpret_cast<const uint4 *>(up + c);
        uint4 r;
        const __nv_bfloat162 *g2 = reinterpret_cast<const __nv_bfloat162 *>(&g);
        const __nv_bfloat162 *u2 = reinterpret_cast<const __nv_bfloat162 *>(&u);
        __nv_bfloat162 *r2 = reinterpret_cast<__nv_bfloat162 *>(&r);
#pragma unroll
        for (int k = 0; k < PACK / 2; ++k) {
            const float2 gf = __bfloat1622float2(g2[k]);
            const float2 uf = __bfloat1622float2(u2[k]);
            r2[k] = __floats2bfloat162_rn(silu(gf.x) * uf.x, silu(gf.y) * uf.y);
        }
        *reinterpret_cast<uint4 *>(o + c) = r;
    } else {
        for (int k = c; k < min(c + PACK, h); ++k) {  // the row's last chunk may be short
            o[k] = __float2bfloat16_rn(silu(__bfloat162float(gate[k])) *
                                       __bfloat162float(up[k]));
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "swiglu_packed_cuda", "locked": false, "schema_version": 3, "solution": true}
swiglu_packed_kernel_cu = SourceModule(SWIGLU_PACKED_CU, no_extern_c=True).get_function(
    "swiglu_packed_kernel")


def swiglu_packed_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = silu(x[:, :h]) * x[:, h:] with swiglu_packed_kernel_cu: block (row, chunk group).

    Kernel arguments: x and out as np.uintp(t.data_ptr()), h, x.stride(0) and the aligned flag
    as np.int32; then block=(threads, 1, 1) and grid=(rows, column blocks).
    """
    ### BEGIN SOLUTION
    rows, h = out.shape
    assert x.shape == (rows, 2 * h), f"x is {tuple(x.shape)}, expected ({rows}, {2 * h})"
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    # Every row of gate, up and out starts 16-byte aligned iff the bases are and both row
    # lengths (and the gate-to-up distance h) are multiples of 8 elements.
    aligned = (h % 8 == 0 and x.stride(0) % 8 == 0 and x.data_ptr() % 16 == 0
               and out.data_ptr() % 16 == 0)
    threads = 128
    column_blocks = triton.cdiv(triton.cdiv(h, 8), threads)  # 8 columns per thread
    swiglu_packed_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(h),
        np.int32(x.stride(0)),
        np.int32(aligned),
        block=(threads, 1, 1),
        grid=(rows, column_blocks),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — the three row pointers</summary>
#
# `gate = x + (size_t)blockIdx.x * stride_xr`, `up = gate + h`,
# `o = out + (size_t)blockIdx.x * h`. The cast makes the product 64-bit. From there on each
# row is a short version of exercise 1.
# </details>
#
# <details><summary>Hint 2 — the chunk and its two paths</summary>
#
# `c = (blockIdx.y * blockDim.x + threadIdx.x) * 8`; return if `c >= h`. Aligned: one `uint4`
# from `gate + c`, one from `up + c`, four pairs each, one `uint4` to `o + c`, as in exercise 1.
# Otherwise: a loop over `k = c … min(c + 8, h) - 1`, one element at a time.
# </details>
#
# <details><summary>Hint 3 — the launcher</summary>
#
# `aligned = h % 8 == 0 and x.stride(0) % 8 == 0` and both `data_ptr()`s multiples of 16;
# pass it as `np.int32(aligned)`. `grid=(rows, cdiv(cdiv(h, 8), threads))`: one thread per
# 8 columns of one row.
# </details>

# %% nbgrader={"grade": true, "grade_id": "test_swiglu_packed_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", swiglu_packed_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", swiglu_packed_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_swiglu_packed_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", swiglu_packed_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", swiglu_packed_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_swiglu_packed_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", swiglu_packed_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", swiglu_packed_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_swiglu_packed_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", swiglu_packed_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", swiglu_packed_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 — GeGLU (tanh), packed
#
# The packed layout of exercise 2, with GELU's tanh form instead of SiLU:
#
#     y = sqrt(2 / pi) * (g + 0.044715 * g**3)
#     gelu_tanh(g) = 0.5 * g * (1 + tanh(y)) = g / (1 + exp(-2 * y))
#
# The second form is the same number (`0.5 * (1 + tanh(y))` is `sigmoid(2y)`), needs one
# exponential and no tanh, and has no cancellation: for `g` below -3, `1 + tanh(y)` subtracts
# two numbers close to 1 and keeps few correct digits (harmless here, the result is tiny).
# Do **not** use `erf`: it is the other GELU, off by up to 11% of the value for `g` near -3,
# and the checks see it.
#
# ### Triton

# %% nbgrader={"grade": false, "grade_id": "geglu_packed_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def geglu_packed_kernel(
    x_ptr,  # [rows, 2h] bfloat16: gate = x[:, :h], up = x[:, h:2h]
    out_ptr,  # [rows, h] bfloat16, contiguous
    h,  # columns of out
    stride_xr,  # elements between the starts of two rows of x
    BLOCK_SIZE: tl.constexpr,  # columns per program
):
    ### BEGIN SOLUTION
    row = tl.program_id(axis=0).to(tl.int64)
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < h
    gate_row = x_ptr + row * stride_xr
    gate = tl.load(gate_row + cols, mask=mask).to(tl.float32)
    up = tl.load(gate_row + h + cols, mask=mask).to(tl.float32)
    y = 0.7978845608028654 * (gate + 0.044715 * gate * gate * gate)  # sqrt(2/pi) * (...)
    out = gate * tl.sigmoid(2.0 * y) * up  # 0.5 * (1 + tanh(y)) = sigmoid(2y)
    tl.store(out_ptr + row * h + cols, out.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def geglu_packed_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = gelu_tanh(x[:, :h]) * x[:, h:] for x [rows, 2h], out [rows, h]."""
    ### BEGIN SOLUTION
    rows, h = out.shape
    assert x.shape == (rows, 2 * h), f"x is {tuple(x.shape)}, expected ({rows}, {2 * h})"
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(h), 2048))
    grid = (rows, triton.cdiv(h, BLOCK_SIZE))
    geglu_packed_kernel[grid](x, out, h, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=8 if BLOCK_SIZE >= 2048 else 4)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — start from exercise 2</summary>
#
# The kernel and launcher of `swiglu_packed` are right for this layout: copy them, rename,
# and change only the line that computes `out`.
# </details>
#
# <details><summary>Hint 2 — the activation</summary>
#
# `y = 0.7978845608028654 * (gate + 0.044715 * gate * gate * gate)` (that constant is
# `sqrt(2 / pi)`), then `gelu = gate * tl.sigmoid(2.0 * y)`.
# </details>
#
# ### CUDA C
#
# The kernel of exercise 2 with another activation: write `gelu_tanh(float g)` as a
# `__device__` function above the kernel (with `__expf`; `tanhf` also works), then the kernel.

# %% nbgrader={"grade": false, "grade_id": "geglu_packed_cu", "locked": false, "schema_version": 3, "solution": true}
GEGLU_PACKED_CU = r"""
#include <cuda_bf16.h>

// Your __device__ float gelu_tanh(float g) goes here, above the kernel that calls it.
/// BEGIN SOLUTION
// gelu_tanh(g) = 0.5 g (1 + tanh(y)) = g / (1 + e^(-2y)), y = sqrt(2/pi) (g + 0.044715 g^3).
// For g below about -10, e^(-2y) overflows to inf and g / inf = -0: the right limit.
__device__ __forceinline__ float gelu_tanh(float g)
{
    const float y = 0.7978845608028654f * (g + 0.044715f * g * g * g);
    return g / (1.0f + __expf(-2.0f * y));
}
/// END SOLUTION

extern "C" __global__ void geglu_packed_kernel(
    const __nv_bfloat16 *__restrict__ x,  // [rows, 2h]: gate = x[:, :h], up = x[:, h:2h]
    __nv_bfloat16 *__restrict__ out,      // [rows, h], contiguous
    int h,                                // columns of out
    int stride_xr,                        // elements between the starts of two rows of x
    int aligned)                          // 1: every row of x and out is 16-byte aligned
{
    /// BEGIN SOLUTION
    constexpr int PACK = 8;
    const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * stride_xr;
    const __nv_bfloat16 *up = gate + h;
    __nv_bfloat16 *o = out + (size_t)blockIdx.x * h;
    const int c = (blockIdx.y * blockDim.x + threadIdx.x) * PACK;
    if (c >= h) return;
    if (aligned) {
        const uint4 g = *reinterpret_cast<const uint4 *>(gate + c);
        const uint4 u = *reinterpret_cast<const uint4 *>(up + c);
        uint4 r;
        const __nv_bfloat162 *g2 = reinterpret_cast<const __nv_bfloat162 *>(&g);
        const __nv_bfloat162 *u2 = reinterpret_cast<const __nv_bfloat162 *>(&u);
        __nv_bfloat162 *r2 = reinterpret_cast<__nv_bfloat162 *>(&r);
#pragma unroll
        for (int k = 0; k < PACK / 2; ++k) {
            const float2 gf = __bfloat1622float2(g2[k]);
            const float2 uf = __bfloat1622float2(u2[k]);
            r2[k] = __floats2bfloat162_rn(gelu_tanh(gf.x) * uf.x, gelu_tanh(gf.y) * uf.y);
        }
        *reinterpret_cast<uint4 *>(o + c) = r;
    } else {
        for (int k = c; k < min(c + PACK, h); ++k) {
            o[k] = __float2bfloat16_rn(gelu_tanh(__bfloat162float(gate[k])) *
                                       __bfloat162float(up[k]));
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "geglu_packed_cuda", "locked": false, "schema_version": 3, "solution": true}
geglu_packed_kernel_cu = SourceModule(GEGLU_PACKED_CU, no_extern_c=True).get_function(
    "geglu_packed_kernel")


def geglu_packed_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    """out = gelu_tanh(x[:, :h]) * x[:, h:] with geglu_packed_kernel_cu (arguments as in
    swiglu_packed_cuda)."""
    ### BEGIN SOLUTION
    rows, h = out.shape
    assert x.shape == (rows, 2 * h), f"x is {tuple(x.shape)}, expected ({rows}, {2 * h})"
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    aligned = (h % 8 == 0 and x.stride(0) % 8 == 0 and x.data_ptr() % 16 == 0
               and out.data_ptr() % 16 == 0)
    threads = 128
    column_blocks = triton.cdiv(triton.cdiv(h, 8), threads)
    geglu_packed_kernel_cu(
        np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(h),
        np.int32(x.stride(0)),
        np.int32(aligned),
        block=(threads, 1, 1),
        grid=(rows, column_blocks),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — the activation as a function</summary>
#
# `__device__ __forceinline__ float gelu_tanh(float g)` above the kernel: `y` as in the
# formula (`0.7978845608028654f` is `sqrt(2 / pi)`; mind the `f`, or the arithmetic turns
# into double), then `return g / (1.0f + __expf(-2.0f * y));`.
# </details>
#
# <details><summary>Hint 2 — the rest is exercise 2</summary>
#
# The kernel body and the launcher of `swiglu_packed` work unchanged once `silu` becomes
# `gelu_tanh`. Wrong results only where the gate is near -3 point at the formula: the erf
# GELU crept in, or a constant is off (`0.044715`, `sqrt(2 / pi)`, the 2 in `exp(-2y)`).
# </details>

# %% nbgrader={"grade": true, "grade_id": "test_geglu_packed_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", geglu_packed_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", geglu_packed_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_geglu_packed_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", geglu_packed_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", geglu_packed_cuda, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_geglu_packed_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", geglu_packed_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", geglu_packed_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_geglu_packed_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", geglu_packed_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", geglu_packed_cuda, graded=True)
### END HIDDEN TESTS
