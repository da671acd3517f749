# %% [markdown]
# # Lab 08 — Layer norm and RMSNorm, in Triton and in CUDA C
#
# A transformer keeps, for every token, a vector of `n_cols` numbers (the hidden size: 4096 in
# Llama 3 8B). Before each attention block and each MLP, and once more at the end, it
# **normalises** that vector: it removes its scale, so that a layer receives inputs of the same
# size however much the earlier layers have added to the residual stream, and then applies a
# learned scale per feature. Without it, activations drift in magnitude from layer to layer
# and training becomes fragile. Two forms are in use:
#
# | norm | per row `x` of `n_cols` values | parameters | used by |
# |---|---|---|---|
# | layer norm | `(x - mean(x)) / sqrt(var(x) + eps) * weight + bias` | `weight`, `bias` | GPT-2, BERT, ViT, Whisper |
# | RMSNorm | `x / sqrt(mean(x²) + eps) * weight` | `weight` | Llama, Mistral, Qwen, Gemma |
#
# `mean(x)` is the average of the row and `var(x) = mean((x - mean(x))²)` its **biased**
# variance (divided by `n_cols`, not `n_cols - 1`: torch's `layer_norm` does so). `eps` (1e-5,
# 1e-6) sits **inside** the square root: it keeps a row of (nearly) equal values from dividing
# by zero. RMSNorm is layer norm without the centring: no mean to subtract, no bias to add,
# one reduction instead of two, and models train as well with it.
#
# Here `x` is a `[n_rows, n_cols]` matrix (a row per token) in **float32 or bfloat16**;
# `weight` and `bias` are vectors of `n_cols` in the same dtype, and the statistics are always
# computed in float32.
#
# **What you will learn**
# 1. **A reduction that feeds an element-wise pass.** A row's mean and variance are sums over
#    the row; every output element needs them. One program (Triton) or one block of threads
#    (CUDA) per row reads the row **once** into registers, reduces it, and writes the result:
#    the minimum traffic, one read of `x` and one write of `out`.
# 2. **Mean and variance in float32, and how not to lose them.** Two passes over a row held in
#    registers, or Welford's running update; why the one-pass `E[x²] - E[x]²` cancels.
# 3. **Rows in chunks**: each CUDA thread keeps several chunks of its row, a Triton program
#    cuts its row into chunks in a loop unrolled at compile time (`tl.static_range`) instead of
#    one power-of-two block with lanes masked; what a kernel does when the row does not fit at
#    all.
# 4. **bfloat16 in, float32 math, one rounding out**, with 16-byte accesses in CUDA C, and
#    the row kept in registers as it was read: a memory-bound kernel's speed is the bytes it
#    keeps in flight, not the values.
# 5. **The backward pass** (the challenge exercise): `dx` is a row reduction again, but `dw`
#    and `db` sum over *rows*, across all the programs: partial sums per group of rows, then a
#    second kernel, and why not one `atomicAdd` per row; in CUDA, the next row's loads in
#    flight while this row is reduced, and a register budget that lets two blocks share an SM.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | a row per worker | `row = tl.program_id(0)`; the row in `N_CHUNKS` chunks of `BLOCK_SIZE` columns (a power of two), `for k in tl.static_range(N_CHUNKS)` | `row = blockIdx.x`; the block's threads share the row: thread `t` keeps chunks `t, t + blockDim.x, …` in a small register array |
# | padded rows | `x_ptr + row * stride_xr + cols` | `x + (size_t)row * stride_xr` |
# | 64-bit offsets | `tl.program_id(0).to(tl.int64)` before `row * stride_xr` | `(size_t)row * stride_xr` |
# | the columns past `n_cols` | `tl.load(..., mask=cols < n_cols, other=0.0)`: they add 0 to a sum, but `x - mean` is `-mean` there, so zero them again with `tl.where(mask, x - mean, 0.0)` before squaring | the same: the given `load_chunk` reads them as 0; set `x - mean` to 0 past the row |
# | a sum over the row | `tl.sum(x, axis=0)`: a scalar | each thread adds its own values; `block_sum` adds the threads: warp shuffles (`__shfl_xor_sync`), one value per warp through `__shared__` memory, `__syncthreads()` |
# | `1 / sqrt(v)` | `tl.rsqrt(v)` | `rsqrtf(v)` |
# | bfloat16 in, float32 math | `tl.load(...).to(tl.float32)`; `.to(out_ptr.dtype.element_ty)` at the store (the CPU interpreter cannot compute in bfloat16 at all) | given: `to_float(v)`, `from_float<T>(y)`, `load_chunk` / `store_chunk`, which move 16 bytes at a time where the row allows it, and `chunk_at<T>(chunk, j)`, one element of a chunk as a float |
# | a scalar parameter | `eps`: a Python float argument arrives as float32 | `float eps`: pass `np.float32(eps)` |
# | sums over rows (backward) | each program accumulates its group's rows in a `[BLOCK_SIZE]` float32 tensor, stores it as one row of a partial buffer; a second kernel adds the rows of that buffer | each thread accumulates its own columns over the group's rows in registers; a second kernel adds the partial rows |
#
# **What you write**, for each of three exercises: a Triton kernel and its launcher, a CUDA C
# source string and its launcher. Launchers receive the outputs already allocated, and `eps`
# after them: `layernorm_triton(x, weight, bias, out, eps)`.
# 1. `layernorm`: the layer-norm forward.
# 2. `rmsnorm`: RMSNorm, `rmsnorm_triton(x, weight, out, eps)`.
# 3. `layernorm_backward` (challenge, its own points):
#    `layernorm_backward_triton(dy, x, mean, rstd, weight, dx, dw, db)`.
#
# **How you are graded**: correctness on many shapes you do not see (one element, one row,
# tails, rows of 5000 columns, padded and misaligned rows, tiny variances where `eps`
# matters), fresh random inputs every time, compared with a float64 computation; on a GPU, the
# bandwidth of each kernel against a reference kernel. Without a GPU, Triton runs in its
# interpreter and CUDA C on the CPU: correctness only.
#
# **Precision.** A result passes when `|got - expected| <= atol + rtol * |expected|`, against a
# float64 computation. Forward, float32: `atol = rtol = 5e-6`; a float32 kernel is off by
# 4e-7 at most on these shapes (sums of a few thousand float32 terms, an `rsqrt` good to a few
# units in the last place). bfloat16: `rtol = 8e-3`, one bfloat16 unit in the last place;
# rounding once costs half of that. Statistics accumulated in bfloat16 do not pass: with 8
# significant bits, a running sum above 256 no longer changes when you add a value below 1.
# The backward's `dw` and `db` are sums over rows, whose float32 rounding error grows with the
# number of rows whatever the size of the result: there `atol = 1e-4`.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab08_layernorm"

# %% [markdown]
# ## Exercise 1 — Layer norm
#
# For each row `r` of `x` (`n_cols` values; rows `x.stride(0)` elements apart, which can be
# more than `n_cols`):
#
# ```
# mean = sum(x[r, :]) / n_cols
# var  = sum((x[r, :] - mean)²) / n_cols
# rstd = 1 / sqrt(var + eps)
# out[r, c] = (x[r, c] - mean) * rstd * weight[c] + bias[c]
# ```
#
# `out` is contiguous, in `x`'s dtype.
#
# ### Mean and variance: one pass or two?
#
# The formula above reads the row twice: once for the mean, once for the squared deviations.
# From memory that would cost a second read of `x`, but a row of a few thousand values fits
# in the registers of one program or block: load it once, and both passes run over registers,
# for arithmetic only. That is what the reference kernels do, and what this lab asks for.
#
# The classic one-pass shortcut, `var = sum(x²) / n - mean²`, subtracts two large numbers to
# get a small one. In float32 (24 significant bits) it loses `log2(mean² / var)` of those
# bits: a row with mean 100 and standard deviation 0.3 keeps about 7 of them, and one with
# mean 1000 none at all (the "variance" can even come out negative). Activations with a large
# common offset do occur (a few features of a deep model's residual stream grow far larger
# than the rest). The tests here use centred data, where the shortcut survives; do not rely
# on it.
# **Welford's method** updates a running mean and sum of squared deviations one value (or
# one chunk) at a time and has no such cancellation; it is how a kernel that cannot hold the
# row, and must stream it, computes the statistics in one pass.
#
# ### Why a kernel of your own beats torch
#
# Written as torch operations, `(x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1,
# unbiased=False, keepdim=True) + eps) * weight + bias` launches a kernel per operation and
# sends every intermediate `[n_rows, n_cols]` tensor to memory and back: ten passes over the
# whole matrix (six reads, four writes) where a fused kernel makes two, one read of `x` and one
# write of `out`. A memory-bound kernel's time is its traffic, so that is up to five times
# faster. `torch.nn.functional.layer_norm` is one fused kernel already, written for every
# shape, dtype and layout torch supports; a kernel specialised to this one (contiguous
# columns, a row at a time in registers, 16-byte accesses) can still beat it. On an H200
# (2026-12-03, one run; GB/s, the roof 4386):
#
# | 16384 rows | torch `layer_norm` | reference, Triton · CUDA | this lab's solution, Triton · CUDA |
# |---|---|---|---|
# | 4096 columns, float32 | 2996 | 3960 · 3960 | 3864 · 4146 |
# | 5120 columns, float32 | 2774 | 4005 · 4018 | 3925 · 4150 |
# | 4096 columns, bfloat16 | 2581 | 3928 · 3877 | 4121 · 3988 |
# | 5120 columns, bfloat16 | 2633 | 3980 · 4010 | 4104 · 3962 |
#
# A third to a half faster than torch's own fused kernel, from one read and one write. The
# Triton kernels hold a row as unmasked chunks (below): in bfloat16 at 5120 columns, where one
# block of 8192 masks 37.5% of its lanes, the one-block Triton solution of the day before moved
# 3282 GB/s.
#
# ### Triton
#
# One program per row. The simplest kernel holds the whole row in one block: `BLOCK_SIZE =
# triton.next_power_of_2(n_cols)` lanes, the columns past `n_cols` masked; load, widen to
# float32, reduce twice, normalise, scale and shift, round once, store. It is right on every
# shape, and as fast as the reference at 4096 columns: write it first (with `N_CHUNKS = 1`),
# then cut the row into chunks.
#
# **The lanes a mask throws away.** A row of 5120 columns (Llama 2 13B's hidden size) takes a
# block of 8192, and 37.5% of its lanes are masked. A masked lane loads nothing, but it is
# still an element of the block's tensors, and the compiler gives it registers all the same:
# the program holds the registers of 8192 values to work on 5120. An SM shares its 65536
# registers among the programs it runs, so fewer of them fit, fewer loads are in flight at
# once, and a memory-bound kernel is as fast as the bytes it keeps in flight (the CUDA part
# below counts them). On an H200 that one block ran bfloat16 × 5120 at 75% of the copy roof,
# where it ran 4096 columns at 91% (the table above).
#
# **A row in chunks.** Cut the row into `N_CHUNKS` chunks of `BLOCK_SIZE = 1024` columns (a
# power of two, as `tl.arange` needs): 4096 = 4 × 1024 and 5120 = 5 × 1024, no lane masked.
# Lane `j` holds column `j` of every chunk and adds them up in a `[BLOCK_SIZE]` float32
# accumulator, which one `tl.sum` reduces after the last chunk. The kernel makes three passes
# over the chunks of its row: the mean; the squared deviations around it; the output.
#
# **`tl.static_range`.** `for k in tl.static_range(N_CHUNKS)`, with `N_CHUNKS` a
# `tl.constexpr`, is unrolled when the kernel is compiled: `N_CHUNKS` copies of the body, each
# chunk in registers of its own, so that all the row's loads can be issued before the first sum
# waits on any of them (a plain `range` is a loop at run time). `EVEN`, a `tl.constexpr` too,
# is `n_cols % BLOCK_SIZE == 0`: under `if EVEN:` the chunks are loaded and stored without a
# mask, and the compiler drops the branch not taken; otherwise the last chunk runs past the
# row and is masked, as the one block was.
#
# **Three reads of `x` in the source, one from memory.** Pass 2 loads the same addresses as
# pass 1 with no store in between: the compiler sees the same loads twice and keeps pass 1's
# values in registers. Pass 3 comes after stores to `out`, which the compiler cannot prove do
# not overlap `x`, so it loads the chunks again, and they come from the L1 cache (256 KiB an
# SM on an H200; the row, 10 or 20 KiB, was read a moment ago) or at worst from the L2, not
# from memory. In exchange, no register holds a chunk from the statistics to its store.
#
# **Warps.** One 16-byte load per thread per chunk: 1024 bfloat16 are 2 KiB, 128 threads (4
# warps); 1024 float32 take 8 warps. Rows of more than `MAX_CHUNKS = 8` chunks take wider
# chunks (16384 columns: 8 of 2048), so that the unrolled code stays short and a thread holds
# at most 8 loads of its row; a row shorter than a chunk is one masked chunk, as before.
#
# On an H200, against the one-block Triton reference of the table above, the chunked kernel
# moved 1.20× its bandwidth at bfloat16 × 5120, where the one-block kernel moved 0.99×; on the
# other three rows both stay within a few percent of it (the numbers under the table).

# %% nbgrader={"grade": false, "grade_id": "layernorm_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def layernorm_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    w_ptr,  # weight, n_cols
    b_ptr,  # bias, n_cols
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_cols,  # columns per row: the normalised dimension
    stride_xr,  # elements between the starts of two rows of x
    eps,  # added to the variance, inside the square root
    BLOCK_SIZE: tl.constexpr,  # a power of two: the columns of one chunk of the row
    N_CHUNKS: tl.constexpr,  # cdiv(n_cols, BLOCK_SIZE): the chunk loops unroll at compile time
    EVEN: tl.constexpr,  # n_cols % BLOCK_SIZE == 0: no chunk runs past the row, no mask
):
    ### BEGIN SOLUTION
    row = tl.program_id(0).to(tl.int64)  # row * stride_xr can pass 2^31 on large inputs
    x_row = x_ptr + row * stride_xr
    out_row = out_ptr + row * n_cols
    cols = tl.arange(0, BLOCK_SIZE)
    # Pass 1, the mean: each lane adds up its column of every chunk, one tl.sum at the end.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for k in tl.static_range(N_CHUNKS):  # unrolled: every chunk's load issued up front
        c = k * BLOCK_SIZE + cols
        if EVEN:  # decided at compile time: no mask code at all
            x = tl.load(x_row + c)
        else:
            x = tl.load(x_row + c, mask=c < n_cols, other=0.0)  # past the row: 0, adds nothing
        acc += x.to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    # Pass 2, the variance around the mean (no cancellation). The same loads as pass 1 and no
    # store between them: the compiler reuses pass 1's registers instead of reading again.
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for k in tl.static_range(N_CHUNKS):
        c = k * BLOCK_SIZE + cols
        if EVEN:
            d = tl.load(x_row + c).to(tl.float32) - mean
        else:
            mask = c < n_cols
            x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
            d = tl.where(mask, x - mean, 0.0)  # past the row x - mean is -mean: zero it
        acc += d * d
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)  # biased: divided by n, as torch does
    # Pass 3, the output. After the first store the compiler cannot tell whether out overlaps
    # x, so it loads x again: from the L1 cache, where pass 1 left the row a moment ago.
    for k in tl.static_range(N_CHUNKS):
        c = k * BLOCK_SIZE + cols
        if EVEN:
            x = tl.load(x_row + c).to(tl.float32)
            w = tl.load(w_ptr + c).to(tl.float32)
            b = tl.load(b_ptr + c).to(tl.float32)
            y = (x - mean) * rstd * w + b
            tl.store(out_row + c, y.to(out_ptr.dtype.element_ty))
        else:
            mask = c < n_cols  # the last chunk runs past the row, and past weight and bias
            x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
            w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
            y = (x - mean) * rstd * w + b
            tl.store(out_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


# Columns per chunk: 4096 and 5120 (Llama's hidden sizes) are whole chunks, no lane masked.
CHUNK = 1024
# The most chunks in a row: longer rows take wider chunks (16384 columns: 8 of 2048), so that
# the unrolled loops stay short and a thread holds at most 8 loads of its row.
MAX_CHUNKS = 8


def layernorm_triton(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                     out: torch.Tensor, eps: float) -> None:
    """out = layer_norm(x) over each row, one program per row, the row in chunks."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    assert weight.shape == bias.shape == (n_cols,), \
        f"weight {tuple(weight.shape)}, bias {tuple(bias.shape)}: expected ({n_cols},)"
    # CHUNK columns, wider for rows of more than MAX_CHUNKS chunks, and no wider than the row
    # needs: a row of 7 is one chunk of 8.
    BLOCK_SIZE = min(max(CHUNK, triton.next_power_of_2(triton.cdiv(n_cols, MAX_CHUNKS))),
                     triton.next_power_of_2(n_cols))
    # One 16-byte load per thread per chunk (4 warps for 1024 bfloat16, 8 for float32), from 1
    # warp for a short row to 16, the most a program has.
    num_warps = max(1, min(16, BLOCK_SIZE * x.element_size() // (16 * 32)))
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=BLOCK_SIZE, N_CHUNKS=triton.cdiv(n_cols, BLOCK_SIZE),
                                EVEN=n_cols % BLOCK_SIZE == 0, num_warps=num_warps)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — one block first</summary>
#
# Lab 07's row softmax has the one-block kernel's shape: a program id for the row, offsets and
# a mask for the columns, a masked load, reductions with `tl.sum`, a masked store. Here the
# masked load uses `other=0.0` (a zero adds nothing to a sum), and there are two reductions
# (the mean, then the variance) where softmax had a max and a sum. Launch it with `BLOCK_SIZE
# = triton.next_power_of_2(n_cols)`, `N_CHUNKS = 1`, `EVEN = n_cols == BLOCK_SIZE`, and make
# it pass before you cut the row.
# </details>
#
# <details><summary>Hint 2 — the chunk loops, and the variance's trap</summary>
#
# In `for k in tl.static_range(N_CHUNKS):` chunk `k` is columns `c = k * BLOCK_SIZE + cols`.
# Each pass is one such loop: add the chunks into a `tl.zeros([BLOCK_SIZE], dtype=tl.float32)`
# accumulator, and `tl.sum` it once, after the loop. In the variance's pass, the masked lanes
# of a masked chunk hold `x - mean = -mean`, not 0: squared and summed they would add `mean²`
# each; zero them with `tl.where(mask, x - mean, 0.0)`. Divide by `n_cols`, never by
# `N_CHUNKS * BLOCK_SIZE`. The output's pass loads `x`, `weight` and `bias` of its chunk again.
# </details>
#
# <details><summary>Hint 3 — the launcher</summary>
#
# `grid = (n_rows,)`, and pass `x.stride(0)` as `stride_xr` (never assume `n_cols`).
# `BLOCK_SIZE`: `CHUNK`, or `triton.next_power_of_2(triton.cdiv(n_cols, MAX_CHUNKS))` where
# that is wider, and never wider than `triton.next_power_of_2(n_cols)`. `N_CHUNKS` and `EVEN`
# follow from it. `num_warps`: a thread's 16 bytes of a chunk are `16 // x.element_size()`
# columns, and a warp has 32 threads; keep it between 1 and 16.
# </details>
#
# ### CUDA C
#
# One block per row. A block has at most 1024 threads and a row may be longer, so the row is
# cut into **chunks** of 16 bytes, `PACK = 16 / sizeof(T)` elements (4 floats or 8 bfloat16),
# and each thread keeps `CHUNKS = 4` of them in registers (rows up to 4 × 1024 chunks: 16384
# float32 columns): thread `t` owns chunks `t`, `t + blockDim.x`, `t + 2 * blockDim.x`, … (its
# neighbours own the neighbouring chunks: a warp reads 512 contiguous bytes at once).
#
# **Count bytes, not values.** A memory-bound kernel is as fast as the bytes it keeps in
# flight: each SM must have tens of KiB of loads outstanding to cover the memory's latency,
# and its 65536 registers are shared by the blocks it runs. So a thread keeps its chunks **as
# they came from memory**, a `uint4` (4 registers) per chunk whatever the dtype, and widens
# each value to float when it computes with it (for bfloat16 a shift: free next to a memory
# access). Widened on load, 8 bfloat16 would take 8 registers for the 16 bytes a float32 chunk
# keeps in 4: half the bytes in flight per register, and half the speed.
#
# Given, at the top of the source: `to_float` / `from_float<T>`; `load_chunk(p, c, n, vec)`,
# which returns the chunk starting at column `c` of the row at `p`, with the elements at or
# past `n` set to 0: as one 16-byte load when `vec` is set (the launcher sets `aligned` when
# every row of every tensor starts on a 16-byte boundary and is whole chunks), element by
# element otherwise;
# `chunk_at<T>(chunk, j)`, its element `j` as a float; and `store_chunk`, which writes `PACK`
# floats back as a chunk of `T`, never past `n`.
#
# You write `block_sum(v)`: the sum of `v` over all the threads of the block, returned to every
# thread (as lab 07's `block_reduce`, a sum only); and the body of the template `layernorm<T>`,
# which the two kernels `layernorm_kernel_f32` and `layernorm_kernel_bf16` call.
# `<cuda_bf16.h>` is C++, so the cell compiles with `no_extern_c=True` and the kernels say
# `extern "C"` themselves.

# %% nbgrader={"grade": false, "grade_id": "layernorm_cu", "locked": false, "schema_version": 3, "solution": true}
LAYERNORM_CU = r"""
#include <cuda_bf16.h>  // __nv_bfloat16 and its conversions

#define CHUNKS 4  // 16-byte chunks of its row each thread keeps: rows up to 4 x 1024 chunks

// Given: to_float widens one element, from_float<T> rounds a float to T (to nearest even).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// Given: the chunk of PACK = 16 / sizeof(T) elements p[c] ... p[c + PACK - 1] as it is in
// memory, 16 bytes (4 registers whatever T is), with the elements at or past n set to 0. With
// vec (p 16-byte aligned, n a multiple of PACK: the row is whole chunks) one 16-byte load;
// else one element at a time.
template <class T>
__device__ __forceinline__ uint4 load_chunk(const T *p, int c, int n, bool vec)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    uint4 chunk = make_uint4(0u, 0u, 0u, 0u);  // float and bfloat16 zeros are zero bits
    if (vec) {
        if (c < n) chunk = *reinterpret_cast<const uint4 *>(p + c);
    } else {
        T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) e[j] = p[c + j];
        }
    }
    return chunk;
}

// Given: element j of a chunk of T, widened to float.
template <class T> __device__ __forceinline__ float chunk_at(const uint4 &chunk, int j)
{
    return to_float(reinterpret_cast<const T *>(&chunk)[j]);
}

// Given: v[0 .. PACK - 1] rounded to T into p[c] ... p[c + PACK - 1], none at or past n (vec:
// as for load_chunk, one 16-byte store).
template <class T>
__device__ __forceinline__ void store_chunk(T *p, int c, int n, bool vec, const float *v)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    if (vec) {
        if (c < n) {
            uint4 chunk;
            T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
            for (int j = 0; j < PACK; ++j) e[j] = from_float<T>(v[j]);
            *reinterpret_cast<uint4 *>(p + c) = chunk;
        }
    } else {
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) p[c + j] = from_float<T>(v[j]);
        }
    }
}

// The sum of v over the block's threads, returned to every thread. blockDim.x is a multiple
// of 32: every warp is whole, so a full shuffle mask names only lanes that exist.
__device__ float block_sum(float v)
{
    /// BEGIN SOLUTION
    __shared__ float per_warp[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();  // every warp's sum is in shared memory before anyone reads it
    v = lane < blockDim.x / 32 ? per_warp[lane] : 0.0f;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    __syncthreads();  // everyone has read per_warp before the next block_sum writes it
    /// END SOLUTION
    return v;
}

// Row blockIdx.x of out = layer_norm(row blockIdx.x of x); T is float or __nv_bfloat16.
template <class T>
__device__ __forceinline__ void layernorm(const T *__restrict__ x, const T *__restrict__ w,
                                          const T *__restrict__ b, T *__restrict__ out,
                                          int n_cols, int stride_xr, float eps, bool aligned)
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per chunk: 4 or 8
    const T *row_in = x + (size_t)blockIdx.x * stride_xr;  // 64-bit: can pass 2^31
    T *row_out = out + (size_t)blockIdx.x * n_cols;
    uint4 v[CHUNKS];  // this thread's part of the row as read: kept in registers, 16 bytes each
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;  // first column of the chunk
        v[k] = load_chunk(row_in, c, n_cols, aligned);  // past the row: zeros
#pragma unroll
        for (int j = 0; j < PACK; ++j) sum += chunk_at<T>(v[k], j);
    }
    const float mean = block_sum(sum) / n_cols;
    float sq = 0.0f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            const float d = c + j < n_cols ? chunk_at<T>(v[k], j) - mean : 0.0f;  // not -mean
            sq += d * d;
        }
    }
    const float rstd = rsqrtf(block_sum(sq) / n_cols + eps);  // biased variance, eps inside
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;
        if (c < n_cols) {  // chunks wholly past the row have nothing to write
            const uint4 wc = load_chunk(w, c, n_cols, aligned);
            const uint4 bc = load_chunk(b, c, n_cols, aligned);
            float y[PACK];
#pragma unroll
            for (int j = 0; j < PACK; ++j)
                y[j] = (chunk_at<T>(v[k], j) - mean) * rstd * chunk_at<T>(wc, j)
                       + chunk_at<T>(bc, j);
            store_chunk(row_out, c, n_cols, aligned, y);
        }
    }
    /// END SOLUTION
}

// One kernel per dtype; extern "C" keeps the names unmangled for get_function. Up to 1024
// threads per block (__launch_bounds__): the compiler keeps each thread within 64 registers.
extern "C" __global__ void __launch_bounds__(1024) layernorm_kernel_f32(
    const float *__restrict__ x,  // input, n_rows x n_cols, rows stride_xr apart
    const float *__restrict__ w,  // weight, n_cols
    const float *__restrict__ b,  // bias, n_cols
    float *__restrict__ out,      // output, n_rows x n_cols, contiguous
    int n_cols,                   // columns per row
    int stride_xr,                // elements between the starts of two rows of x
    float eps,                    // added to the variance, inside the square root
    int aligned)                  // 1: rows of x and out, w and b: aligned whole chunks
{
    layernorm(x, w, b, out, n_cols, stride_xr, eps, aligned != 0);
}

extern "C" __global__ void __launch_bounds__(1024) layernorm_kernel_bf16(
    const __nv_bfloat16 *__restrict__ x,
    const __nv_bfloat16 *__restrict__ w,
    const __nv_bfloat16 *__restrict__ b,
    __nv_bfloat16 *__restrict__ out,
    int n_cols,
    int stride_xr,
    float eps,
    int aligned)
{
    layernorm(x, w, b, out, n_cols, stride_xr, eps, aligned != 0);
}
"""

# %% nbgrader={"grade": false, "grade_id": "layernorm_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
layernorm_module_cu = SourceModule(LAYERNORM_CU, no_extern_c=True)
layernorm_kernels_cu = {
    torch.float32: layernorm_module_cu.get_function("layernorm_kernel_f32"),
    torch.bfloat16: layernorm_module_cu.get_function("layernorm_kernel_bf16"),
}


def layernorm_cuda(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                   out: torch.Tensor, eps: float) -> None:
    """out = layer_norm(x) over each row with layernorm_kernels_cu[x.dtype], a block per row.

    Kernel arguments: the four tensors as np.uintp(t.data_ptr()), n_cols and x.stride(0) as
    np.int32, eps as np.float32, the aligned flag as np.int32; then block=(threads, 1, 1) and
    grid=(n_rows, 1).
    """
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    pack = 16 // x.element_size()  # elements per 16-byte chunk
    chunks = 4  # CHUNKS in LAYERNORM_CU
    n_chunks = triton.cdiv(n_cols, pack)
    assert n_chunks <= 1024 * chunks, f"rows up to {1024 * chunks * pack} columns, got {n_cols}"
    # Whole warps, CHUNKS chunks each: a power of two would leave threads idle (5120 float32
    # columns are 1280 chunks: 320 threads; 512 would hold 2048).
    threads = triton.cdiv(triton.cdiv(n_chunks, chunks), 32) * 32
    # 16-byte chunks need every row of every tensor to start on a 16-byte boundary: aligned
    # bases, and row lengths (x's stride, out's n_cols) that are whole chunks.
    aligned = (all(t.data_ptr() % 16 == 0 for t in (x, weight, bias, out))
               and x.stride(0) % pack == 0 and n_cols % pack == 0)
    layernorm_kernels_cu[x.dtype](
        np.uintp(x.data_ptr()),
        np.uintp(weight.data_ptr()),
        np.uintp(bias.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n_cols),
        np.int32(x.stride(0)),
        np.float32(eps),
        np.int32(aligned),
        block=(threads, 1, 1),
        grid=(n_rows, 1),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — block_sum</summary>
#
# Two steps, as lab 07's `block_reduce`. Inside each warp, five `__shfl_xor_sync(0xffffffffu,
# v, offset)` with offsets 16, 8, 4, 2, 1 leave the warp's sum in every lane. Lane 0 of each
# warp writes it to `__shared__ float per_warp[32]`; after a `__syncthreads()`, every warp
# reads `per_warp[lane]` (0 for `lane >= blockDim.x / 32`) and shuffles again. End with a
# second `__syncthreads()`: `layernorm` calls `block_sum` twice, and the second call must not
# overwrite `per_warp` while a slow warp is still reading the first.
# </details>
#
# <details><summary>Hint 2 — the chunks of a thread</summary>
#
# `uint4 v[CHUNKS]` with `PACK = sizeof(uint4) / sizeof(T)`. Chunk `k` of the thread starts at
# column `c = (threadIdx.x + k * blockDim.x) * PACK`; `v[k] = load_chunk(row_in, c, n_cols,
# aligned)`, and `chunk_at<T>(v[k], j)` for `j < PACK` are its values. Loops over `k` and `j`
# with `#pragma unroll` index the array by constants, so it stays in registers. Sum, then
# `block_sum`, divide by `n_cols`: the mean.
# </details>
#
# <details><summary>Hint 3 — the second pass and the output</summary>
#
# Sum the squares of `chunk_at<T>(v[k], j) - mean`, counting 0 where `c + j >= n_cols`;
# `rstd = rsqrtf(block_sum(sq) / n_cols + eps)`. Then, for each chunk with `c < n_cols`: load
# the chunks of `w` and `b` at the same `c`, compute `float y[PACK]` as `(v - mean) * rstd * w
# + b`, and `store_chunk` it into the row of `out`. The launcher: `threads` = enough whole warps
# for `cdiv(n_cols, PACK)` chunks at `CHUNKS` each, `grid=(n_rows, 1)`, and `aligned` only when
# all four `data_ptr()`s are multiples of 16 and both `x.stride(0)` and `n_cols` are multiples
# of `PACK`.
# </details>

# %% [markdown]
# ### Check your work
#
# One element, a tail after 128 columns, rows of 5000 columns, padded rows, and rows scaled by
# 1e-3, whose variance (1e-6) is smaller than `eps`: `sqrt(var) + eps` instead of
# `sqrt(var + eps)` is wrong by a factor of 3 there.

# %% nbgrader={"grade": true, "grade_id": "test_layernorm_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", layernorm_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", layernorm_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_layernorm_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", layernorm_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", layernorm_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launchers against `torch.nn.functional.layer_norm` from 512 to
# 16384 columns (16384 rows), in GB/s of the minimum traffic (`x` read once, `out` written
# once, `weight` and `bias` once) and % of the copy roof; without a GPU it says "skipped:
# needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_layernorm_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", layernorm_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", layernorm_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_layernorm_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", layernorm_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", layernorm_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ### Rows longer than a block
#
# Both kernels hold a whole row in registers, and that has a limit: the register file. The
# Triton kernel's unrolled chunks of a row of 16384 float32 are 32 values per thread on 16
# warps; the CUDA kernel above stops at `4 × 1024` chunks (16384 float32 or 32768 bfloat16
# columns). Rows of normalised activations rarely exceed that (16384 is Llama 3 405B's hidden
# size), but a kernel for any length must **loop over the row at run time** (`range`, not
# `tl.static_range`: a loop, not copies of its body), and then it cannot keep what it read:
#
# - **Three passes** (mean; variance around it; normalise and write): `x` is read three
#   times. A row of tens of KiB stays in the L2 cache (50 MB on an H100, 60 MB on an H200)
#   between the passes if not too many rows are in flight, so the second and third reads are
#   cheaper than the first, but not free.
# - **Two passes**: accumulate the statistics of all chunks in one loop (Welford: each chunk's
#   count, mean and sum of squared deviations, merged into the running ones; never the raw sum
#   of squares), then normalise in a second loop. One extra read of `x`, from L2.
#
# Keeping the row in registers (or in shared memory, for rows up to a few tens of KiB) reads it
# once. A kernel that simply stops at its block size, handling the first `BLOCK_SIZE`
# columns and silently dropping the rest, is the mistake to avoid: the tests' 5000-column rows
# are longer than 1024 threads and longer than a Triton block of 4096.

# %% [markdown]
# ## Exercise 2 — RMSNorm
#
# ```
# rstd = 1 / sqrt(sum(x[r, :]²) / n_cols + eps)
# out[r, c] = x[r, c] * rstd * weight[c]
# ```
#
# No mean, no bias: one reduction. `eps` defaults to 1e-6 here (Llama's). The layout is
# exercise 1's: rows `x.stride(0)` apart, `out` contiguous, float32 or bfloat16.
#
# ### Triton

# %% nbgrader={"grade": false, "grade_id": "rmsnorm_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def rmsnorm_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    w_ptr,  # weight, n_cols
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_cols,  # columns per row
    stride_xr,  # elements between the starts of two rows of x
    eps,  # added to the mean square, inside the square root
    BLOCK_SIZE: tl.constexpr,  # a power of two >= n_cols
):
    ### BEGIN SOLUTION
    row = tl.program_id(0).to(tl.int64)  # row * stride_xr can pass 2^31
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols  # the block is wider than the row
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)  # masked lanes add 0; divide by n
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)  # the same mask: weight has n_cols
    tl.store(out_ptr + row * n_cols + cols, (x * rstd * w).to(out_ptr.dtype.element_ty),
             mask=mask)
    ### END SOLUTION


def rmsnorm_triton(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor,
                   eps: float) -> None:
    """out = rms_norm(x) over each row, one program per row."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    assert weight.shape == (n_cols,), f"weight {tuple(weight.shape)}: expected ({n_cols},)"
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = min(max(BLOCK_SIZE // 1024, 4), 16)
    rmsnorm_kernel[(n_rows,)](x, weight, out, n_cols, x.stride(0), eps, BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=num_warps)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — exercise 1 minus two lines</summary>
#
# Start from the one-block layer norm you wrote first in exercise 1 (the whole row in one
# block of `BLOCK_SIZE` lanes, as this kernel's signature asks): drop the bias, drop the mean,
# and sum `x * x` where you summed `d * d`. The masked lanes are 0 already (`other=0.0`), so no
# `tl.where`.
# </details>
#
# <details><summary>Hint 2 — which n?</summary>
#
# Divide the sum of squares by `n_cols`. `BLOCK_SIZE` is the width of the block, not of the
# row: `tl.sum(x * x) / BLOCK_SIZE` is right only when `n_cols` is a power of two.
# </details>
#
# ### CUDA C
#
# The source string of exercise 1 with a simpler template: `block_sum` is the same (copy
# yours), the kernels are `rmsnorm_kernel_f32` and `rmsnorm_kernel_bf16`, without `b`.

# %% nbgrader={"grade": false, "grade_id": "rmsnorm_cu", "locked": false, "schema_version": 3, "solution": true}
RMSNORM_CU = r"""
#include <cuda_bf16.h>

#define CHUNKS 4  // 16-byte chunks of its row each thread keeps: rows up to 4 x 1024 chunks

// Given: as in exercise 1.
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

template <class T>
__device__ __forceinline__ uint4 load_chunk(const T *p, int c, int n, bool vec)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    uint4 chunk = make_uint4(0u, 0u, 0u, 0u);  // float and bfloat16 zeros are zero bits
    if (vec) {
        if (c < n) chunk = *reinterpret_cast<const uint4 *>(p + c);
    } else {
        T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) e[j] = p[c + j];
        }
    }
    return chunk;
}

template <class T> __device__ __forceinline__ float chunk_at(const uint4 &chunk, int j)
{
    return to_float(reinterpret_cast<const T *>(&chunk)[j]);
}

template <class T>
__device__ __forceinline__ void store_chunk(T *p, int c, int n, bool vec, const float *v)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    if (vec) {
        if (c < n) {
            uint4 chunk;
            T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
            for (int j = 0; j < PACK; ++j) e[j] = from_float<T>(v[j]);
            *reinterpret_cast<uint4 *>(p + c) = chunk;
        }
    } else {
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) p[c + j] = from_float<T>(v[j]);
        }
    }
}

// The sum of v over the block's threads, returned to every thread (exercise 1's).
__device__ float block_sum(float v)
{
    /// BEGIN SOLUTION
    __shared__ float per_warp[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();  // every warp's sum is in shared memory before anyone reads it
    v = lane < blockDim.x / 32 ? per_warp[lane] : 0.0f;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    __syncthreads();  // everyone has read per_warp before it is written again
    /// END SOLUTION
    return v;
}

// Row blockIdx.x of out = rms_norm(row blockIdx.x of x); T is float or __nv_bfloat16.
template <class T>
__device__ __forceinline__ void rmsnorm(const T *__restrict__ x, const T *__restrict__ w,
                                        T *__restrict__ out, int n_cols, int stride_xr,
                                        float eps, bool aligned)
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    const T *row_in = x + (size_t)blockIdx.x * stride_xr;  // 64-bit: can pass 2^31
    T *row_out = out + (size_t)blockIdx.x * n_cols;
    uint4 v[CHUNKS];  // as read: 16 bytes a chunk whatever T is
    float sq = 0.0f;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;
        v[k] = load_chunk(row_in, c, n_cols, aligned);  // past the row: zeros, which add 0
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            const float e = chunk_at<T>(v[k], j);
            sq += e * e;
        }
    }
    const float rstd = rsqrtf(block_sum(sq) / n_cols + eps);
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;
        if (c < n_cols) {
            const uint4 wc = load_chunk(w, c, n_cols, aligned);
            float y[PACK];
#pragma unroll
            for (int j = 0; j < PACK; ++j) y[j] = chunk_at<T>(v[k], j) * rstd * chunk_at<T>(wc, j);
            store_chunk(row_out, c, n_cols, aligned, y);
        }
    }
    /// END SOLUTION
}

extern "C" __global__ void __launch_bounds__(1024) rmsnorm_kernel_f32(
    const float *__restrict__ x,  // input, n_rows x n_cols, rows stride_xr apart
    const float *__restrict__ w,  // weight, n_cols
    float *__restrict__ out,      // output, n_rows x n_cols, contiguous
    int n_cols,                   // columns per row
    int stride_xr,                // elements between the starts of two rows of x
    float eps,                    // added to the mean square, inside the square root
    int aligned)                  // 1: rows of x and out, and w: aligned whole chunks
{
    rmsnorm(x, w, out, n_cols, stride_xr, eps, aligned != 0);
}

extern "C" __global__ void __launch_bounds__(1024) rmsnorm_kernel_bf16(
    const __nv_bfloat16 *__restrict__ x,
    const __nv_bfloat16 *__restrict__ w,
    __nv_bfloat16 *__restrict__ out,
    int n_cols,
    int stride_xr,
    float eps,
    int aligned)
{
    rmsnorm(x, w, out, n_cols, stride_xr, eps, aligned != 0);
}
"""

# %% nbgrader={"grade": false, "grade_id": "rmsnorm_cuda", "locked": false, "schema_version": 3, "solution": true}
rmsnorm_module_cu = SourceModule(RMSNORM_CU, no_extern_c=True)
rmsnorm_kernels_cu = {
    torch.float32: rmsnorm_module_cu.get_function("rmsnorm_kernel_f32"),
    torch.bfloat16: rmsnorm_module_cu.get_function("rmsnorm_kernel_bf16"),
}


def rmsnorm_cuda(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    """out = rms_norm(x) over each row with rmsnorm_kernels_cu[x.dtype], a block per row
    (arguments as in layernorm_cuda, without bias)."""
    ### BEGIN SOLUTION
    assert x.ndim == 2 and x.stride(1) == 1, f"need rows of contiguous columns, got {x.stride()}"
    n_rows, n_cols = x.shape
    pack = 16 // x.element_size()
    chunks = 4  # CHUNKS in RMSNORM_CU
    n_chunks = triton.cdiv(n_cols, pack)
    assert n_chunks <= 1024 * chunks, f"rows up to {1024 * chunks * pack} columns, got {n_cols}"
    threads = triton.cdiv(triton.cdiv(n_chunks, chunks), 32) * 32  # whole warps, as layernorm's
    aligned = (all(t.data_ptr() % 16 == 0 for t in (x, weight, out))
               and x.stride(0) % pack == 0 and n_cols % pack == 0)
    rmsnorm_kernels_cu[x.dtype](
        np.uintp(x.data_ptr()),
        np.uintp(weight.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n_cols),
        np.int32(x.stride(0)),
        np.float32(eps),
        np.int32(aligned),
        block=(threads, 1, 1),
        grid=(n_rows, 1),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — what to keep from exercise 1</summary>
#
# `block_sum` unchanged; in the template, the first loop (load the chunks) summing the squares
# of `chunk_at<T>(v[k], j)` instead of the values, and the last loop (the output chunks) with
# `v * rstd * w`. The zeros `load_chunk` gives past the row add nothing to a sum of squares:
# no second pass.
# </details>
#
# <details><summary>Hint 2 — the launcher</summary>
#
# `layernorm_cuda` without `bias`: the same threads, grid and `aligned` flag (over `x`,
# `weight` and `out`).
# </details>

# %% nbgrader={"grade": true, "grade_id": "test_rmsnorm_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", rmsnorm_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", rmsnorm_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_rmsnorm_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", rmsnorm_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", rmsnorm_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# On a GPU, `bench` times your launchers against `torch.nn.functional.rms_norm`. RMSNorm moves
# the same bytes as layer norm less one vector (`bias`), so at the same bandwidth it takes the
# same time: its single reduction saves arithmetic and a barrier, not memory traffic.

# %% nbgrader={"grade": true, "grade_id": "perf_rmsnorm_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", rmsnorm_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", rmsnorm_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_rmsnorm_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", rmsnorm_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", rmsnorm_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 3 (challenge) — The layer-norm backward
#
# Training needs the gradient of the loss with respect to the layer's input and parameters,
# given `dy`, its gradient with respect to the layer's output. With `xhat = (x - mean) * rstd`
# (the normalised row, before `weight` and `bias`) and `g = dy * weight`, for each row:
#
# ```
# dx[r, c] = rstd * (g[c] - mean(g) - xhat[c] * mean(g * xhat))      (means over the row)
# dw[c]    = sum over rows r of dy[r, c] * xhat[r, c]
# db[c]    = sum over rows r of dy[r, c]
# ```
#
# The two means in `dx` come from the mean and the variance depending on every element of the
# row: moving one `x[c]` moves them too. Without them `dx` would be `rstd * g`, the gradient of
# a layer whose statistics were constants.
#
# **The saved statistics.** The forward pass already computed each row's `mean` and `rstd`;
# torch's `layer_norm` saves them for the backward (two float32 per row: 128 KiB for 16384
# rows, against 128 MiB of `x` in bfloat16 at 4096 columns), and so does this exercise: they
# are inputs, `mean` and `rstd`, float32 vectors of `n_rows`. Recomputing them would cost two more reductions per row; loading them
# costs 8 bytes per row. In the tests they are drawn **at random**, not computed from `x`
# (nothing in the formula above needs them to match `x`): use them as given.
#
# Arguments, in the order of torch's `native_layer_norm_backward`: `dy`, `x` (both `[n_rows,
# n_cols]`, rows `stride(0)` apart, in the exercise's dtype), `mean`, `rstd` (float32,
# `[n_rows]`), `weight` (`[n_cols]`); outputs `dx` (contiguous, `x`'s dtype), `dw`, `db`
# (float32, `[n_cols]`).
#
# ### Two stages for dw and db
#
# `dx` is exercise 1 again: a program (or block) per row, two sums over the row. But `dw` and
# `db` are sums over **rows**, and rows belong to different programs. The obvious way out,
# every program `atomicAdd`ing (`tl.atomic_add`) its row's `dy * xhat` into `dw`, is slow and
# not reproducible:
#
# - **contention**: at 16384 rows, 16384 atomic additions land on each of the `n_cols`
#   addresses; atomics to one address are serialised in the L2, so that column of the result
#   waits for all of them, one after another;
# - **non-determinism**: float addition is not associative, and the order in which the
#   programs' atomics arrive changes from run to run, so `dw` changes in its last bits from one
#   run to the next: training runs that cannot be reproduced bit for bit, and tests that
#   cannot compare two runs exactly.
#
# Instead, **stage 1** gives each program a **group** of consecutive rows (32 here); it keeps
# `dw` and `db` accumulators for its group (one float32 per column, in registers), processes
# its rows one after another (writing each row's `dx`), and at the end stores its accumulators
# as one row of a float32 **partial** buffer `[n_groups, n_cols]` (one for `dw`, one for `db`).
# **Stage 2**, a second kernel, adds the `n_groups` rows of each partial buffer column by
# column into `dw` and `db`. The order of every addition is fixed: the result is the same on
# every run. The partial buffers cost `2 × n_groups × n_cols × 4` bytes, written once and read
# once: small against `x`, `dy` and `dx` when the groups are few (512 groups for 16384 rows).
#
# ### Triton
#
# `layernorm_backward_kernel` is stage 1: program `g` takes rows `g * rows_per_group` to
# `min((g + 1) * rows_per_group, n_rows) - 1`. `column_sum_kernel` is stage 2: each program
# takes `BLOCK_N` columns and walks down the partial buffers `BLOCK_G` rows at a time.
#
# A program holds its weight, its two accumulators and a row of `x` and `dy`: an SM runs one
# or two of them, and a program that loads a row and then waits on its sums leaves the memory
# idle meanwhile. So load the **next** row's `x` and `dy` before this row's sums: tensors
# carried from one iteration of the loop to the next, in flight while this row is reduced (a
# software pipeline; the CUDA kernel below does the same).
#
# `TAIL_SIZE` is for rows whose width is not a power of two. One block of 8192 lanes for a row
# of 5120 columns leaves 3/8 of them idle, and the registers they hold cost the SM a second
# program. Instead, hold the row as a head block of `BLOCK_SIZE` columns and a tail block of
# `TAIL_SIZE` columns right after it, each a power of two (5120 = 4096 + 1024), and do every
# step on both: two loads, two pairs of sums added together, two stores. `if TAIL_SIZE > 0:`
# is decided at compile time: with a tail of 0 that code does not exist. Start with
# `TAIL_SIZE = 0` from the launcher (one block, as exercise 1 starts), add the tail once that
# passes. On an H200, bfloat16 at 5120 columns: the tail alone gained 1%; with the warps set
# from the lanes the row takes (4 here, so two programs fit an SM) and the next row's `mean`
# and `rstd` loaded ahead too, 21%.

# %% nbgrader={"grade": false, "grade_id": "layernorm_backward_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def layernorm_backward_kernel(
    dy_ptr,  # gradient of the output, n_rows x n_cols, rows stride_dyr apart
    x_ptr,  # the forward's input, n_rows x n_cols, rows stride_xr apart
    mean_ptr,  # n_rows float32: each row's mean, saved by the forward
    rstd_ptr,  # n_rows float32: each row's 1 / sqrt(var + eps), saved by the forward
    w_ptr,  # weight, n_cols
    dx_ptr,  # output: n_rows x n_cols, contiguous
    partial_dw_ptr,  # output of this stage: n_groups x n_cols float32, a row per program
    partial_db_ptr,  # the same for db
    n_rows,  # rows
    n_cols,  # columns per row
    stride_dyr,  # elements between the starts of two rows of dy
    stride_xr,  # elements between the starts of two rows of x
    rows_per_group,  # rows per program (the last program may have fewer)
    BLOCK_SIZE: tl.constexpr,  # a power of two: the row's first columns (all of them if no tail)
    TAIL_SIZE: tl.constexpr,  # 0, or a power of two holding columns BLOCK_SIZE .. n_cols - 1
):
    ### BEGIN SOLUTION
    group = tl.program_id(0)
    # The row in registers as a power-of-two head block and, when TAIL_SIZE > 0, a smaller
    # power-of-two tail block right after it (5120 columns: 4096 + 1024, no lane idle, where
    # one block of 8192 leaves 3/8 of its lanes idle). Every step below is done on both.
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols  # the head is wider than the row when there is no tail
    # Past the row, w and dy load as 0: g = dy * w is 0 there, and so is every sum below.
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    db = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    if TAIL_SIZE > 0:  # a compile-time branch: no code at all without a tail
        t_cols = BLOCK_SIZE + tl.arange(0, TAIL_SIZE)
        t_mask = t_cols < n_cols  # the tail is wider than what is left of the row
        w_t = tl.load(w_ptr + t_cols, mask=t_mask, other=0.0).to(tl.float32)
        dw_t = tl.zeros([TAIL_SIZE], dtype=tl.float32)
        db_t = tl.zeros([TAIL_SIZE], dtype=tl.float32)
    first = group.to(tl.int64) * rows_per_group  # 64-bit: row * stride can pass 2^31
    last = tl.minimum(first + rows_per_group, n_rows)
    # The next row, loaded an iteration ahead (masked off where the group has no rows): its x
    # and dy, and its mean and rstd too, so that no load of this row is waited on in the loop.
    # x and dy are read once: evict_first tells the L2 not to keep them.
    ok = first < last
    x_next = tl.load(x_ptr + first * stride_xr + cols, mask=mask & ok, other=0.0,
                     eviction_policy="evict_first")
    dy_next = tl.load(dy_ptr + first * stride_dyr + cols, mask=mask & ok, other=0.0,
                      eviction_policy="evict_first")
    mean_next = tl.load(mean_ptr + first, mask=ok, other=0.0)
    rstd_next = tl.load(rstd_ptr + first, mask=ok, other=0.0)
    if TAIL_SIZE > 0:
        x_next_t = tl.load(x_ptr + first * stride_xr + t_cols, mask=t_mask & ok, other=0.0,
                           eviction_policy="evict_first")
        dy_next_t = tl.load(dy_ptr + first * stride_dyr + t_cols, mask=t_mask & ok, other=0.0,
                            eviction_policy="evict_first")
    for row in range(first, last):
        x = x_next.to(tl.float32)
        dy = dy_next.to(tl.float32)
        mean = mean_next
        rstd = rstd_next
        ahead = row + 1 < last  # the group's last row has no next one
        x_next = tl.load(x_ptr + (row + 1) * stride_xr + cols, mask=mask & ahead, other=0.0,
                         eviction_policy="evict_first")
        dy_next = tl.load(dy_ptr + (row + 1) * stride_dyr + cols, mask=mask & ahead, other=0.0,
                          eviction_policy="evict_first")
        mean_next = tl.load(mean_ptr + row + 1, mask=ahead, other=0.0)
        rstd_next = tl.load(rstd_ptr + row + 1, mask=ahead, other=0.0)
        if TAIL_SIZE > 0:
            x_t = x_next_t.to(tl.float32)
            dy_t = dy_next_t.to(tl.float32)
            x_next_t = tl.load(x_ptr + (row + 1) * stride_xr + t_cols, mask=t_mask & ahead,
                               other=0.0, eviction_policy="evict_first")
            dy_next_t = tl.load(dy_ptr + (row + 1) * stride_dyr + t_cols, mask=t_mask & ahead,
                                other=0.0, eviction_policy="evict_first")
        xhat = (x - mean) * rstd
        g = dy * w
        # The row's two sums: the head's, plus the tail's where there is one.
        sum_g = tl.sum(g, axis=0)
        sum_gx = tl.sum(g * xhat, axis=0)
        if TAIL_SIZE > 0:
            xhat_t = (x_t - mean) * rstd
            g_t = dy_t * w_t
            sum_g += tl.sum(g_t, axis=0)
            sum_gx += tl.sum(g_t * xhat_t, axis=0)
        mean_g = sum_g / n_cols
        mean_gx = sum_gx / n_cols
        dx = (g - mean_g - xhat * mean_gx) * rstd
        tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        dw += dy * xhat
        db += dy
        if TAIL_SIZE > 0:
            dx_t = (g_t - mean_g - xhat_t * mean_gx) * rstd
            tl.store(dx_ptr + row * n_cols + t_cols, dx_t.to(dx_ptr.dtype.element_ty),
                     mask=t_mask)
            dw_t += dy_t * xhat_t
            db_t += dy_t
    # This program's row of the partial buffers (group * n_cols is far below 2^31).
    tl.store(partial_dw_ptr + group * n_cols + cols, dw, mask=mask)
    tl.store(partial_db_ptr + group * n_cols + cols, db, mask=mask)
    if TAIL_SIZE > 0:
        tl.store(partial_dw_ptr + group * n_cols + t_cols, dw_t, mask=t_mask)
        tl.store(partial_db_ptr + group * n_cols + t_cols, db_t, mask=t_mask)
    ### END SOLUTION


@triton.jit
def column_sum_kernel(
    partial_dw_ptr,  # n_groups x n_cols float32, contiguous
    partial_db_ptr,  # the same for db
    dw_ptr,  # output: n_cols float32, the sum of partial_dw's rows
    db_ptr,  # output: n_cols float32, the sum of partial_db's rows
    n_groups,  # rows of the partial buffers
    n_cols,  # columns
    BLOCK_G: tl.constexpr,  # partial rows per step
    BLOCK_N: tl.constexpr,  # columns per program
):
    ### BEGIN SOLUTION
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the last program runs past the last column
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    for g0 in range(0, n_groups, BLOCK_G):
        groups = g0 + tl.arange(0, BLOCK_G)
        mask = (groups < n_groups)[:, None] & col_mask[None, :]  # the last step runs past
        offs = groups[:, None] * n_cols + cols[None, :]
        dw += tl.sum(tl.load(partial_dw_ptr + offs, mask=mask, other=0.0), axis=0)
        db += tl.sum(tl.load(partial_db_ptr + offs, mask=mask, other=0.0), axis=0)
    tl.store(dw_ptr + cols, dw, mask=col_mask)
    tl.store(db_ptr + cols, db, mask=col_mask)
    ### END SOLUTION


def layernorm_backward_triton(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                              rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                              dw: torch.Tensor, db: torch.Tensor) -> None:
    """dx, dw, db of layer_norm: stage 1 a program per group of rows, stage 2 column sums."""
    ### BEGIN SOLUTION
    n_rows, n_cols = x.shape
    assert dy.shape == x.shape and x.stride(1) == 1 and dy.stride(1) == 1, \
        f"dy {tuple(dy.shape)} and x {tuple(x.shape)}: rows of contiguous columns"
    assert mean.shape == rstd.shape == (n_rows,) and weight.shape == (n_cols,), \
        f"mean {tuple(mean.shape)}, rstd {tuple(rstd.shape)}, weight {tuple(weight.shape)}"
    # Two programs per SM, each over its share of the rows (16384 rows on an H200: 62):
    # one wave with no tail, and partial buffers of 264 rows. (32 rows a program: 512
    # programs, 0.71-0.99x the reference there; this: 0.81-1.08x.)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    ROWS_PER_GROUP = triton.cdiv(n_rows, 2 * sms)
    n_groups = triton.cdiv(n_rows, ROWS_PER_GROUP)
    # Every element of both is written by stage 1: no need to zero them.
    partial_dw = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    partial_db = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    # The row as one power-of-two block, or as a power-of-two head (half that block) and a
    # power-of-two tail (at least 16 wide) where the two hold it in fewer lanes: 5120 columns
    # in 4096 + 1024 rather than 8192, 1536 in 1024 + 512; 4096 stays one block.
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    TAIL_SIZE = 0
    if BLOCK_SIZE != n_cols:
        tail = max(16, triton.next_power_of_2(n_cols - BLOCK_SIZE // 2))
        if BLOCK_SIZE // 2 + tail < BLOCK_SIZE:
            BLOCK_SIZE, TAIL_SIZE = BLOCK_SIZE // 2, tail
    # About 32 row values a thread, from the lanes the row takes (a power of two of warps):
    # bfloat16 rounds down (5120 columns: 4 warps, 40 values a thread, a few of them spilled,
    # but two programs fit an SM, two rows in flight), float32 rounds up (8 warps, 20 values
    # a thread: 40 float32 values each of x, dy, the next x and dy, w, dw and db would spill
    # far more). 4096 columns: 4 warps in both, as one block.
    lanes = BLOCK_SIZE + TAIL_SIZE
    if x.element_size() == 2:
        warps = max(lanes // 1024, 1)
        warps = 1 << (warps.bit_length() - 1)  # rounded down to a power of two
    else:
        warps = triton.next_power_of_2(triton.cdiv(lanes, 1024))
    num_warps = min(max(warps, 4), 16)
    layernorm_backward_kernel[(n_groups,)](
        dy, x, mean, rstd, weight, dx, partial_dw, partial_db, n_rows, n_cols, dy.stride(0),
        x.stride(0), ROWS_PER_GROUP, BLOCK_SIZE=BLOCK_SIZE, TAIL_SIZE=TAIL_SIZE,
        num_warps=num_warps)
    BLOCK_N = 64
    column_sum_kernel[(triton.cdiv(n_cols, BLOCK_N),)](
        partial_dw, partial_db, dw, db, n_groups, n_cols, BLOCK_G=32, BLOCK_N=BLOCK_N)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — one row of stage 1</summary>
#
# Before the loop, load row `first` of `x` and `dy` into `x_next` and `dy_next`. Inside the
# loop over the group's rows: take `x` and `dy` from them (`.to(tl.float32)`), load row
# `row + 1` into them (masked with `row + 1 < last` too: the last row has no next one), and
# load the row's `mean` and `rstd` (two scalars: `tl.load(mean_ptr + row)`); `xhat = (x - mean) *
# rstd`, `g = dy * w` (with `w` loaded once, before the loop); two `tl.sum`s divided by
# `n_cols`; `dx = (g - mean_g - xhat * mean_gx) * rstd`, stored with the row's mask. The
# masked lanes of `xhat` are not 0 (`-mean * rstd`), but `dy` and `w` are, so they add 0
# everywhere. (Faster: load the next row's `mean` and `rstd` ahead too, with its `x` and `dy`.)
# </details>
#
# <details><summary>Hint 2 — the group's accumulators</summary>
#
# Before the loop, `dw = tl.zeros([BLOCK_SIZE], dtype=tl.float32)` and the same for `db`; in
# the loop, `dw += dy * xhat` and `db += dy`; after it, store both as row `group` of the
# partial buffers (`partial_dw_ptr + group * n_cols + cols`, masked). The loop is
# `for row in range(first, last)` with `first = group.to(tl.int64) * rows_per_group` and
# `last = tl.minimum(first + rows_per_group, n_rows)`: the `int64` start makes `row` and every
# `row * stride` 64-bit.
# </details>
#
# <details><summary>Hint 3 — stage 2 and the launcher</summary>
#
# `column_sum_kernel`: offsets `groups[:, None] * n_cols + cols[None, :]` make a
# `[BLOCK_G, BLOCK_N]` tile of a partial buffer; `tl.sum(tile, axis=0)` adds its rows. Loop
# `g0` over `range(0, n_groups, BLOCK_G)` and mask both axes. The launcher allocates
# `partial_dw` and `partial_db` with `torch.empty((n_groups, n_cols), dtype=torch.float32,
# device=x.device)`, launches stage 1 on `(n_groups,)` and stage 2 on `(cdiv(n_cols,
# BLOCK_N),)`. The tail: with `B = triton.next_power_of_2(n_cols)`, a tail of
# `max(16, triton.next_power_of_2(n_cols - B // 2))` after a head of `B // 2` holds the row
# whenever `B // 2 + tail < B` (5120: 4096 + 1024); otherwise one block of `B`, tail 0.
# </details>
#
# ### CUDA C
#
# Stage 1, `layernorm_backward<T, VEC>`: one block per group of rows, a row at a time. As in
# exercise 1, thread `t` owns chunks `t, t + blockDim.x, …` of a row; it owns the **same**
# columns in every row of the group, so its `dw` and `db` accumulators (`float dw[CHUNKS][PACK]`)
# are its own: no shared memory, no atomics. Each thread keeps `PER_THREAD = 16` columns
# (`CHUNKS = PER_THREAD / PACK` chunks: 4 of float32, 2 of bfloat16), blocks have up to 512
# threads, and rows go up to `16 × 512 = 8192` columns (Llama 3 70B's hidden size). Per row:
# its two sums, one block reduction, its `dx`. After the last row, each thread writes its
# accumulators to row `blockIdx.x` of the partial buffers.
#
# A block spends most of a row waiting, for its loads and then at the barriers of its
# reduction, and the memory idles unless other loads are in flight meanwhile. What keeps them
# in flight:
#
# **Both sums in one reduction.** `mean(g)` and `mean(g * xhat)` do not depend on each other,
# so they need not wait for each other: `block_sum2(a, b)` is exercise 1's `block_sum` for two
# values at once (two shuffles per step, two slots per warp in shared memory). One pair of
# `__syncthreads()` per row, where two `block_sum`s take two pairs.
#
# **Load the next row before reducing this one.** Each thread keeps the next row's chunks of
# `x` and `dy` as read (`uint4 x_next[CHUNKS]`, `dy_next[CHUNKS]`) and the next row's `mean`
# and `rstd` (`mu_next`, `rs_next`). It issues their loads at the top of each iteration, as
# soon as it has taken the current row from them; they arrive while this row is reduced and
# written (a **software pipeline**). `mean` and `rstd` are part of it: loaded when their row's
# turn comes, they would make every row start with a wait.
#
# **Two blocks per SM in bfloat16.** While a block waits at its barriers, only the other blocks
# on its SM keep loads in flight; with one block per SM, none do. A bfloat16 row has half the
# bytes of a float32 one, for the same float32 arithmetic and nearly the same registers, so a
# block of it keeps half the bytes in flight: bfloat16 is the dtype that starves. Registers
# decide how many blocks fit: an SM has 65536, and `__launch_bounds__(N)` makes the compiler
# keep each thread within `65536 / N` of them (rounded down to a multiple of 8). The float32
# kernels are bounded for 512 threads (128 registers); the aligned bfloat16 kernel for 640:
# 96 registers, so that two blocks of 320 threads (5120 columns) share an SM. To see what the
# compiler made of it, copy the source to a file and run `nvcc -arch=sm_90 --resource-usage
# -c kernel.cu`: registers per thread, and the bytes of spill stores and loads, which must be
# 0 (a spilled register lives in local memory, behind the cache).
#
# **Recompute instead of keeping.** 96 registers hold a bfloat16 thread's `dw` and `db` (32),
# this row's and the next row's chunks as read (16 + 16), the weight's chunks and the
# addresses; they do not also hold this row's `xhat` and `g` through the reduction, 32 floats
# more. `dx` needs them after it: compute them again from the chunks, a subtraction and two
# multiplications per element, which a memory-bound kernel has time for. The compiler sees the
# same expressions twice and would compute them once and keep them, and spill; the given
# `forget_widened(chunk)`, called on each chunk before `block_sum2`, makes it compute them again.
#
# **One wave of groups.** Make as many groups as the GPU runs blocks at once: the SMs
# (`torch.cuda.get_device_properties(x.device).multi_processor_count`) times the blocks an SM
# holds, its 65536 registers over `threads ×` the kernel's registers (at most 2048 threads an
# SM). Fewer leave SMs idle; more make a last, partial wave, and each group adds a partial row
# to write and read back.
#
# `weight` is the same in every row: bfloat16 holds its chunks through the group (8 of its 96
# registers), float32 re-reads them every row from the cache (16 more would not fit its 128).
# A kernel gets the registers of its hungriest path, and the element-wise
# loads of unaligned rows need more than 16-byte ones: so whether rows are aligned is a
# template parameter, `VEC`, not an argument, and the given kernels come in pairs,
# `layernorm_backward_kernel_f32` for aligned rows and `layernorm_backward_kernel_f32_unaligned`
# for the others (bfloat16 alike). The unaligned kernels have no registers left for the next
# row: with `VEC` false, load each row (and its `mean` and `rstd`) when its turn comes.
#
# Stage 2, `column_sum_kernel`, runs on blocks of `32 × SUM_ROWS` threads: `threadIdx.x` picks
# a column among 32 neighbours (a warp reads 128 contiguous bytes of a partial row), and the
# `SUM_ROWS` threads of a column split the partial rows among them (`g = threadIdx.y`,
# `g += SUM_ROWS`); a `__shared__` array and a `__syncthreads()` bring their `SUM_ROWS`
# sums together.

# %% nbgrader={"grade": false, "grade_id": "layernorm_backward_cu", "locked": false, "schema_version": 3, "solution": true}
LAYERNORM_BACKWARD_CU = r"""
#include <cuda_bf16.h>

#define PER_THREAD 16  // columns per thread: rows up to 16 x 512 (see the kernels below)
#define SUM_ROWS 8     // column_sum_kernel's blockDim.y: threads sharing a column

// Given: as in exercise 1.
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

template <class T>
__device__ __forceinline__ uint4 load_chunk(const T *p, int c, int n, bool vec)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    uint4 chunk = make_uint4(0u, 0u, 0u, 0u);  // float and bfloat16 zeros are zero bits
    if (vec) {
        if (c < n) chunk = *reinterpret_cast<const uint4 *>(p + c);
    } else {
        T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) e[j] = p[c + j];
        }
    }
    return chunk;
}

template <class T> __device__ __forceinline__ float chunk_at(const uint4 &chunk, int j)
{
    return to_float(reinterpret_cast<const T *>(&chunk)[j]);
}

template <class T>
__device__ __forceinline__ void store_chunk(T *p, int c, int n, bool vec, const float *v)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    if (vec) {
        if (c < n) {
            uint4 chunk;
            T *e = reinterpret_cast<T *>(&chunk);
#pragma unroll
            for (int j = 0; j < PACK; ++j) e[j] = from_float<T>(v[j]);
            *reinterpret_cast<uint4 *>(p + c) = chunk;
        }
    } else {
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n) p[c + j] = from_float<T>(v[j]);
        }
    }
}

// Given: a barrier for the compiler only, no instruction. The compiler must assume that the
// chunk changed here, so what it computed from the chunk before (its widened elements, and
// xhat or g made from them) it computes again where it is used after, instead of keeping
// those floats in registers across. An empty asm statement: g++ (the CPU backend) takes it too.
__device__ __forceinline__ void forget_widened(uint4 &chunk)
{
    asm volatile("" : "+r"(chunk.x), "+r"(chunk.y), "+r"(chunk.z), "+r"(chunk.w));
}

// The sums of a and of b over the block's threads, both returned to every thread: exercise 1's
// block_sum for two values at once, so that one pair of barriers serves a row's two sums.
__device__ __forceinline__ void block_sum2(float &a, float &b)
{
    /// BEGIN SOLUTION
    __shared__ float per_warp[2][32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {  // the two shuffles are independent
        a += __shfl_xor_sync(0xffffffffu, a, offset);
        b += __shfl_xor_sync(0xffffffffu, b, offset);
    }
    if (lane == 0) {
        per_warp[0][warp] = a;
        per_warp[1][warp] = b;
    }
    __syncthreads();  // every warp's sums are in shared memory before anyone reads them
    const bool live = lane < blockDim.x / 32;  // a slot per warp of the block
    a = live ? per_warp[0][lane] : 0.0f;
    b = live ? per_warp[1][lane] : 0.0f;
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        a += __shfl_xor_sync(0xffffffffu, a, offset);
        b += __shfl_xor_sync(0xffffffffu, b, offset);
    }
    __syncthreads();  // everyone has read per_warp before the next row writes it
    /// END SOLUTION
}

// Stage 1: block blockIdx.x takes rows blockIdx.x * rows_per_group ... (at most n_rows - 1),
// writes their dx, and its partial sums of dw and db as row blockIdx.x of the partial buffers.
// VEC: every row of dy, x, dx and w starts 16-byte aligned (pass it to load_chunk and
// store_chunk as their vec).
template <class T, bool VEC>
__device__ __forceinline__ void layernorm_backward(
    const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean,
    const float *__restrict__ rstd, const T *__restrict__ w, T *__restrict__ dx,
    float *__restrict__ partial_dw, float *__restrict__ partial_db, int n_rows, int n_cols,
    int stride_dyr, int stride_xr, int rows_per_group)
{
    /// BEGIN SOLUTION
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    constexpr int CHUNKS = PER_THREAD / PACK;
    float dw[CHUNKS][PACK], db[CHUNKS][PACK];  // this thread's columns, summed over the group
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
#pragma unroll
        for (int j = 0; j < PACK; ++j) dw[k][j] = db[k][j] = 0.0f;
    }
    const int first = blockIdx.x * rows_per_group;
    const int last = min(first + rows_per_group, n_rows);
    // The next row, before its turn: its chunks of x and dy as read, its mean and rstd.
    uint4 x_next[CHUNKS], dy_next[CHUNKS];
    float mu_next = 0.0f, rs_next = 0.0f;
    auto fetch = [&](int row) {
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int c = (threadIdx.x + k * blockDim.x) * PACK;
            x_next[k] = load_chunk(x + (size_t)row * stride_xr, c, n_cols, VEC);  // 64-bit
            dy_next[k] = load_chunk(dy + (size_t)row * stride_dyr, c, n_cols, VEC);
        }
        mu_next = mean[row];  // one address for the whole warp: a single load
        rs_next = rstd[row];
    };
    if (VEC && first < last) fetch(first);
    // Weight as read, the same columns in every row. bfloat16 holds it through the group (8 of
    // its 96 registers); float32 re-reads it every row from cache (16 more pass its 128).
    constexpr bool HOLD_W = sizeof(T) == 2;
    uint4 wr[CHUNKS];
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k)
        if (HOLD_W) wr[k] = load_chunk(w, (threadIdx.x + k * blockDim.x) * PACK, n_cols, VEC);
    for (int row = first; row < last; ++row) {
        if (!VEC) fetch(row);  // element-wise loads leave no registers for a second row
        uint4 xr[CHUNKS], dyr[CHUNKS];
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            xr[k] = x_next[k];
            dyr[k] = dy_next[k];
        }
        const float mu = mu_next, rs = rs_next;
        if (VEC && row + 1 < last) fetch(row + 1);  // in flight while this row is reduced
        float sum_g = 0.0f, sum_gx = 0.0f;
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int c = (threadIdx.x + k * blockDim.x) * PACK;
            if (!HOLD_W) wr[k] = load_chunk(w, c, n_cols, VEC);  // every row: from cache
#pragma unroll
            for (int j = 0; j < PACK; ++j) {
                const float d = chunk_at<T>(dyr[k], j);  // past the row: 0, as every term
                const float xhat = (chunk_at<T>(xr[k], j) - mu) * rs;
                const float g = d * chunk_at<T>(wr[k], j);
                dw[k][j] += d * xhat;
                db[k][j] += d;
                sum_g += g;
                sum_gx += g * xhat;
            }
        }
        // Through the barriers, keep the chunks as read (4 registers each), not xhat and g
        // (2 x PACK floats a chunk: 16 in bfloat16): dx computes them again.
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            forget_widened(xr[k]);
            forget_widened(dyr[k]);
            forget_widened(wr[k]);
        }
        block_sum2(sum_g, sum_gx);
        const float mean_g = sum_g / n_cols, mean_gx = sum_gx / n_cols;
        T *dx_row = dx + (size_t)row * n_cols;
#pragma unroll
        for (int k = 0; k < CHUNKS; ++k) {
            const int c = (threadIdx.x + k * blockDim.x) * PACK;
            if (c < n_cols) {  // chunks wholly past the row have nothing to write
                float d[PACK];
#pragma unroll
                for (int j = 0; j < PACK; ++j) {
                    const float xhat = (chunk_at<T>(xr[k], j) - mu) * rs;
                    const float g = chunk_at<T>(dyr[k], j) * chunk_at<T>(wr[k], j);
                    d[j] = (g - mean_g - xhat * mean_gx) * rs;
                }
                store_chunk(dx_row, c, n_cols, VEC, d);
            }
        }
    }
    float *pdw = partial_dw + (size_t)blockIdx.x * n_cols;  // this block's partial rows
    float *pdb = partial_db + (size_t)blockIdx.x * n_cols;
#pragma unroll
    for (int k = 0; k < CHUNKS; ++k) {
        const int c = (threadIdx.x + k * blockDim.x) * PACK;
#pragma unroll
        for (int j = 0; j < PACK; ++j) {
            if (c + j < n_cols) {  // the partial rows are n_cols long
                pdw[c + j] = dw[k][j];
                pdb[c + j] = db[k][j];
            }
        }
    }
    /// END SOLUTION
}

// Given: the kernels, one per dtype for aligned rows (16-byte loads and stores) and one per
// dtype for the others (the launcher chooses), all with the arguments
//   dy, x          gradient of the output and the forward's input, rows stride_dyr and
//                  stride_xr elements apart
//   mean, rstd     n_rows float32 each: saved by the forward
//   w              weight, n_cols
//   dx             output, n_rows x n_cols, contiguous
//   partial_dw, partial_db   output of this stage: n_groups x n_cols float32 each
//   n_rows, n_cols, stride_dyr, stride_xr, rows_per_group (the last block may have fewer).
// VEC is a template parameter, not a kernel argument: a kernel gets the registers of its
// hungriest path, and the element-wise loads of unaligned rows need more than 16-byte ones.
// __launch_bounds__(MAX_THREADS): blocks of at most MAX_THREADS threads, so the compiler keeps
// each thread within 65536 / MAX_THREADS registers (an SM's, rounded down to a multiple of 8).
// 512: 128 registers, rows up to 8192 columns. The aligned bfloat16 kernel is bounded for 640
// threads: 96 registers, so that two blocks of 320 threads (5120 columns) share an SM, and one
// of 512 still launches. ptxas (nvcc 13, sm_90) for the solution: float32 128 registers,
// bfloat16 96, none spilled.
#define LAYERNORM_BACKWARD_KERNEL(NAME, T, VEC, MAX_THREADS)                                    \
    extern "C" __global__ void __launch_bounds__(MAX_THREADS) NAME(                            \
        const T *__restrict__ dy, const T *__restrict__ x, const float *__restrict__ mean,     \
        const float *__restrict__ rstd, const T *__restrict__ w, T *__restrict__ dx,           \
        float *__restrict__ partial_dw, float *__restrict__ partial_db, int n_rows,            \
        int n_cols, int stride_dyr, int stride_xr, int rows_per_group)                         \
    {                                                                                          \
        layernorm_backward<T, VEC>(dy, x, mean, rstd, w, dx, partial_dw, partial_db, n_rows,   \
                                   n_cols, stride_dyr, stride_xr, rows_per_group);             \
    }
LAYERNORM_BACKWARD_KERNEL(layernorm_backward_kernel_f32, float, true, 512)
LAYERNORM_BACKWARD_KERNEL(layernorm_backward_kernel_bf16, __nv_bfloat16, true, 640)
LAYERNORM_BACKWARD_KERNEL(layernorm_backward_kernel_f32_unaligned, float, false, 512)
LAYERNORM_BACKWARD_KERNEL(layernorm_backward_kernel_bf16_unaligned, __nv_bfloat16, false, 512)

// Stage 2: dw[c] and db[c] = the sums of column c of the partial buffers. Blocks of
// 32 x SUM_ROWS threads: threadIdx.x a column of the block's 32, threadIdx.y a share of the rows.
extern "C" __global__ void column_sum_kernel(
    const float *__restrict__ partial_dw,  // n_groups x n_cols, contiguous
    const float *__restrict__ partial_db,  // the same for db
    float *__restrict__ dw,                // output: n_cols
    float *__restrict__ db,                // output: n_cols
    int n_groups,                          // rows of the partial buffers
    int n_cols)                            // columns
{
    /// BEGIN SOLUTION
    __shared__ float part[2][SUM_ROWS][32];
    const int c = blockIdx.x * 32 + threadIdx.x;
    float sw = 0.0f, sb = 0.0f;
    if (c < n_cols) {  // the last block runs past the last column
        for (int g = threadIdx.y; g < n_groups; g += SUM_ROWS) {
            sw += partial_dw[(size_t)g * n_cols + c];
            sb += partial_db[(size_t)g * n_cols + c];
        }
    }
    part[0][threadIdx.y][threadIdx.x] = sw;
    part[1][threadIdx.y][threadIdx.x] = sb;
    __syncthreads();  // every share is in shared memory before row 0 adds them
    if (threadIdx.y == 0 && c < n_cols) {
        for (int y = 1; y < SUM_ROWS; ++y) {
            sw += part[0][y][threadIdx.x];
            sb += part[1][y][threadIdx.x];
        }
        dw[c] = sw;
        db[c] = sb;
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "layernorm_backward_cuda", "locked": false, "schema_version": 3, "solution": true}
layernorm_backward_module_cu = SourceModule(LAYERNORM_BACKWARD_CU, no_extern_c=True)
layernorm_backward_kernels_cu = {  # (dtype, aligned rows): kernel
    (dtype, aligned): layernorm_backward_module_cu.get_function(
        f"layernorm_backward_kernel_{suffix}{'' if aligned else '_unaligned'}")
    for dtype, suffix in ((torch.float32, "f32"), (torch.bfloat16, "bf16"))
    for aligned in (True, False)
}
column_sum_kernel_cu = layernorm_backward_module_cu.get_function("column_sum_kernel")


def layernorm_backward_cuda(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                            rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                            dw: torch.Tensor, db: torch.Tensor) -> None:
    """dx, dw, db of layer_norm: layernorm_backward_kernels_cu[x.dtype, aligned] on a block
    per group of rows (one wave of groups), then column_sum_kernel_cu on blocks of 32 x 8
    threads.

    Stage 1's arguments: the eight tensors as np.uintp(t.data_ptr()) (the partial buffers
    after dx), then n_rows, n_cols, dy.stride(0), x.stride(0) and rows_per_group as np.int32.
    Stage 2's: the two partial buffers, dw, db, then n_groups and n_cols.
    """
    ### BEGIN SOLUTION
    n_rows, n_cols = x.shape
    assert dy.shape == x.shape and x.stride(1) == 1 and dy.stride(1) == 1, \
        f"dy {tuple(dy.shape)} and x {tuple(x.shape)}: rows of contiguous columns"
    assert mean.shape == rstd.shape == (n_rows,) and weight.shape == (n_cols,), \
        f"mean {tuple(mean.shape)}, rstd {tuple(rstd.shape)}, weight {tuple(weight.shape)}"
    per_thread = 16  # PER_THREAD in LAYERNORM_BACKWARD_CU
    max_threads = 512  # the largest block every kernel's __launch_bounds__ allows
    assert n_cols <= max_threads * per_thread, \
        f"rows up to {max_threads * per_thread} columns, got {n_cols}"
    threads = triton.cdiv(triton.cdiv(n_cols, per_thread), 32) * 32  # whole warps, as forward
    pack = 16 // x.element_size()
    aligned = (all(t.data_ptr() % 16 == 0 for t in (dy, x, weight, dx))
               and dy.stride(0) % pack == 0 and x.stride(0) % pack == 0 and n_cols % pack == 0)
    # One wave of groups: as many as the GPU runs blocks at once. An SM's 65536 registers
    # hold 65536 // (threads x the kernel's registers) blocks (its __launch_bounds__: 96 for
    # aligned bfloat16 rows, 128 for the others), and an SM runs at most 2048 threads. Off a
    # GPU any count is right; 4 SMs give the tests several groups.
    regs = 96 if x.dtype == torch.bfloat16 and aligned else 128
    blocks_per_sm = min(65536 // (threads * regs), 2048 // threads)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    rows_per_group = triton.cdiv(n_rows, sms * blocks_per_sm)
    n_groups = triton.cdiv(n_rows, rows_per_group)
    partial_dw = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    partial_db = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    layernorm_backward_kernels_cu[x.dtype, aligned](
        np.uintp(dy.data_ptr()),
        np.uintp(x.data_ptr()),
        np.uintp(mean.data_ptr()),
        np.uintp(rstd.data_ptr()),
        np.uintp(weight.data_ptr()),
        np.uintp(dx.data_ptr()),
        np.uintp(partial_dw.data_ptr()),
        np.uintp(partial_db.data_ptr()),
        np.int32(n_rows),
        np.int32(n_cols),
        np.int32(dy.stride(0)),
        np.int32(x.stride(0)),
        np.int32(rows_per_group),
        block=(threads, 1, 1),
        grid=(n_groups, 1),
    )
    sum_rows = 8  # SUM_ROWS in LAYERNORM_BACKWARD_CU
    column_sum_kernel_cu(
        np.uintp(partial_dw.data_ptr()),
        np.uintp(partial_db.data_ptr()),
        np.uintp(dw.data_ptr()),
        np.uintp(db.data_ptr()),
        np.int32(n_groups),
        np.int32(n_cols),
        block=(32, sum_rows, 1),
        grid=(triton.cdiv(n_cols, 32), 1),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — before the loop over rows, and block_sum2</summary>
#
# Two register arrays of `[CHUNKS][PACK]` floats, `dw` and `db`, zeroed: they live through the
# whole group. The rows: `first = blockIdx.x * rows_per_group`,
# `last = min(first + rows_per_group, n_rows)`, and `for (int row = first; row < last; ++row)`.
# `block_sum2` is `block_sum` with every step done for `a` and for `b`: two shuffles per
# offset, `__shared__ float per_warp[2][32]` (lane 0 of each warp writes both of its sums),
# one `__syncthreads()` before the reads and one after.
# </details>
#
# <details><summary>Hint 2 — one row</summary>
#
# `uint4 x_next[CHUNKS], dy_next[CHUNKS]` and `float mu_next, rs_next`: before the loop, load
# row `first` into them (`load_chunk`, `mean[first]`, `rstd[first]`). At the top of each
# iteration copy them into the current row's `xr`, `dyr`, `mu`, `rs`, then, if `row + 1 <
# last`, load row `row + 1` into them: nothing uses those loads before the next iteration. For
# each chunk `k` at column `c` of the current row: load the chunk of `w` into `wr[k]`, compute
# `xhat = (x - mu) * rs` from `chunk_at<T>(xr[k], j)`, add `dy * xhat` to `dw[k][j]` and `dy`
# to `db[k][j]`, then `g = dy * w`, and add `g` and `g * xhat` to two per-thread sums. Then
# `forget_widened(xr[k])`, `forget_widened(dyr[k])` and `forget_widened(wr[k])` for every `k`,
# and `block_sum2(sum_g, sum_gx)`; divided by `n_cols` they are `mean(g)` and `mean(g * xhat)`.
# A last loop over the chunks with `c < n_cols` computes `xhat`, `g` and `dx` again from
# `xr`, `dyr` and `wr`, and `store_chunk`s `dx` into its row (`dx + (size_t)row * n_cols`).
# </details>
#
# <details><summary>Hint 3 — the partial rows, stage 2 and the launcher</summary>
#
# After the loop: `partial_dw[(size_t)blockIdx.x * n_cols + c + j] = dw[k][j]` for every
# `c + j < n_cols`, the same for `db`. `column_sum_kernel`: `c = blockIdx.x * 32 +
# threadIdx.x`; add rows `g = threadIdx.y, threadIdx.y + SUM_ROWS, …` of column `c`; put the
# two sums in `__shared__ float part[2][SUM_ROWS][32]`, `__syncthreads()`, and let the threads
# with `threadIdx.y == 0` add the `SUM_ROWS` shares and write `dw[c]`, `db[c]`. The launcher:
# stage 1 on whole warps of 16 columns each; `blocks_per_sm = min(65536 // (threads * regs),
# 2048 // threads)` with `regs` 96 for aligned bfloat16 rows and 128 otherwise,
# `rows_per_group = cdiv(n_rows, sms * blocks_per_sm)` and `n_groups = cdiv(n_rows,
# rows_per_group)`, `grid=(n_groups, 1)`; the partial buffers `torch.empty((n_groups, n_cols),
# dtype=torch.float32, device=x.device)`; stage 2 on `block=(32, 8, 1)`,
# `grid=(cdiv(n_cols, 32), 1)`.
# </details>

# %% [markdown]
# ### Check your work
#
# One element, rows of 5000 columns, and 65 and 100 rows (several groups: a kernel that skips
# stage 2, or adds only one group's partials, is wrong from the second group on). `dy`'s rows
# are padded in one case, `x`'s in another: each has its own stride.

# %% nbgrader={"grade": true, "grade_id": "test_layernorm_backward_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", layernorm_backward_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", layernorm_backward_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_layernorm_backward_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", layernorm_backward_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", layernorm_backward_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# The backward reads `x` and `dy` and writes `dx`: three passes' worth of traffic over the
# matrix, plus the partial buffers. On a GPU, `bench` times your launchers against torch's own
# backward kernel for layer norm (`torch.ops.aten.native_layer_norm_backward`, what autograd
# runs for `F.layer_norm`). The number of groups is the trade: more groups, more programs to
# keep the GPU busy, but larger partial buffers to write and read back. On an H200
# (2026-12-03, one run; GB/s, 16384 rows):
#
# | columns, dtype | torch's backward | reference, Triton · CUDA | this lab's solution, Triton · CUDA |
# |---|---|---|---|
# | 4096, float32 | 1817 | 3677 · 3705 | 3437 · 3737 |
# | 5120, float32 | 1756 | 3708 · 3773 | 3520 · 3905 |
# | 4096, bfloat16 | 1752 | 3395 · 3385 | 3274 · 3107 |
# | 5120, bfloat16 | 1489 | 3487 · 3536 | 3417 · 3212 |
#
# (The day before, the CUDA solution without `block_sum2`, `forget_widened` and the second
# block per SM moved 3069 and 2551 GB/s in bfloat16; the same solution re-reading `weight`
# every row instead of holding it, 2469 and 2653.)
#
# (In an earlier run, the Triton solution without its tail block and with `mean`, `rstd`
# loaded in the loop: 2809 GB/s at 5120 columns in bfloat16, 3237 in float32.)

# %% nbgrader={"grade": true, "grade_id": "perf_layernorm_backward_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", layernorm_backward_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", layernorm_backward_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_layernorm_backward_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", layernorm_backward_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", layernorm_backward_cuda, graded=True)
### END HIDDEN TESTS
