# %% [markdown]
# # Lab 15 — Simple inference: a linear layer and a gated MLP, activations fused, in Triton and CUDA C
#
# The MLP of a transformer block is two or three linear layers with an activation between
# them. In GPT-2's form the first, in inference, is
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
# Two exercises, each a GEMM (two in the second) with element-wise work fused into it:
#
# 1. `linear_gelu`: that layer, `y = gelu_tanh(x · wᵀ + b)`, the bias and GELU in the epilogue;
# 2. `mlp`: Llama's whole gated MLP block, `y = (silu(x · W_gateᵀ) * (x · W_upᵀ)) · W_downᵀ`:
#    one kernel computes the gate and the up products side by side (two accumulators, or one
#    twice as wide, that share the loads of `x`) and applies SiLU and the product in its epilogue, so that only `h`, their
#    result, reaches memory; a second kernel multiplies `h` by `W_downᵀ`.
#
# **Exercise 1.** `y = gelu_tanh(x · wᵀ + b)` in **bfloat16**:
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
# - two accumulators in one kernel: the gate and up GEMMs of an MLP read the same `x`, so one
#   kernel loads each block of `x` once for both, and their element-wise product never leaves
#   the registers;
# - where the saving matters: at a decode-like batch (64 tokens) the kernels are bound by
#   reading the weights; at a prefill-like batch (4096 tokens) by the multiply-adds;
# - at prefill, a **persistent** Triton GEMM that reads its tiles through **TMA tensor
#   descriptors** (lab 02's, built in the kernel): one program per SM, no address arithmetic
#   per element, the next tile's loads under this tile's epilogue; and TMA's alignment rules,
#   which decide when the launcher may use it.
#
# **What you write**, for each exercise: Triton kernels and their launcher, CUDA C kernels (in a
# source string) and their launcher.
#
# **How you are graded**: correctness on shapes you do not see (one element, thin products,
# tails on every axis, padded rows, rows not 16-byte aligned), fresh random inputs, compared
# with a float64 result; on a GPU, the time of your kernels at a decode-like and a prefill-like
# batch (64 and 4096 tokens) against reference kernels, in TFLOP/s and against eager torch
# (cuBLAS and the element-wise kernels it launches). Without a GPU, Triton runs in its
# interpreter and CUDA C on the CPU: correctness only.

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
# ## Exercise 1 — linear_gelu
#
# ### Triton
#
# Two kernels. `linear_gelu_kernel` reads its blocks with pointers and masks: it serves every
# call, decode's batches and any stride. `linear_gelu_tma_kernel` serves prefill (more than 128
# rows) where TMA's rules hold: it is below, after the first kernel's hints. The checks pass
# with the first alone; the second is what prefill's speed asks for.
#
# `linear_gelu_kernel` is lab 10's float16 kernel, with `b` of lab 14's layout and a new
# epilogue:
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
#
# <details><summary>Hint 5 — two batches, two tile shapes</summary>
#
# At 64 rows (decode) the whole of `x` is one tile row, and the time goes into reading `w`
# (32 MiB at `n = k = 4096`): what matters is that every SM reads a share of it at once. A
# 64 × 64 tile gives 64 programs for 132 SMs; 64 × 32 gives 128, with `BLOCK_SIZE_K = 256`
# and `num_stages=4` so that each keeps several K tiles of `w` in flight. At 4096 rows
# (prefill) the tensor cores are the limit: 128 × 128 × 64 tiles, `num_warps=8`,
# `num_stages=3`, this kernel's best, about 577 TFLOP/s on an H100. That is 0.84x cuBLAS +
# GELU, 0.82-0.84x the reference: just over the 0.8 bar. It stays the fallback for more rows
# with strides TMA cannot take; prefill's speed is the TMA kernel's, below. The launcher picks by
# `m` (measured on an H100 against the pointer reference of then: 1.0x at each batch, where
# one 64 × 64 × 32 tile for both ran 0.34x and 0.47x).
# </details>
#
# #### Prefill: a persistent kernel that reads through TMA
#
# **Why.** At 4096 rows (4096³) the pointer kernel's best reaches about 577 TFLOP/s on an H100:
# 0.84x cuBLAS + GELU, where the target is 1.0x. The same arithmetic in a persistent kernel
# whose tiles come through TMA tensor descriptors reaches 683-703 TFLOP/s: 1.01-1.04x (the
# reference's kernel; this notebook's solution 698, H100, 2026-12-06). Two changes make the
# difference.
#
# - **The TMA moves the tiles.** A pointer load has every thread compute the 64-bit addresses
#   and the masks of its share of the block, in registers. A descriptor load is one request to
#   the TMA, the copy engine next to each SM, which writes the whole block into shared memory
#   on its own, zeros past the edges. Fewer registers go to addresses, and the best tile grew
#   from the pointer kernel's 128 × 128 to 128 × 256 of `y` on 8 warps.
# - **Persistent programs.** One program per tile (512 tiles of 128 × 256 at 4096²) runs in
#   waves over 132 SMs; each program starts with loads that nothing overlaps and ends with an
#   epilogue while its tensor cores wait. Launch one program per SM instead, `PROGRAMS` of
#   them: program `p` takes tiles `p`, `p + PROGRAMS`, `p + 2 PROGRAMS`, … through
#   `tl.range(tl.program_id(axis=0), tiles, PROGRAMS, flatten=True)`. `flatten=True` makes the
#   tile loop and the K loop one loop for Triton's software pipeline: the next tile's first
#   loads are in flight while this tile's epilogue runs.
#
# **How.** Lab 02 showed tensor descriptors. Build one per matrix, in the kernel, before the
# tile loop: a pointer, the matrix's shape, its strides (the last one 1), and the block that
# one load or store moves.
#
#     x_desc = tl.make_tensor_descriptor(x_ptr, shape=[m, k], strides=[stride_xm, 1],
#                                        block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
#
# - `x_desc.load([row, col])` reads the block whose first element is `[row, col]`: two
#   coordinates, no offsets per element. Past the matrix's edges it reads zeros: no masks;
# - `w` is described as it is stored, `n × k`, in blocks of `BLOCK_SIZE_N × BLOCK_SIZE_K`.
#   `tl.dot(x_blk, w_blk.T, acc)` takes the transpose of the loaded block (a view: nothing is
#   copied);
# - `y_desc.store([row, col], block)` writes the block, clipped at the edges: nothing past `m`
#   or `n` is written;
# - the bias is a vector: a masked `tl.load`, as in `linear_gelu_kernel`.
#
# **TMA's rules.** The base 16-byte aligned, the last stride 1, every other stride a multiple
# of 16 bytes (8 bfloat16s). On a GPU a descriptor that breaks them is undefined behaviour;
# Triton's interpreter stops with *"stride must be 16-byte aligned"*. The graded shapes break
# them: rows of `w` padded by 5 (`k + 5` elements apart), `n = 33` (rows of `y` 66 bytes
# apart), and on a GPU 2049 × 3001 × 1537, more than 128 rows with `k = 1537`. So the launcher
# checks every matrix the kernel reads or writes, `x`, `w` and `y`: `t.data_ptr() % 16 == 0`
# and `(t.stride(0) * t.element_size()) % 16 == 0`. Only where all hold, and `m > 128`, does it
# launch `linear_gelu_tma_kernel`; otherwise `linear_gelu_kernel`, as before.
#
# A descriptor built in a kernel needs a little global scratch memory from Triton's allocator.
# The grader gives every process one; in a script of your own, `triton.set_allocator` (lab 02).
# Without a GPU the TMA kernel meets one graded shape (130 rows, hidden); on a GPU also
# 2000 × 4104 × 520 (tails on every axis, two tiles or more per program) and the prefill batch.
#
# <details><summary>Hint 6 — the tile loop</summary>
#
# `tiles_m = tl.cdiv(m, BLOCK_SIZE_M)`, `tiles_n = tl.cdiv(n, BLOCK_SIZE_N)`, then
# `for tile in tl.range(tl.program_id(axis=0), tiles_m * tiles_n, PROGRAMS, flatten=True):`.
# Inside, lab 10's grouped numbering with `tile` in place of `pid`: `GROUP_SIZE_M` tile rows per
# group, the last group possibly short (`tl.minimum`). Keep the tile's first row and column as
# element coordinates (tile index times block size): that is what `.load` and `.store` take.
# The accumulator starts at zero inside the loop, once per tile.
# </details>
#
# <details><summary>Hint 7 — three descriptors and the K loop</summary>
#
# Before the tile loop: `x` as `[m, k]`, strides `[stride_xm, 1]`, blocks `[BLOCK_SIZE_M,
# BLOCK_SIZE_K]`; `w` as `[n, k]`, strides `[stride_wn, 1]`, blocks `[BLOCK_SIZE_N,
# BLOCK_SIZE_K]`; `y` as `[m, n]`, strides `[n, 1]`, blocks `[BLOCK_SIZE_M, BLOCK_SIZE_N]`.
# In `for k0 in range(0, k, BLOCK_SIZE_K)`: the block of `x` at `[row0, k0]`, the block of `w`
# at `[col0, k0]`, and `tl.dot` with the second transposed. Without `.T`, `tl.dot` refuses the
# shapes (`BLOCK_SIZE_K` against `BLOCK_SIZE_N`).
# </details>
#
# <details><summary>Hint 8 — the epilogue and the launcher</summary>
#
# The epilogue is `linear_gelu_kernel`'s, with `offs_n = col0 + tl.arange(0, BLOCK_SIZE_N)` for
# the bias, and one `y_desc.store` at `[row0, col0]` of the bfloat16 block in place of the
# masked store. The launcher: the TMA test, then 128 × 256 × 64 tiles,
# `tiles = cdiv(m, 128) * cdiv(n, 256)`, `PROGRAMS = min(SMs, tiles)`. SMs:
# `torch.cuda.get_device_properties(x.device).multi_processor_count` (132 on an H100), or 4
# where `x.is_cuda` is false (the interpreter). Grid `(PROGRAMS,)`, `GROUP_SIZE_M=8`,
# `num_warps=8`, `num_stages=3`, then `return` before the pointer path. "stride must be
# 16-byte aligned": the TMA test missing a matrix.
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


@triton.jit
def linear_gelu_tma_kernel(
    x_ptr,  # x: m x k bfloat16, rows stride_xm elements apart; 16-byte aligned
    w_ptr,  # w: n x k bfloat16, rows stride_wn elements apart; 16-byte aligned
    b_ptr,  # b: [n] bfloat16
    y_ptr,  # y: m x n bfloat16, contiguous; 16-byte aligned
    m,  # rows of x and y
    n,  # rows of w, columns of y
    k,  # columns of x and w
    stride_xm,  # elements between the starts of two rows of x (a multiple of 8: 16 bytes)
    stride_wn,  # elements between the starts of two rows of w (a multiple of 8)
    BLOCK_SIZE_M: tl.constexpr,  # rows of a tile of y
    BLOCK_SIZE_N: tl.constexpr,  # columns of a tile of y
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
    GROUP_SIZE_M: tl.constexpr,  # tile rows per group of the tile numbering
    PROGRAMS: tl.constexpr,  # programs launched: each takes every PROGRAMS-th tile
):
    ### BEGIN SOLUTION
    # Each matrix described once (lab 02): base, shape, strides, the block one load or store
    # moves. x and w are read by rows of k elements; W^T's block is the transpose of w's.
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[m, k], strides=[stride_xm, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    w_desc = tl.make_tensor_descriptor(w_ptr, shape=[n, k], strides=[stride_wn, 1],
                                       block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[m, n], strides=[n, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n  # tiles in a group of GROUP_SIZE_M tile rows
    # Persistent: this program's tiles are pid, pid + PROGRAMS, pid + 2 PROGRAMS, ...
    # flatten=True pipelines the tile loop and the K loop as one: the next tile's first loads
    # are in flight while this tile's epilogue runs.
    for tile in tl.range(tl.program_id(axis=0), tiles_m * tiles_n, PROGRAMS, flatten=True):
        # Grouped numbering: down the group's tile rows, then the next column (lab 10).
        first_m = (tile // per_group) * GROUP_SIZE_M
        group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
        row0 = (first_m + (tile % per_group) % group_rows) * BLOCK_SIZE_M  # the tile's first row
        col0 = ((tile % per_group) // group_rows) * BLOCK_SIZE_N  # ... and first column
        acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for k0 in range(0, k, BLOCK_SIZE_K):
            # Blocks by their coordinates; past m, n or k the descriptors read zeros: no masks.
            x_blk = x_desc.load([row0, k0])  # BLOCK_SIZE_M x BLOCK_SIZE_K
            w_blk = w_desc.load([col0, k0])  # BLOCK_SIZE_N x BLOCK_SIZE_K, rows of w
            acc = tl.dot(x_blk, w_blk.T, acc)  # W^T's block: the transpose, no copy
        # linear_gelu_kernel's epilogue: the bias, GELU's tanh form, one rounding.
        offs_n = col0 + tl.arange(0, BLOCK_SIZE_N)
        v = acc + tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)[None, :]
        u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
        y_desc.store([row0, col0], (v / (1.0 + tl.exp(-2.0 * u))).to(tl.bfloat16))  # clipped
    ### END SOLUTION


def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                       y: torch.Tensor) -> None:
    """y = gelu_tanh(x @ w.T + b) in bfloat16, float32 accumulation: linear_gelu_tma_kernel for
    more than 128 rows where TMA's rules hold for x, w and y, linear_gelu_kernel otherwise."""
    ### BEGIN SOLUTION
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"shapes do not chain: x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    # TMA's rules: bases 16-byte aligned, rows a multiple of 16 bytes apart (not w's rows
    # padded by 5, nor y's at n = 33).
    tma = all(t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0
              for t in (x, w, y))
    if m > 128 and tma:  # prefill: persistent, tiles through tensor descriptors
        BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 128, 256, 64
        tiles = triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N)
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
        programs = min(sms, tiles)  # one program per SM, no more than the tiles
        linear_gelu_tma_kernel[(programs,)](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                                            BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                                            BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=8,
                                            PROGRAMS=programs, num_warps=8, num_stages=3)
        return
    # Any stride, and decode: pointers and masks.
    if m <= 128:  # decode: one tile of rows; narrow columns keep every SM reading w
        BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, warps, stages = 64, 32, 256, 4, 4
    else:  # prefill, strides TMA cannot take: square tiles, 3 K tiles in flight
        BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, warps, stages = 128, 128, 64, 8, 3
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    linear_gelu_kernel[grid](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=warps, num_stages=stages)
    ### END SOLUTION


# %% [markdown]
# ### CUDA C: bfloat16 WMMA fragments, a cp.async pipeline, a fused epilogue
#
# **The kernel is lab 14's pipelined int8 kernel** (its Part 2, which introduced the pipeline)
# with bfloat16 in place of int8: `matrix_a` and `matrix_b` fragments of `__nv_bfloat16`
# (shape 16 × 16 × 16) and an `accumulator` of `float`, and this exercise's epilogue. Review it
# first; what follows is what changes.
#
# | call | here |
# |---|---|
# | `wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;` | a 16 × 16 tile of `x`, rows along `k` |
# | `wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;` | a 16 × 16 tile of `Wᵀ`, column-major: 16 rows of `w`, along `k` |
# | `wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;` | the float32 sums; `wmma::fill_fragment(acc, 0.0f)` |
# | `wmma::load_matrix_sync(f, ptr, ldm)` | `ldm` a multiple of 8 elements (16 bytes); `ptr` **32-byte aligned** |
# | `load_shared(f, ptr, ldm)` (given in the cell) | the same, for a fragment in shared memory: nvcc 13 compiles `load_matrix_sync` of a bfloat16 fragment to four 4-byte loads through generic addresses, where `load_shared` is one `ldmatrix` (twice the K loop's speed at 4096³) |
#
# **The pipeline, in brief.** `__pipeline_memcpy_async` (cp.async) starts a 16-byte copy from
# global to shared memory and returns at once. The block keeps `STAGES - 1` K tiles of `x` and
# `w` in flight ahead of the one its warps multiply, in `STAGES` buffers used in turn, so that
# the copies' latency hides behind the multiply-adds. One `__syncthreads()` per K tile, before
# its last 16-deep slice: there each thread has waited for its own copies of the next tile
# (`__pipeline_wait_prior(STAGES - 2)`), and past the barrier everyone's have landed and every
# warp is done with the current tile, whose buffer the next tile's first slice refills. The
# operand fragments come in two register sets: the next slice's loads run while this slice's
# multiply-adds do.
#
# **Two batches, two blocks.** At 64 rows (decode) the time is the read of `w` (32 MiB at
# `n = k = 4096`): what matters is that every SM has bytes of `w` in flight. At 4096 rows
# (prefill) it is the multiply-adds: big warp tiles, each fragment load feeding several
# products. Write the block once, as a template
# `template <int BM, int BN, int WARPS_M, int WARPS_N, int BK, int STAGES> linear_gelu_tile(...)`,
# instantiate it in two kernels (given), and let the launcher pick one by `m`:
#
# | kernel | `m` | tile of `y` | warps (each) | `BK` | `STAGES` | shared memory |
# |---|---|---|---|---|---|---|
# | `linear_gelu_kernel_decode` | ≤ 128 | 64 × 32 | 4 = 2 × 2 (32 × 16) | 128 | 4 | 104 448 bytes |
# | `linear_gelu_kernel_prefill` | > 128 | 128 × 256 | 8 = 2 × 4 (64 × 64) | 32 | 4 | 122 880 bytes |
#
# Decode: 128 blocks at `n = 4096`, about one per SM of an H100's 132, each with three
# 128-deep K tiles of `w` in flight. Prefill: lab 14's block, 4 × 4 accumulator fragments a
# warp (128 floats a thread): 1 block per SM (`__launch_bounds__(256, 1)`), so a thread may use
# up to 255 registers. Both number their tiles in groups of `GROUP_M` = 8 tile rows, as lab 14.
#
# **The shared tiles, row by row, padded.** A 16-deep slice of bfloat16 is 32 bytes wide, so in
# a tile stored row by row every fragment starts on a multiple of 32 bytes (lab 14 cut its
# 16-byte int8 slices apart for that; here there is no need):
# `xs[buf][r][kk] = x[row0 + r][k0 + kk]`, `ws[buf][j][kk] = w[col0 + j][k0 + kk]`, a fragment
# at `&xs[buf][wr + 16 i][16 s]`. A fragment load reads 16 bytes from each of 8 rows at a
# time; rows `2 BK` bytes apart (64 or 256 here) would put those 8 pieces in one or two groups
# of 4 banks, so each row gets `PAD` = 8 more elements (16 bytes), and 8 consecutive rows
# start in 8 different groups: `ldm` = `BK + 8`. Dynamic shared memory,
# `extern __shared__ __align__(128) unsigned char smem[];`, cut into
# `xs[STAGES][BM][BK + 8]` and `ws[STAGES][BN][BK + 8]` (`shared=` in the launcher); the
# epilogue's `float` scratch tiles reuse its start, after a `__syncthreads()`.
#
# **Filling them.** 16-byte pieces of 8 elements, one `__pipeline_memcpy_async(dst, src, 16)`
# each; outside the matrix (past `m`, `n` or `k`) a copy of 0 bytes with 16 zero-filled,
# `__pipeline_memcpy_async(dst, x, 16, 16)`. Consecutive threads take consecutive pieces of a
# row, up to 8 (128 bytes, a whole cache line): a warp's copy then touches 4 to 8 lines, where 2
# threads a row (16 rows of 32 bytes, 16 lines) made the whole kernel 27% slower at 4096³ on an
# H100. A 16-byte copy needs its piece 16-byte aligned and wholly inside or
# outside the matrix: `k` and both row strides multiples of 8, `x` and `w` 16-byte aligned.
# Where they are not (rows of `w` padded by 5, `k` = 17), fill the same pieces element by
# element with plain loads and stores, zeros outside: slower, and correct. The test is the same
# for every thread, and the K loop's barrier publishes those stores as it does the copies.
#
# **The epilogue.** As lab 14's: each warp stores a finished accumulator to a 16 × 16 `float`
# scratch tile of its own, `__syncwarp()`, and lane `l` takes 8 of its floats (row `l / 2`,
# columns `(l % 2) * 8` onwards): `v = acc + __bfloat162float(b[col])`, then GELU's tanh form in
# float32, written as in the Triton part, `v / (1 + exp(-2u))`, with `__expf` and `__fdividef`;
# each rounded once to bfloat16, the 8 stored as one 16-byte store where `n` is a multiple of 8
# and `y` 16-byte aligned, one by one otherwise.
#
# <details><summary>Hint 1 — one K tile at a time first</summary>
#
# Correctness before speed: the same tiles and fragments without the pipeline, one buffer of
# each. For `k0 = 0, BK, ...`: fill `xs[0]` and `ws[0]` (16-byte copies or element by
# element); `__pipeline_commit()`, `__pipeline_wait_prior(0)`, `__syncthreads()`; for each
# slice `s`, load `fa[i]` from `&xs[0][wr + 16 i][16 s]` and `fb[j]` from
# `&ws[0][wc + 16 j][16 s]` (`ldm` `BK + 8`), `wmma::mma_sync(acc[i][j], fa[i], fb[j],
# acc[i][j])`; `__syncthreads()` again before the next K tile overwrites the buffers. Every
# lane of a warp makes every WMMA call, also for fragments past the matrix (they multiply
# zeros). Then make it lab 14's pipeline. The public shapes have `m` ≤ 128 and run the decode
# kernel only; without a GPU the prefill kernel runs on one graded shape (130 rows), and at
# size on the GPU's (2049 rows).
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# A function template for one thread's share of one K tile of `ROWS` rows,
# `issue_k_tile<ROWS, BK, THREADS>(tile, matrix, row0, rows, stride, k0, k, vec)`, called for
# `x` (`BM` rows from `row0`) and for `w` (`BN` rows from `col0`). `TPR` threads a row, the
# row's pieces up to 8 (`WIDE = BK / 8 < 8 ? BK / 8 : 8`), more where the tile has fewer rows
# than `THREADS / WIDE` (`TPR = THREADS / ROWS > WIDE ? THREADS / ROWS : WIDE`): thread `t`
# copies pieces `t % TPR`, `t % TPR + TPR`, … (8 elements each, columns `8 (t % TPR + g TPR)`)
# of tile row `t / TPR`, and of every `THREADS / TPR`-th row after it. Source row
# `matrix + (long long)(row0 + r) * stride` (64-bit: `row * stride` may pass 2^31 in a large
# matrix), inside where `row0 + r < rows` and, for a piece at column `kk = k0 + c`, `kk < k`
# (element by element: `kk + e < k`). A zero is `__float2bfloat16(0.0f)`.
# </details>
#
# <details><summary>Hint 3 — the pipeline</summary>
#
# Lab 14's loop, unchanged: issue tiles `0 .. STAGES - 2` (a commit each, tiles past `k` too:
# all zero fill), `__pipeline_wait_prior(STAGES - 2)`, `__syncthreads()`, load slice 0 of
# buffer 0 into register set 0. Then for each tile `t`, for each slice `s`: at the last slice,
# `__pipeline_wait_prior(STAGES - 2)` and `__syncthreads()`; at slice 0, issue tile
# `t + STAGES - 1` into tile `t - 1`'s buffer and commit; load slice `s + 1` into set
# `(s + 1) % 2` (after the last slice: slice 0 of the next buffer, set 0); multiply slice `s`
# from set `s % 2`. After the loop: `__pipeline_wait_prior(0)` and `__syncthreads()` before
# the scratch tiles reuse the buffers.
# </details>
#
# <details><summary>Hint 4 — the epilogue</summary>
#
# A `__device__` function for one element:
# `const float v = acc + bias;`
# `const float u = 0.7978845608f * (v + 0.044715f * v * v * v);`
# `return __fdividef(v, 1.0f + __expf(-2.0f * u));`. Both intrinsics take fewer instructions
# than `expf` and `/` and err by a few float32 ulp, far below bfloat16's half ulp. For `v` far
# below zero `exp` passes 2^126 and `__fdividef` returns 0, as GELU nearly is (below 1e-30).
# Per lane: two `float4` reads of the scratch tile, at `r * 16 + h` and `r * 16 + h + 4`
# (`r = lane / 2`, `h = lane % 2 * 8`); `bias = __bfloat162float(b[col + q])`; the 16-byte
# store `reinterpret_cast<uint4 *>(out)[lane % 2] = make_uint4(pack(g[0], g[1]), ...)` with
# `out = y + (long long)row * n + fcol`.
# </details>
#
# <details><summary>Hint 5 — the launcher, and the checks' messages</summary>
#
# `m <= 128`: `linear_gelu_kernel_decode_cu`, `block=(128, 1, 1)`; otherwise
# `linear_gelu_kernel_prefill_cu`, `block=(256, 1, 1)`; `grid=(cdiv(m, BM) * cdiv(n, BN), 1)`,
# `shared=STAGES * (BM + BN) * (BK + 8) * 2`. "depends on thread order": the K loop's
# `__syncthreads()` missing. "`__pipeline_memcpy_async` ... is not aligned" where `w`'s rows
# are padded by 5: 16-byte copies of rows that are not 16-byte aligned (the `vec` test). These,
# a WMMA call inside a branch that splits a warp, or a fragment pointer 16 bytes past a 32-byte
# boundary, are named with their line without a GPU (on a GPU: undefined behaviour); "read of
# dynamic shared memory at byte ...": `shared=` smaller than what the kernel cuts from `smem`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "linear_gelu_cu", "locked": false, "schema_version": 3, "solution": true}
LINEAR_GELU_CU = r"""
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// Two floats rounded to a pair of bfloat16s, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

// load_matrix_sync for a bfloat16 fragment in shared memory. nvcc 13 compiles load_matrix_sync
// of a bfloat16 fragment to four 4-byte loads through generic addresses (for float16 and int8
// it knows the pointer is shared and emits one ldmatrix): at 4096^3 the K loop ran at half
// speed. On the GPU these write the same wmma.load instruction with its state space, .shared;
// the CPU backend, which runs no PTX and defines no __CUDA_ARCH__, calls load_matrix_sync.
template <class Fragment>
__device__ __forceinline__ void load_shared(Fragment &f, const __nv_bfloat16 *p, unsigned ldm)
{
    wmma::load_matrix_sync(f, p, ldm);
}
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ void load_shared(
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> &f,
    const __nv_bfloat16 *p, unsigned ldm)
{
    unsigned *r = reinterpret_cast<unsigned *>(&f);  // the fragment's 4 registers
    const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at), "r"(ldm));
}
__device__ __forceinline__ void load_shared(
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> &f,
    const __nv_bfloat16 *p, unsigned ldm)
{
    unsigned *r = reinterpret_cast<unsigned *>(&f);
    const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("wmma.load.b.sync.aligned.col.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at), "r"(ldm));
}
#endif

#define PAD 8      // bfloat16s (16 bytes) added to each row of a shared K tile
#define GROUP_M 8  // tile rows per group of the numbering

/// BEGIN SOLUTION
// One element of y from its float32 sum: the bias, then GELU's tanh form as
// 0.5 v (1 + tanh(u)) = v / (1 + exp(-2 u)). __expf and __fdividef, CUDA's fast intrinsics:
// fewer instructions than expf and an IEEE `/`, and errors of a few float32 ulp, far below
// bfloat16's half ulp. For v below about -10, exp(-2 u) passes 2^126 and __fdividef returns 0,
// where gelu(v) is below 1e-30.
__device__ __forceinline__ float bias_gelu(float acc, float bias)
{
    const float v = acc + bias;
    const float u = 0.7978845608f * (v + 0.044715f * v * v * v);  // sqrt(2 / pi) (v + 0.044715 v^3)
    return __fdividef(v, 1.0f + __expf(-2.0f * u));
}

// This thread's share of one K tile: rows row0 .. row0 + ROWS - 1 of a row-major matrix (`rows`
// rows, `stride` elements apart), columns k0 .. k0 + BK - 1, into tile[r][c], zeros past the
// matrix. In 16-byte pieces of 8 elements: TPR threads share a row (its pieces, up to 8: a warp
// reads whole 128-byte lines, or 8 rows of 64 bytes at BK 32; with 2 a row, 16 rows of 32
// bytes, the kernel ran 27% slower at 4096^3), thread t taking pieces t % TPR, t % TPR + TPR,
// ... of row t / TPR and of every THREADS / TPR-th row after it.
// VEC: one cp.async a piece (each aligned and wholly inside or outside the matrix); otherwise
// plain loads and stores, element by element.
template <int ROWS, int BK, int THREADS, bool VEC>
__device__ __forceinline__ void issue_k_tile(__nv_bfloat16 (*tile)[BK + PAD],
                                             const __nv_bfloat16 *__restrict__ matrix, int row0,
                                             int rows, int stride, int k0, int k)
{
    constexpr int PIECES = BK / 8;                                // pieces in a row of the tile
    constexpr int WIDE = PIECES < 8 ? PIECES : 8;                 // a row's pieces, up to 8
    constexpr int TPR = THREADS / ROWS > WIDE ? THREADS / ROWS : WIDE;  // threads sharing a row
    constexpr int PASS = THREADS / TPR;                           // rows the block copies at once
    static_assert(PIECES % TPR == 0 && ROWS % PASS == 0, "each thread: whole pieces, whole passes");
    const int r = threadIdx.x / TPR, q = threadIdx.x % TPR;
#pragma unroll
    for (int p = 0; p < ROWS / PASS; ++p) {
        const int row = r + p * PASS;  // in the tile
        const bool row_in = row0 + row < rows;
        const __nv_bfloat16 *src = matrix + (long long)(row0 + row) * stride;  // 64-bit offset
#pragma unroll
        for (int g = 0; g < PIECES / TPR; ++g) {
            const int c = 8 * (q + g * TPR), kk = k0 + c;  // the piece's first column: tile, matrix
            if constexpr (VEC) {  // outside: a copy of 0 bytes, 16 zero-filled (source never read)
                const bool inside = row_in && kk < k;
                __pipeline_memcpy_async(&tile[row][c], inside ? src + kk : matrix, 16,
                                        inside ? 0 : 16);
            } else {  // the slow path, kept rolled: both pipelines fit their registers
#pragma unroll 1
                for (int e = 0; e < 8; ++e)
                    tile[row][c + e] = row_in && kk + e < k ? src[kk + e] : __float2bfloat16(0.0f);
            }
        }
    }
}
/// END SOLUTION

// One block's BM x BN tile of y: WARPS_M x WARPS_N warps, each a (BM / WARPS_M) x (BN / WARPS_N)
// piece of it; K tiles BK deep, STAGES buffers of them in dynamic shared memory (STAGES x
// (BM + BN) x (BK + PAD) bfloat16s, `shared=` in the launcher).
template <int BM, int BN, int WARPS_M, int WARPS_N, int BK, int STAGES>
__device__ __forceinline__ void
linear_gelu_tile(const __nv_bfloat16 *__restrict__ x,  // m x k, rows stride_xm apart
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
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's piece of the tile
    constexpr int FM = WM / 16, FN = WN / 16;            // its fragments, down and across
    constexpr int SLICES = BK / 16;                      // 16-deep slices of a K tile
    constexpr int LDM = BK + PAD;                        // elements between rows of a K tile
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp's piece is whole fragments");
    static_assert(SLICES % 2 == 0, "slice 0 of every K tile goes to register set 0");

    // STAGES buffers of each K tile, row by row: xs[buf][r][kk] = x[row0 + r][k0 + kk] and
    // ws[buf][j][kk] = w[col0 + j][k0 + kk]. A fragment at row 16 i, column 16 s starts a
    // multiple of 32 bytes in (16 rows of 2 LDM bytes; 32 bytes a slice), ldm LDM. The padding
    // puts the 8 rows that a fragment load reads 16 bytes of at a time in 8 different groups of
    // 4 banks (rows 2 BK bytes apart would share them). The epilogue's scratch tiles (a 16 x 16
    // float tile per warp) reuse the start of smem.
    extern __shared__ __align__(128) unsigned char smem[];
    __nv_bfloat16(*xs)[BM][LDM] = reinterpret_cast<__nv_bfloat16(*)[BM][LDM]>(smem);
    __nv_bfloat16(*ws)[BN][LDM] = reinterpret_cast<__nv_bfloat16(*)[BN][LDM]>(xs + STAGES);
    float(*scratch)[16 * 16] = reinterpret_cast<float(*)[16 * 16]>(smem);

    // The tile of y, numbered in groups of GROUP_M tile rows (shared tiles of x and w in L2).
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N * WM, wc = warp % WARPS_N * WN;  // the warp's piece

    // 16-byte copies where every piece is aligned and wholly inside or outside the matrix (the
    // same for all threads); element by element otherwise.
    const bool vec = k % 8 == 0 && stride_xm % 8 == 0 && stride_wn % 8 == 0 &&
                     reinterpret_cast<size_t>(x) % 16 == 0 &&
                     reinterpret_cast<size_t>(w) % 16 == 0;
    // Which copies, a compile-time constant in each of two copies of the pipeline below, one of
    // which runs: a run-time test in every copy cost the K loop 9% in lab 14.
    struct Pieces { enum { vec = true }; };
    struct Elements { enum { vec = false }; };
    auto issue = [&](auto kind, int buf, int k0) {  // the copies of the K tile at k0 into buf
        constexpr bool VEC = decltype(kind)::vec;
        issue_k_tile<BM, BK, THREADS, VEC>(xs[buf], x, row0, m, stride_xm, k0, k);
        issue_k_tile<BN, BK, THREADS, VEC>(ws[buf], w, col0, n, stride_wn, k0, k);
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // Two register sets of operand fragments: the products of one slice run while the
    // fragments of the next slice are loaded into the other set, hiding the loads' latency.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2][FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2][FN];
    auto load = [&](int set, int buf, int s) {  // the fragments of slice s of buffer buf
#pragma unroll
        for (int i = 0; i < FM; ++i)
            load_shared(fa[set][i], &xs[buf][wr + 16 * i][16 * s], LDM);
#pragma unroll
        for (int j = 0; j < FN; ++j)
            load_shared(fb[set][j], &ws[buf][wc + 16 * j][16 * s], LDM);
    };

    // The pipeline, as lab 14's: STAGES - 1 K tiles in flight ahead of the one multiplied, tiles
    // past k issued too (all zero fill), so that __pipeline_wait_prior(STAGES - 2) always means
    // "the next tile has landed".
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
    auto pipeline = [&](auto kind) {
        const int k_tiles = (k + BK - 1) / BK;
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            issue(kind, s, s * BK);
            __pipeline_commit();
        }
        __pipeline_wait_prior(STAGES - 2);  // tile 0 has landed (this thread's copies)
        __syncthreads();                    // ... every thread's
        load(0, 0, 0);
        int buf = 0;  // tile t's buffer
        for (int t = 0; t < k_tiles; ++t) {
            const int next = buf + 1 == STAGES ? 0 : buf + 1;    // tile t + 1's
            const int refill = buf == 0 ? STAGES - 1 : buf - 1;  // tile t - 1's, now free
#pragma unroll
            for (int s = 0; s < SLICES; ++s) {
                if (s == SLICES - 1) {
                    __pipeline_wait_prior(STAGES - 2);  // tile t + 1 has landed (this thread's)
                    __syncthreads();  // ... every thread's; every warp is done loading tile t
                }
                if (s == 0) {
                    issue(kind, refill, (t + STAGES - 1) * BK);
                    __pipeline_commit();
                }
                if (s + 1 < SLICES)  // slice s + 1 into the other register set...
                    load((s + 1) % 2, buf, s + 1);
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
    };
    if (vec)
        pipeline(Pieces{});
    else
        pipeline(Elements{});
    __pipeline_wait_prior(0);  // the zero fills past k have landed too
    __syncthreads();           // the buffers become the scratch tiles: every warp is done

    // Epilogue: float accumulator -> scratch tile -> 8 elements per lane: the bias and GELU in
    // float32, each rounded once to bfloat16; one 16-byte store where every row of y starts on
    // a 16-byte boundary (8 columns from a multiple of 8 then end inside y or at its edge).
    const bool wide = n % 8 == 0 && reinterpret_cast<size_t>(y) % 16 == 0;
    float *mine = scratch[warp];
    const int r = lane / 2, h = lane % 2 * 8;  // row r of a fragment, columns h .. h + 7
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past y
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const float4 lo = *reinterpret_cast<const float4 *>(mine + r * 16 + h);
            const float4 hi = *reinterpret_cast<const float4 *>(mine + r * 16 + h + 4);
            const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
            const int row = frow + r, col = fcol + h;
            if (row < m) {
                __nv_bfloat16 *out = y + (long long)row * n + fcol;  // the fragment's row
                if (wide) {
                    if (col < n) {
                        float g[8];
#pragma unroll
                        for (int q = 0; q < 8; ++q)
                            g[q] = bias_gelu(v[q], __bfloat162float(b[col + q]));
                        // Indexed as uint4s (nvcc 13 split `*(uint4 *)(out + h)` into four
                        // 4-byte stores).
                        reinterpret_cast<uint4 *>(out)[lane % 2] = make_uint4(
                            pack(g[0], g[1]), pack(g[2], g[3]), pack(g[4], g[5]), pack(g[6], g[7]));
                    }
                } else {
#pragma unroll
                    for (int q = 0; q < 8; ++q)
                        if (col + q < n)
                            out[h + q] = __float2bfloat16_rn(
                                bias_gelu(v[q], __bfloat162float(b[col + q])));
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
    /// END SOLUTION
}

// Decode (m <= 128): the read of w is the time. 64 x 32 tiles (128 blocks at n = 4096, about one
// per SM of an H100's 132), 4 warps of 32 x 16; K tiles 128 deep, 4 buffers: 3 K tiles of w in
// flight per block. 4 x (64 + 32) x 136 bfloat16s = 104448 bytes of shared memory.
extern "C" __global__ void __launch_bounds__(128, 1)
linear_gelu_kernel_decode(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *__restrict__ w,
                          const __nv_bfloat16 *__restrict__ b, __nv_bfloat16 *__restrict__ y,
                          int m, int n, int k, int stride_xm, int stride_wn)
{
    linear_gelu_tile<64, 32, 2, 2, 128, 4>(x, w, b, y, m, n, k, stride_xm, stride_wn);
}

// Prefill (m > 128): the multiply-adds are the time. 128 x 256 tiles, 8 warps of 64 x 64 (4 x 4
// accumulator fragments: each fragment load feeds 4 products); K tiles 32 deep, 4 buffers:
// 4 x (128 + 256) x 40 bfloat16s = 122880 bytes. 1 block per SM, so a thread may use up to 255
// registers: 128 floats of accumulators and two sets of 4 + 4 operand fragments.
extern "C" __global__ void __launch_bounds__(256, 1)
linear_gelu_kernel_prefill(const __nv_bfloat16 *__restrict__ x, const __nv_bfloat16 *__restrict__ w,
                           const __nv_bfloat16 *__restrict__ b, __nv_bfloat16 *__restrict__ y,
                           int m, int n, int k, int stride_xm, int stride_wn)
{
    linear_gelu_tile<128, 256, 2, 4, 32, 4>(x, w, b, y, m, n, k, stride_xm, stride_wn);
}
"""

# %% nbgrader={"grade": false, "grade_id": "linear_gelu_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
linear_gelu_module = SourceModule(LINEAR_GELU_CU, no_extern_c=True)
linear_gelu_kernel_decode_cu = linear_gelu_module.get_function("linear_gelu_kernel_decode")
linear_gelu_kernel_prefill_cu = linear_gelu_module.get_function("linear_gelu_kernel_prefill")


def linear_gelu_cuda(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                     y: torch.Tensor) -> None:
    """y = gelu_tanh(x @ w.T + b) in bfloat16 with WMMA: linear_gelu_kernel_decode_cu (4 warps
    per 64 x 32 tile of y) where m <= 128, linear_gelu_kernel_prefill_cu (8 warps per 128 x 256
    tile) above.

    Pass the arguments in the kernels' order, as C types: each tensor as
    np.uintp(t.data_ptr()), each int as np.int32(...); then block=(threads, 1, 1),
    grid=(tiles, 1) and shared= the bytes of the kernel's dynamic shared memory.
    """
    ### BEGIN SOLUTION
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"shapes do not chain: x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    # Each kernel's template arguments in LINEAR_GELU_CU: BM, BN, threads (32 per warp), BK,
    # STAGES.
    if m <= 128:  # decode: the read of w dominates
        kernel = linear_gelu_kernel_decode_cu
        bm, bn, threads, bk, stages = 64, 32, 128, 128, 4
    else:  # prefill: the multiply-adds dominate
        kernel = linear_gelu_kernel_prefill_cu
        bm, bn, threads, bk, stages = 128, 256, 256, 32, 4
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    assert tiles < 2**31, f"{tiles} tiles: gridDim.x <= 2^31 - 1"
    smem = stages * (bm + bn) * (bk + 8) * 2  # bytes: STAGES buffers of xs and ws, PAD = 8
    kernel(
        np.uintp(x.data_ptr()),
        np.uintp(w.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(y.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(x.stride(0)),
        np.int32(w.stride(0)),
        block=(threads, 1, 1),
        grid=(tiles, 1),
        shared=smem,  # 104448 or 122880 bytes, over 48 KiB: SourceModule's launch opts in
    )
    ### END SOLUTION


# %% [markdown]
# ### Check linear_gelu
#
# Shapes: one fragment (16³), whole tiles (32 × 48 × 64), tails on every axis (17 × 33 × 40),
# `k = 256`, padded rows of `x`. A failure names the shape (`m`, `n`, `k`) and the first
# wrong elements of `y` by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_linear_gelu_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", linear_gelu_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", linear_gelu_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_linear_gelu_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", linear_gelu_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", linear_gelu_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast is linear_gelu?
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
# rows, 67 MB beside the GEMM's own traffic. The rest of the time is the GEMM's: what the CUDA
# kernel's pipeline and its two blocks are for, and at prefill the Triton kernel's TMA and
# persistence (on an H100, 2026-12-06: 577 TFLOP/s with pointer loads, 0.84x cuBLAS + GELU;
# 683-703 with the persistent TMA kernel, 1.01-1.04x). The epilogue costs the same at any `k`.

# %% nbgrader={"grade": true, "grade_id": "perf_linear_gelu_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", linear_gelu_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", linear_gelu_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_linear_gelu_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", linear_gelu_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", linear_gelu_cuda, graded=True)
### END HIDDEN TESTS


# %% [markdown]
# ## Exercise 2 — mlp: Llama's gated MLP block
#
# Llama's feed-forward block is lab 04's SwiGLU between three linear layers, none with a bias:
#
#     h = silu(x · W_gateᵀ) * (x · W_upᵀ)        m × f
#     y = h · W_downᵀ                              m × d
#
# - `x`: bfloat16, `m × d`, row-major; its rows may be padded (`x.stride(0)` ≥ `d`);
# - `w_gate`, `w_up`: bfloat16, `f × d`; `w_down`: bfloat16, `d × f`; all row-major as
#   `nn.Linear` stores them (each `Wᵀ` column-major, as exercise 1's `w`), each with **its own**
#   row stride (padded rows, some not 16-byte aligned);
# - `y`: bfloat16 `m × d`, contiguous, allocated: write into it;
# - `h`: bfloat16 `m × f`, **yours**: the launcher allocates it,
#   `torch.empty((m, f), dtype=torch.bfloat16, device=x.device)`, and passes it from the first
#   kernel to the second.
#
# Llama-7B has `d = 4096`, `f = 11008`: the block holds two thirds of a layer's weights.
#
# **What eager torch runs.** `F.linear(F.silu(F.linear(x, w_gate)) * F.linear(x, w_up), w_down)`
# is five kernels, and three `m × f` tensors besides `h` go to memory and come back:
#
# | kernel | reads | writes |
# |---|---|---|
# | cuBLAS `x · w_gateᵀ` | `x`, `w_gate` | `g` |
# | cuBLAS `x · w_upᵀ` | `x`, `w_up` | `u` |
# | `F.silu` | `g` | `s` |
# | `*` | `s`, `u` | `h` |
# | cuBLAS `h · w_downᵀ` | `h`, `w_down` | `y` |
#
# **Your plan: two kernels.**
#
# 1. `mlp_gate_up_kernel`: one tile of `h` per program (per block in CUDA), with **two
#    accumulators**, one for the gate, one for the up product. Each step along `d` loads a
#    block of `x` **once** and multiplies it by the block of `W_gateᵀ` into one accumulator and
#    by the block of `W_upᵀ` into the other. After the loop, the **epilogue** computes
#    `silu(g) * u` on the two accumulators in float32 and stores `h`, rounded once: `h` is
#    written once, and neither `g` nor `u` ever reaches memory.
# 2. `mlp_down_kernel`: `y = h · W_downᵀ`, a plain GEMM (exercise 1's kernel without bias or
#    activation, summing over `f`).
#
# The two launches go to the same stream, so the second starts when the first is done: `h` is
# complete when it is read.
#
# At prefill, where TMA's rules hold, both GEMMs go through a third kernel instead,
# `mlp_tma_kernel`: exercise 1's persistent TMA kernel, once with the gate/up epilogue, once
# plain.
#
# **The ledger** at Llama-7B's widths (bytes of bfloat16; `flops` = 3 GEMMs of `2 m d f`):
#
# | batch | FLOPs | weights read | `h` written and read | eager torch's `g`, `u`, `s`: written and read |
# |---|---|---|---|---|
# | decode, `m` = 64 | 17.3 G | 271 MB | 2.8 MB | 8.5 MB |
# | prefill, `m` = 4096 | 1.11 T | 271 MB | 180 MB | 541 MB |
#
# At decode the block does 64 FLOPs per byte of weight, where a Hopper GPU's tensor cores need
# a few hundred per byte of memory to be the limit: the time is the read of the weights, and
# what the fusion saves there is 3% of the traffic and three launches. At prefill it is
# compute-bound, and eager torch's 541 MB of intermediates are what the fusion saves: about a
# tenth of the GEMMs' own time at a realistic tensor-core rate. (Not measured yet on the course
# GPU.)
#
# **Three rules of the arithmetic**, exercise 1's for each GEMM:
#
# 1. `g` and `u` are float32 sums, never rounded;
# 2. `silu(g) * u` in float32 on the two accumulators (`silu(g) = g / (1 + exp(-g))`, SiLU on
#    the **gate**), rounded once to bfloat16 where `h` is stored;
# 3. `y`: a float32 sum over `f` of products of bfloat16s, rounded once.
#
# The check computes the same two steps in float64, `h` rounded to bfloat16 as yours is (a
# float32 `h` is a more precise function than the one asked for, and is off by up to half a
# bfloat16 ulp of each element of `h`), and compares `y` at one bfloat16 ulp relative, 8e-3
# absolute.
#
# ### Triton
#
# **`mlp_gate_up_kernel`** is exercise 1's kernel with a second weight and a second accumulator:
# `acc_g` and `acc_u`, both float32 `BLOCK_SIZE_M × BLOCK_SIZE_N` tiles of `h`; the loop over
# `d` loads `x_blk` once and the blocks of `W_gateᵀ` and `W_upᵀ` (`BLOCK_SIZE_K ×
# BLOCK_SIZE_N`, element `[kk, j]` at row `j`, column `kk` of the weight), and calls `tl.dot`
# twice. The epilogue stores `h` (contiguous: row `i` at `h_ptr + i * f`).
#
# **`mlp_down_kernel`** is the same GEMM once more, over `f` this time: blocks of `h` (`m × f`,
# rows `f` apart) and of `W_downᵀ` (rows of `w_down`, `stride_down` apart), one accumulator,
# `acc.to(tl.bfloat16)` stored into `y`.
#
# #### Prefill: both GEMMs through one persistent TMA kernel
#
# The two kernels above pass every check. At prefill they are exercise 1's pointer kernel
# twice: the reference's own pointer kernels, at their best tiles, ran 629-639 TFLOP/s on an
# H100, 0.88x eager torch (the target is 1.0x). Prefill takes exercise 1's way past that.
#
# **`mlp_tma_kernel`**: one persistent TMA kernel for both GEMMs, `c = a · bᵀ` with `a` `m × k`,
# `b` `n × k`, `c` `m × n` contiguous, and a constexpr `GATED`:
#
# - `GATED=True`, the gate/up GEMM: `a` = `x`, `b` = `w_gate`, `b2` = `w_up`, `c` = `h`;
# - `GATED=False`, the down GEMM: `a` = `h`, `b` = `w_down`, `c` = `y`; `b2` is not read.
#
# `GATED` is a `tl.constexpr`: an `if GATED:` is decided when the kernel compiles, so the plain
# GEMM has none of the gate/up lines at all. Everything else is exercise 1's
# `linear_gelu_tma_kernel`: the descriptors built before the tile loop, `tl.range(...,
# PROGRAMS, flatten=True)`, the grouped numbering, `.load([row, col])` with zeros past the
# edges, one clipped `store`.
#
# **Gate and up as one weight.** Two weight descriptors, two `tl.dot`s of 128 columns and two
# accumulators work (665 TFLOP/s on an H100), but each `tl.dot` of a 128-column tile is a
# Hopper `wgmma` 128 wide, and exercise 1's 256-wide ones run faster: its kernel made 703. So
# the solution makes one `tl.dot` of 256 columns out of the two weights: a descriptor may have
# three dimensions and any strides, and `w_up` lies a fixed number of elements `P` from
# `w_gate`, so `[n, 2, k]` with strides `[stride_b, P, 1]` from `w_gate` is both weights, row
# `j` of the gate at `[j, 0]` and of the up at `[j, 1]`. One `.load([col0, 0, k0])` of a
# `[BLOCK_SIZE_N, 2, BLOCK_SIZE_K]` block brings both into shared memory, interleaved; its
# `.reshape(2 * BLOCK_SIZE_N, BLOCK_SIZE_K)` (still shared memory: nothing moves) is the `b` of
# one `tl.dot`, whose accumulator holds the gate's sum for column `j` of `h` in its column `2j`
# and the up's in `2j + 1`. A thread holds neighbouring columns together, so
# `acc.reshape(BLOCK_SIZE_M, BLOCK_SIZE_N, 2).split()` parts them in registers. (Inference
# engines store the two weights as one `[2 f, d]` matrix for this; here they come apart, and
# the descriptor joins them without a copy.)
#
# `P` is computed **in the kernel**: `b2_ptr.to(tl.int64, bitcast=True) - b_ptr.to(tl.int64,
# bitcast=True)`, in bytes. The launcher runs where your kernels' tensors are not (the grader
# runs it apart from the GPU's memory, with stand-in addresses), so an address difference
# taken there means nothing to the kernel. A stride must be positive: where `w_up` lies
# below `w_gate`, the descriptor starts at `w_up` and the two halves swap (`tl.where` on that
# one condition). The grader lays the two out both ways, on consecutive graded shapes. A descriptor's strides are multiples of 16 bytes: both bases are 16-byte
# aligned, so their distance is. One tensor passed as both weights has no distance: the
# launcher takes the pointer kernels then.
#
# The launcher takes it where `m > 128`, TMA's rules hold for every matrix (`x`, `w_gate`,
# `w_up`, `w_down`, `y`: bases 16-byte aligned, row strides multiples of 16 bytes; and `h`,
# which is yours: `torch.empty` gives it an aligned base, and its rows are `f` elements apart,
# so `f % 8 == 0`), and the two weights' rows are as far apart and the weights two tensors. The
# graded shapes pad `w_down`'s rows by 5 and `w_gate`'s by 3, most have an `f` that is not a
# multiple of 8, and on a GPU 2049 × 1537 × 3001 has more than 128 rows and no such stride.
# Tiles: 128 × 128 of `h` for gate/up (a 128 × 256 accumulator, as exercise 1's), 128 × 256
# of `y` for down, K blocks of 64, 8 warps, 3 stages, `GROUP_SIZE_M` 8, `PROGRAMS` as exercise
# 1's, counted per launch. The reference, built so, ran 803 TFLOP/s on an H100 (2026-12-06),
# 1.12x eager torch; two 128-column `tl.dot`s 665, 0.82x of it, just over the 0.8 bar; the
# pointer kernels about 0.7x (under it).
#
# <details><summary>Hint 1 — one program, two products</summary>
#
# Number the tiles of `h` as in exercise 1, with `tl.cdiv(f, BLOCK_SIZE_N)` tiles per row.
# Inside `for k0 in range(0, d, BLOCK_SIZE_K)`: one `tl.load` of `x`'s block, then
# `w_gate_ptr + offs_n[None, :] * stride_gate + offs_k[:, None]` and the same with `w_up_ptr`
# and `stride_up` (each weight its own stride: the checks pad their rows differently), then
# `acc_g = tl.dot(x_blk, g_blk, acc_g)` and `acc_u = tl.dot(x_blk, u_blk, acc_u)`.
# </details>
#
# <details><summary>Hint 2 — masks, and which shapes fail</summary>
#
# `x`'s block: rows below `m`, columns below `d`; the weights' blocks: `offs_k[:, None] < d`
# and `offs_n[None, :] < f`; `other=0.0` everywhere. In `mlp_down_kernel` the sum runs over
# `f`: `h`'s block masked by rows below `m` and `offs_k < f`, `W_downᵀ`'s by `offs_k < f` and
# columns below `d`. Wrong only where `f` is not a multiple of `BLOCK_SIZE_K` (with 32: 16³,
# 17 × 40 × 33): a mask of the down kernel's `k` missing, which reads the next row of `h`.
# </details>
#
# <details><summary>Hint 3 — the epilogue</summary>
#
# SiLU on the gate's accumulator, then the product, in float32:
# `h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u` (for `acc_g` below about -88, `exp` overflows
# to `inf` and SiLU is `-0.0`, its limit). Wrong on most elements by a lot: SiLU of the up
# product (the accumulators swapped), or SiLU of the product. Store `h.to(tl.bfloat16)` with
# the mask of rows below `m`, columns below `f`.
# </details>
#
# <details><summary>Hint 4 — the launcher</summary>
#
# Validate (`w_gate.shape == w_up.shape == (f, d)`, `w_down.shape == (d, f)`, rows
# contiguous), allocate `h` (`torch.empty((m, f), dtype=torch.bfloat16, device=x.device)`),
# launch `mlp_gate_up_kernel` on `cdiv(m, BLOCK_SIZE_M) * cdiv(f, BLOCK_SIZE_N)` programs with
# `x.stride(0)`, `w_gate.stride(0)`, `w_up.stride(0)`, then `mlp_down_kernel` on
# `cdiv(m, BLOCK_SIZE_M) * cdiv(d, BLOCK_SIZE_N)` with `w_down.stride(0)`.
# </details>
#
# <details><summary>Hint 5 — tile sizes, per kernel and per batch</summary>
#
# Exercise 1's two regimes, with what the second accumulator changes. Decode (64 rows): one
# 64-row tile, 32 columns a program (344 programs for the gate/up kernel at `f = 11008`, 128
# for the down kernel at `d = 4096`), 4 warps, 4 stages; K blocks 256 deep for the down kernel
# as in exercise 1, 128 for the gate/up kernel, whose stage holds three blocks (32 KiB at 128:
# four stages fit the SM's shared memory, where four of 64 KiB would not). Prefill with
# pointers (strides TMA cannot take): 256 × 64 tiles of `h` for the gate/up kernel, whose two
# float32 accumulators take twice the registers of one, and 256 × 128 of `y` for the down
# kernel, K blocks of 64, 8 warps, 4 stages (the reference's pointer kernels' best: 0.88x eager
# torch on an H100). The launcher picks by `m`.
# </details>
#
# <details><summary>Hint 6 — one TMA kernel, two GEMMs</summary>
#
# Start from `linear_gelu_tma_kernel` with `a`, `b`, `c` for `x`, `w`, `y`, and no bias. Then
# put under `if GATED:` what only the gate/up GEMM has, with an `else:` for the plain one:
# the weight descriptor (`[n, 2, k]` gated, `[n, k]` plain), the accumulator (`2 *
# BLOCK_SIZE_N` columns gated), the K loop (gated: `b_desc.load([col0, 0, k0]).reshape(2 *
# BLOCK_SIZE_N, BLOCK_SIZE_K)`, transposed into the `tl.dot`) and the epilogue. A variable
# defined under `if GATED:` may be used under another `if GATED:`.
# </details>
#
# <details><summary>Hint 7 — the distance, the epilogue, the launcher</summary>
#
# In the kernel: `apart = b2_ptr.to(tl.int64, bitcast=True) - b_ptr.to(tl.int64,
# bitcast=True)` (bytes), `up_first = apart < 0`, the descriptor from `tl.where(up_first,
# b2_ptr, b_ptr)` with strides `[stride_b, tl.abs(apart) // 2, 1]`. After the K loop:
# `lower, upper = acc.reshape(BLOCK_SIZE_M, BLOCK_SIZE_N, 2).split()`, the gate's sums
# `tl.where(up_first, upper, lower)` and the up's the other way round, then SiLU of the gate
# times the up in float32, one store of `.to(tl.bfloat16)` through `c`'s descriptor (strides
# `[n, 1]`). The launcher: allocate `h`, run the TMA test (and `w_gate.stride(0) ==
# w_up.stride(0)`, two distinct tensors), and launch twice, each on `min(SMs, cdiv(m, 128) *
# cdiv(n, BLOCK_SIZE_N))` programs with that launch's own `n`, `k` and `BLOCK_SIZE_N`:
# `(x, w_gate, w_up, h)`, `n = f`, `k = d`, 128 columns, `GATED=True`; then `(h, w_down,
# w_down, y)`, `n = d`, `k = f`, 256 columns, `GATED=False`; then `return`. Wrong everywhere:
# the halves not swapped back (SiLU of the up product where `w_up` lies lower). "stride must
# be 16-byte aligned": a matrix missing from the test, or `f % 8`.
# </details>

# %% nbgrader={"grade": false, "grade_id": "mlp_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def mlp_gate_up_kernel(
    x_ptr,  # x: m x d bfloat16, rows stride_xm elements apart
    w_gate_ptr,  # w_gate: f x d bfloat16, rows stride_gate elements apart
    w_up_ptr,  # w_up: f x d bfloat16, rows stride_up elements apart
    h_ptr,  # h: m x f bfloat16, contiguous
    m,  # rows of x and h
    f,  # rows of w_gate and w_up, columns of h
    d,  # columns of x, w_gate and w_up
    stride_xm,  # elements between the starts of two rows of x (>= d)
    stride_gate,  # ... of w_gate (>= d)
    stride_up,  # ... of w_up (>= d)
    BLOCK_SIZE_M: tl.constexpr,  # rows of h per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of h per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along d
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(f, BLOCK_SIZE_N)
    pid_m = (pid // tiles_n).to(tl.int64)  # 64-bit offsets from here
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of x and h
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # rows of the weights, columns of h
    acc_g = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)  # x . w_gate^T
    acc_u = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)  # x . w_up^T
    for k0 in range(0, d, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        # x's block, loaded once for both products. Past m, f or d: zeros, which add nothing.
        x_blk = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < d), other=0.0)
        # The blocks of W_gate^T and W_up^T, BLOCK_SIZE_K x BLOCK_SIZE_N: [kk, j] is w[j, kk].
        w_mask = (offs_k[:, None] < d) & (offs_n[None, :] < f)
        g_blk = tl.load(w_gate_ptr + offs_n[None, :] * stride_gate + offs_k[:, None],
                        mask=w_mask, other=0.0)
        u_blk = tl.load(w_up_ptr + offs_n[None, :] * stride_up + offs_k[:, None],
                        mask=w_mask, other=0.0)
        acc_g = tl.dot(x_blk, g_blk, acc_g)  # bfloat16 products, exact; float32 sums
        acc_u = tl.dot(x_blk, u_blk, acc_u)
    # The epilogue, in float32 on the two accumulators: SiLU of the gate times the up product;
    # one rounding to bfloat16 at the store.
    h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < f)  # h's edges
    tl.store(h_ptr + offs_m[:, None] * f + offs_n[None, :], h.to(tl.bfloat16), mask=mask)
    ### END SOLUTION


@triton.jit
def mlp_down_kernel(
    h_ptr,  # h: m x f bfloat16, contiguous
    w_down_ptr,  # w_down: d x f bfloat16, rows stride_down elements apart
    y_ptr,  # y: m x d bfloat16, contiguous
    m,  # rows of h and y
    d,  # rows of w_down, columns of y
    f,  # columns of h and w_down
    stride_down,  # elements between the starts of two rows of w_down (>= f)
    BLOCK_SIZE_M: tl.constexpr,  # rows of y per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of y per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along f
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(d, BLOCK_SIZE_N)
    pid_m = (pid // tiles_n).to(tl.int64)
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of h and y
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # rows of w_down, columns of y
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, f, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        # Past f the next row of h begins (or h ends): masked to zeros.
        h_blk = tl.load(h_ptr + offs_m[:, None] * f + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < f), other=0.0)
        w_blk = tl.load(w_down_ptr + offs_n[None, :] * stride_down + offs_k[:, None],
                        mask=(offs_k[:, None] < f) & (offs_n[None, :] < d), other=0.0)
        acc = tl.dot(h_blk, w_blk, acc)
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < d)  # y's edges
    tl.store(y_ptr + offs_m[:, None] * d + offs_n[None, :], acc.to(tl.bfloat16), mask=mask)
    ### END SOLUTION


@triton.jit
def mlp_tma_kernel(
    a_ptr,  # a: m x k bfloat16, rows stride_am elements apart (x; h for the down GEMM)
    b_ptr,  # b: n x k bfloat16, rows stride_b elements apart (w_gate; w_down)
    b2_ptr,  # b2: n x k bfloat16, rows stride_b elements apart too (w_up; unused unless GATED)
    c_ptr,  # c: m x n bfloat16, contiguous (h; y)
    m,  # rows of a and c
    n,  # rows of b and b2, columns of c (f; d)
    k,  # columns of a, b and b2 (d; f)
    stride_am,  # elements between the starts of two rows of a (a multiple of 8: 16 bytes)
    stride_b,  # ... of b, and of b2 (a multiple of 8)
    GATED: tl.constexpr,  # True: c = silu(a . b^T) * (a . b2^T); False: c = a . b^T
    BLOCK_SIZE_M: tl.constexpr,  # rows of a tile of c
    BLOCK_SIZE_N: tl.constexpr,  # columns of a tile of c
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
    GROUP_SIZE_M: tl.constexpr,  # tile rows per group of the tile numbering
    PROGRAMS: tl.constexpr,  # programs launched: each takes every PROGRAMS-th tile
):
    ### BEGIN SOLUTION
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[m, k], strides=[stride_am, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if GATED:  # b and b2 as one n x 2 x k tensor from the lower of the two: [j, 0] its row j,
        # [j, 1] the other's; the middle stride is their distance (addresses as integers)
        apart = b2_ptr.to(tl.int64, bitcast=True) - b_ptr.to(tl.int64, bitcast=True)  # bytes
        up_first = apart < 0  # b2 lies below b
        b_desc = tl.make_tensor_descriptor(tl.where(up_first, b2_ptr, b_ptr), shape=[n, 2, k],
                                           strides=[stride_b, tl.abs(apart) // 2, 1],
                                           block_shape=[BLOCK_SIZE_N, 2, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[n, k], strides=[stride_b, 1],
                                           block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[m, n], strides=[n, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    # Persistent, as exercise 1's linear_gelu_tma_kernel: tiles PROGRAMS apart, grouped.
    for tile in tl.range(tl.program_id(axis=0), tiles_m * tiles_n, PROGRAMS, flatten=True):
        first_m = (tile // per_group) * GROUP_SIZE_M
        group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)
        row0 = (first_m + (tile % per_group) % group_rows) * BLOCK_SIZE_M
        col0 = ((tile % per_group) // group_rows) * BLOCK_SIZE_N
        if GATED:  # one product 2 BLOCK_SIZE_N wide: h's column j from columns 2j and 2j + 1
            acc = tl.zeros((BLOCK_SIZE_M, 2 * BLOCK_SIZE_N), dtype=tl.float32)
            for k0 in range(0, k, BLOCK_SIZE_K):  # zeros past m, n and k: no masks
                b_blk = b_desc.load([col0, 0, k0]).reshape(2 * BLOCK_SIZE_N, BLOCK_SIZE_K)
                acc = tl.dot(a_desc.load([row0, k0]), b_blk.T, acc)
            lower, upper = acc.reshape(BLOCK_SIZE_M, BLOCK_SIZE_N, 2).split()  # the pairs apart
            g = tl.where(up_first, upper, lower)  # the gate's sums, then the up's
            u = tl.where(up_first, lower, upper)
            out = g / (1.0 + tl.exp(-g)) * u  # SiLU of the gate times the up product, float32
        else:
            out = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)  # a . b^T
            for k0 in range(0, k, BLOCK_SIZE_K):
                out = tl.dot(a_desc.load([row0, k0]), b_desc.load([col0, k0]).T, out)
        c_desc.store([row0, col0], out.to(tl.bfloat16))  # one rounding, clipped at m and n
    ### END SOLUTION


def mlp_triton(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
               y: torch.Tensor) -> None:
    """y = (silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T in bfloat16: h (m x f, bfloat16)
    from mlp_gate_up_kernel, then y from mlp_down_kernel; both from mlp_tma_kernel for more
    than 128 rows where TMA's rules hold (every matrix, h's rows: f % 8 == 0)."""
    ### BEGIN SOLUTION
    m, d = x.shape
    f = w_gate.shape[0]
    assert w_gate.shape == w_up.shape == (f, d) and w_down.shape == (d, f) and y.shape == (m, d), \
        (f"shapes do not chain: x {tuple(x.shape)}, w_gate {tuple(w_gate.shape)}, "
         f"w_up {tuple(w_up.shape)}, w_down {tuple(w_down.shape)}, y {tuple(y.shape)}")
    assert all(t.stride(1) == 1 for t in (x, w_gate, w_up, w_down)) and y.is_contiguous(), \
        "rows must be contiguous"
    h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)  # written once, read once
    # TMA's rules for every matrix read or written: bases 16-byte aligned, rows a multiple of
    # 16 bytes apart. h is torch's (an aligned base) with rows f elements apart: f % 8 == 0.
    tma = f % 8 == 0 and all(t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0
                             for t in (x, w_gate, w_up, w_down, y))
    # The kernel reads w_gate and w_up as one tensor: their rows equally far apart, and two
    # tensors (one passed twice has no distance between its two).
    paired = w_gate.stride(0) == w_up.stride(0) and w_gate.data_ptr() != w_up.data_ptr()
    if m > 128 and tma and paired:  # prefill: both GEMMs persistent, tiles through descriptors
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
        # (a, b, b2, c, n, k, BLOCK_SIZE_N, GATED): h from x, w_gate and w_up, then y from h.
        for a, b, b2, c, n, k, bn, gated in ((x, w_gate, w_up, h, f, d, 128, True),
                                             (h, w_down, w_down, y, d, f, 256, False)):
            programs = min(sms, triton.cdiv(m, 128) * triton.cdiv(n, bn))  # one per SM at most
            mlp_tma_kernel[(programs,)](a, b, b2, c, m, n, k, a.stride(0), b.stride(0),
                                        GATED=gated, BLOCK_SIZE_M=128, BLOCK_SIZE_N=bn,
                                        BLOCK_SIZE_K=64, GROUP_SIZE_M=8, PROGRAMS=programs,
                                        num_warps=8, num_stages=3)
        return
    # Any stride, and decode: pointers and masks.
    # (BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, num_warps, num_stages) of each kernel.
    if m <= 128:  # decode: one tile of rows; narrow columns keep every SM reading the weights
        gate_up, down = (64, 32, 128, 4, 4), (64, 32, 256, 4, 4)
    else:  # prefill, strides TMA cannot take: two accumulators, half the columns
        gate_up, down = (256, 64, 64, 8, 4), (256, 128, 64, 8, 4)
    bm, bn, bk, warps, stages = gate_up
    mlp_gate_up_kernel[(triton.cdiv(m, bm) * triton.cdiv(f, bn),)](
        x, w_gate, w_up, h, m, f, d, x.stride(0), w_gate.stride(0), w_up.stride(0),
        BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, num_warps=warps, num_stages=stages)
    bm, bn, bk, warps, stages = down
    mlp_down_kernel[(triton.cdiv(m, bm) * triton.cdiv(d, bn),)](
        h, w_down, y, m, d, f, w_down.stride(0),
        BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, num_warps=warps, num_stages=stages)
    ### END SOLUTION


# %% [markdown]
# ### CUDA C: exercise 1's pipeline, gate and up rows in one tile
#
# Both kernels are exercise 1's pipelined block: `STAGES` buffers of padded K tiles that
# `__pipeline_memcpy_async` fills `STAGES - 1` tiles ahead, one `__syncthreads()` per K tile,
# two register sets of operand fragments, one block for decode and one for prefill. Write it
# once, as a template with one more argument than exercise 1's,
# `template <int BM, int BN, int WARPS_M, int WARPS_N, int BK, int STAGES, bool GATE_UP>
# mlp_tile(a, b, b2, c, m, n, k, stride_am, stride_b, stride_b2)`: the block's tile of
# `c = a · bᵀ` (the down kernel: `a` = `h`, `b` = `w_down`, `b2` unused), or with `GATE_UP`
# the block's tile of `h` from `a` = `x`, `b` = `w_gate` and `b2` = `w_up`. Four kernels
# instantiate it (given), and the launcher picks two by `m`:
#
# | kernel | `m` | rows of `b`'s tile | tile of the output | warps (each) | `BK` | `STAGES` | shared memory |
# |---|---|---|---|---|---|---|---|
# | `mlp_gate_up_kernel_decode` | ≤ 128 | 64 (32 + 32) | 64 × 32 of `h` | 4 = 2 × 2 (32 × 32) | 64 | 4 | 73 728 bytes |
# | `mlp_down_kernel_decode` | ≤ 128 | 32 | 64 × 32 of `y` | 4 = 2 × 2 (32 × 16) | 128 | 4 | 104 448 bytes |
# | `mlp_gate_up_kernel_prefill` | > 128 | 256 (128 + 128) | 128 × 128 of `h` | 8 = 2 × 4 (64 × 64) | 32 | 4 | 122 880 bytes |
# | `mlp_down_kernel_prefill` | > 128 | 256 | 128 × 256 of `y` | 8 = 2 × 4 (64 × 64) | 32 | 4 | 122 880 bytes |
#
# Decode: 344 gate/up blocks at `f = 11008`, three to an SM (73 728 bytes each), so that all of
# them run at once on an H100's 132 SMs; 128 down blocks at `d = 4096`, exercise 1's decode
# block (its K loop runs over `f`). Prefill: exercise 1's prefill block for both.
#
# **One tile of `b` for two weights.** The gate/up block computes both products of its tile of
# `h` in one pass over `x`'s K tiles, from one shared tile of `BN` weight rows: rows of
# `w_gate` and `w_up` **in turns of 16**. Tile rows `32 j` to `32 j + 15` are rows `col0 + 16 j`
# to `col0 + 16 j + 15` of `w_gate`, tile rows `32 j + 16` to `32 j + 31` the same rows of
# `w_up` (`col0`: the tile's first column of `h`; a tile is `BN / 2` columns of `h`). A warp's
# piece of the product is `WN` = 32 or 64 rows of that tile, so its `matrix_b` fragments come in
# pairs, `2 p` from `w_gate` and `2 p + 1` from `w_up`, for the same 16 columns of `h`, and so
# do its accumulators: `acc[i][2 p]` sums `g`, `acc[i][2 p + 1]` sums `u`, of the same 16 × 16
# elements. The K loop is exercise 1's, unchanged: only the copies (which row goes where) and
# the epilogue know about the pairs. `x`'s tile is loaded once for both products; the block
# fetches `BM + BN` rows per K tile for `BM × BN` products, as one GEMM twice as wide.
#
# **The epilogue in registers.** Which element of a 16 × 16 tile a lane's `acc.x[e]` holds is
# unspecified, but it is the same in two fragments of the same type: element `e` of
# `acc[i][2 p]` and element `e` of `acc[i][2 p + 1]` are `g` and `u` of one element of `h`. So
# SiLU and the product run on the registers, `acc[i][2 p].x[e] = silu_mul(acc[i][2 p].x[e],
# acc[i][2 p + 1].x[e])` for every `e` below `acc[i][2 p].num_elements`, in float32, and only
# that fragment goes through the warp's scratch tile to `h`, each value rounded once, as
# exercise 1's `y`: at rows `row0 + wr + 16 i`, columns `col0 + wc / 2 + 16 p` (`wc`: the warp's
# first row of `b`'s tile). `silu_mul(g, u) = __fdividef(g, 1.0f + __expf(-g)) * u`, with
# exercise 1's intrinsics: for `g` below about -88, `exp(-g)` is infinite and the quotient
# `-0`, SiLU's limit. The down kernel's epilogue only rounds.
#
# **Who copies what.** Exercise 1's `issue_k_tile` with a template argument `PAIRED` and a second
# matrix. Thread `t` copies pieces of tile rows `r = t / TPR`, `r + PASS`, `r + 2 PASS`, …, and
# in a paired tile `PASS` must be a multiple of 32 (`TPR` at most `THREADS / 32`, 4 or 8 here):
# then a thread's rows are all `w_gate`'s or all `w_up`'s. It picks its matrix and stride once
# (`r / 16` even: the first), its first row of it, `row0 + (r / 32) · 16 + r % 16`, and steps
# `PASS / 2` rows of it per pass; rows at or past `f` are zeros, as past `m` or `k`.
#
# **bfloat16 fragments on a GPU.** nvcc 13 writes `load_matrix_sync` of a `__nv_bfloat16`
# fragment as a generic `wmma.load` (no `.shared`), which becomes four 32-bit loads a fragment
# where a shared one is one `ldmatrix`: the K loop at half speed. The given
# `load_shared(frag, ptr, ldm)` is the same call with the state space written out (inline
# PTX, on a GPU only: `#if defined(__CUDA_ARCH__)`), and `load_matrix_sync` itself without one.
# Load every operand fragment through it.
#
# **Rows that are not 16-byte aligned** (`w_gate`'s padded by 3, `w_down`'s by 5, `d` or `f` not
# a multiple of 8): exercise 1's `vec` test, for each kernel on its own operands (`x`, `w_gate`,
# `w_up`; `h`, whose rows are `f` apart, and `w_down`), then element-wise copies. Every shape
# checked without a GPU has `m` ≤ 128 but two (130 and 136 rows, graded only), which run the
# prefill kernels.
#
# <details><summary>Hint 1 — from exercise 1's block</summary>
#
# Start from `linear_gelu_tile` and change what the pairs change. The tile of the output has
# `CN = GATE_UP ? BN / 2 : BN` columns: `tiles_n = (n + CN - 1) / CN` and `col0 = … * CN` in
# the grouped numbering (`n` is `f` for the gate/up kernels). The `vec` test checks `a`, `b`
# and `b2` (the down kernels pass `w_down` twice). `issue` fills `as[buf]` from `a` (one
# matrix) and `bs[buf]` from `b` and `b2` (`PAIRED` = `GATE_UP`, rows from `col0`, `n` of
# them). Every `wmma::load_matrix_sync` of an operand becomes `load_shared`. The loop itself,
# the prologue and the last wait and barrier are exercise 1's. `static_assert(!GATE_UP || WN %
# 32 == 0)`: a warp's fragments come in whole pairs.
# </details>
#
# <details><summary>Hint 2 — who copies what</summary>
#
# `template <int ROWS, int BK, int THREADS, bool PAIRED> issue_k_tile(tile, b0, stride0, b1,
# stride1, row0, rows, k0, k, vec)`. After exercise 1's `r`, `q`, `TPR` and `PASS`:
# `const bool second = PAIRED && r / 16 % 2 == 1;`, the matrix `second ? b1 : b0` and its
# stride, the thread's first row of it `PAIRED ? row0 + r / 32 * 16 + r % 16 : row0 + r`, and
# `STEP = PAIRED ? PASS / 2 : PASS`. Pass `p` writes tile row `r + p * PASS` from matrix row
# `first + p * STEP`, inside where that row is below `rows` (and, piece by piece, `kk < k`);
# the source row pointer `matrix + (long long)from * stride`. A zero fill copies from `matrix`
# (never read). `static_assert(!PAIRED || PASS % 32 == 0)`.
# </details>
#
# <details><summary>Hint 3 — the epilogue</summary>
#
# After the loop's last `__syncthreads()`: `if (GATE_UP)`, for each `i` and each even `j`,
# `acc[i][j].x[e] = silu_mul(acc[i][j].x[e], acc[i][j + 1].x[e])` for `e` below
# `acc[i][j].num_elements`. Then exercise 1's store loop with `j += GATE_UP ? 2 : 1` and
# `fcol = GATE_UP ? col0 + wc / 2 + 8 * j : col0 + wc + 16 * j` (for even `j`, `8 j` is
# `16 p`): store `acc[i][j]` to the warp's scratch tile, `__syncwarp()`, two `float4` reads,
# `pack` them in pairs into one 16-byte store where `wide`, one `__float2bfloat16_rn` each
# otherwise, `__syncwarp()`. Wrong on most elements by a lot: SiLU of `u` (the pair's order
# swapped), or of `g * u`.
# </details>
#
# <details><summary>Hint 4 — the launcher, and the checks' messages</summary>
#
# `m <= 128`: the decode kernels, `block=(128, 1, 1)`; otherwise the prefill ones,
# `block=(256, 1, 1)`. The gate/up kernel: `grid=(cdiv(m, BM) * cdiv(f, BN // 2), 1)`; the
# down kernel: `grid=(cdiv(m, BM) * cdiv(d, BN), 1)`; each `shared=STAGES * (BM + BN) * (BK +
# 8) * 2`, its own constants. `h` from `torch.empty((m, f), dtype=torch.bfloat16,
# device=x.device)`, passed as `np.uintp(h.data_ptr())` to both. "Depends on thread order": the
# K loop's `__syncthreads()` missing (shapes with more than one K tile: `d` or `f` past `BK`).
# Wrong where only `w_down`'s rows are padded by 5: the down kernel's `vec` true for rows that
# are not 16-byte aligned (on the GPU; without one, "`__pipeline_memcpy_async` ... is not
# aligned").
# </details>

# %% nbgrader={"grade": false, "grade_id": "mlp_cu", "locked": false, "schema_version": 3, "solution": true}
MLP_CU = r"""
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// Two floats rounded to a pair of bfloat16s, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

// A bfloat16 operand fragment from shared memory: load_matrix_sync, with its state space written
// out on a GPU. nvcc 13 writes load_matrix_sync's bfloat16 wmma.load without one (generic), and
// a generic wmma.load becomes four 32-bit loads a fragment where a .shared one is one ldmatrix:
// the K loop at half speed. The same instruction with .shared, the fragment's four registers
// passed as <mma.h> passes them. Without a GPU (no __CUDA_ARCH__), load_matrix_sync itself.
template <class Frag>
__device__ __forceinline__ void load_shared(Frag &f, const __nv_bfloat16 *p, unsigned ldm)
{
    wmma::load_matrix_sync(f, p, ldm);
}
#if defined(__CUDA_ARCH__)
__device__ __forceinline__ void load_shared(
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> &f,
    const __nv_bfloat16 *p, unsigned ldm)
{
    unsigned *r = reinterpret_cast<unsigned *>(&f);
    const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at), "r"(ldm));
}
__device__ __forceinline__ void load_shared(
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> &f,
    const __nv_bfloat16 *p, unsigned ldm)
{
    unsigned *r = reinterpret_cast<unsigned *>(&f);
    const unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(p));
    asm volatile("wmma.load.b.sync.aligned.col.m16n16k16.shared.bf16 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at), "r"(ldm));
}
#endif

#define PAD 8      // bfloat16s (16 bytes) added to each row of a shared K tile
#define GROUP_M 8  // tile rows per group of the numbering

/// BEGIN SOLUTION
// One element of h from its two float32 sums: SiLU of the gate times the up product,
// g / (1 + exp(-g)) * u. __expf and __fdividef, as exercise 1's GELU: fewer instructions than
// expf and an IEEE `/` (whose slow path is a called subroutine, registers saved around it where
// the prefill kernel has none to spare), errors of a few float32 ulp, far below bfloat16's half
// ulp. For g below about -88, exp(-g) is infinite and __fdividef returns -0, SiLU's limit.
__device__ __forceinline__ float silu_mul(float g, float u)
{
    return __fdividef(g, 1.0f + __expf(-g)) * u;
}

// This thread's share of one K tile of ROWS rows, columns k0 .. k0 + BK - 1, into tile[r][c],
// zeros past the matrix. In 16-byte pieces of 8 elements: TPR threads share a row (its pieces,
// up to 8, as exercise 1; up to THREADS / 32 when PAIRED, so that a pass is 32 rows or more;
// more where the tile has fewer rows than THREADS / TPR), thread t taking pieces t % TPR,
// t % TPR + TPR, ... of tile row t / TPR and of every PASS-th row after it. Where the tile's
// rows come from:
//   - one matrix (PAIRED false): tile row r is row row0 + r of b0;
//   - two (PAIRED, the gate/up kernel's B tile), 16 rows of each in turn: tile rows 32 j ..
//     32 j + 15 are rows row0 + 16 j .. row0 + 16 j + 15 of b0 (w_gate), tile rows 32 j + 16 ..
//     32 j + 31 the same rows of b1 (w_up). PASS is a multiple of 32, so a thread's rows are all
//     b0's or all b1's, PASS / 2 rows apart in it.
// Rows at or past `rows` are zeros. vec: one cp.async a piece (each aligned and wholly inside or
// outside the matrix); otherwise plain loads and stores, element by element.
template <int ROWS, int BK, int THREADS, bool PAIRED>
__device__ __forceinline__ void issue_k_tile(__nv_bfloat16 (*tile)[BK + PAD],
                                             const __nv_bfloat16 *__restrict__ b0, int stride0,
                                             const __nv_bfloat16 *__restrict__ b1, int stride1,
                                             int row0, int rows, int k0, int k, bool vec)
{
    constexpr int PIECES = BK / 8;                                // pieces in a row of the tile
    // A row's pieces, up to 8 and to as many as leave a pass 32 rows when PAIRED.
    constexpr int CAP = PAIRED && THREADS / 32 < 8 ? THREADS / 32 : 8;
    constexpr int WIDE = PIECES < CAP ? PIECES : CAP;
    constexpr int TPR = THREADS / ROWS > WIDE ? THREADS / ROWS : WIDE;  // threads sharing a row
    constexpr int PASS = THREADS / TPR;  // rows the block copies at once
    constexpr int STEP = PAIRED ? PASS / 2 : PASS;  // rows of the matrix between two passes
    static_assert(PIECES % TPR == 0 && ROWS % PASS == 0, "each thread: whole pieces, whole passes");
    static_assert(!PAIRED || PASS % 32 == 0, "a thread's rows all come from one matrix");
    const int r = threadIdx.x / TPR, q = threadIdx.x % TPR;
    const bool second = PAIRED && r / 16 % 2 == 1;  // this thread's rows are b1's
    const __nv_bfloat16 *matrix = second ? b1 : b0;
    const int stride = second ? stride1 : stride0;
    const int first = PAIRED ? row0 + r / 32 * 16 + r % 16 : row0 + r;  // its first row there
#pragma unroll
    for (int p = 0; p < ROWS / PASS; ++p) {
        const int row = r + p * PASS;       // in the tile
        const int from = first + p * STEP;  // in the matrix
        const bool row_in = from < rows;
        const __nv_bfloat16 *src = matrix + (long long)from * stride;  // 64-bit offset
#pragma unroll
        for (int g = 0; g < PIECES / TPR; ++g) {
            const int c = 8 * (q + g * TPR), kk = k0 + c;  // the piece's first column: tile, matrix
            if (vec) {  // outside: a copy of 0 bytes that fills 16 with zeros (source never read)
                const bool inside = row_in && kk < k;
                __pipeline_memcpy_async(&tile[row][c], inside ? src + kk : matrix, 16,
                                        inside ? 0 : 16);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e)
                    tile[row][c + e] = row_in && kk + e < k ? src[kk + e] : __float2bfloat16(0.0f);
            }
        }
    }
}
/// END SOLUTION

// One block's tile of c = a b^T (k-contiguous a and b, as nn.Linear's): WARPS_M x WARPS_N warps,
// each a (BM / WARPS_M) x (BN / WARPS_N) piece of the BM x BN product; K tiles BK deep, STAGES
// buffers of them in dynamic shared memory (STAGES x (BM + BN) x (BK + PAD) bfloat16s, `shared=`
// in the launcher). GATE_UP: the BN rows of b's tile are rows of b (w_gate) and b2 (w_up), 16 of
// each in turn, and the block stores BM x BN / 2 elements of h = silu(x w_gate^T) * (x w_up^T);
// otherwise b2 is unused and the block stores BM x BN elements of c = a b^T.
template <int BM, int BN, int WARPS_M, int WARPS_N, int BK, int STAGES, bool GATE_UP>
__device__ __forceinline__ void
mlp_tile(const __nv_bfloat16 *__restrict__ a,   // m x k: x or h, rows stride_am apart
         const __nv_bfloat16 *__restrict__ b,   // n x k: w_gate or w_down, stride_b apart
         const __nv_bfloat16 *__restrict__ b2,  // n x k: w_up (GATE_UP), stride_b2 apart
         __nv_bfloat16 *__restrict__ c,         // m x n: h or y, contiguous
         int m,                                 // rows of a and c
         int n,                                 // rows of b (and b2), columns of c
         int k,                                 // columns of a and b
         int stride_am,                         // elements between rows of a
         int stride_b,                          // ... of b
         int stride_b2)                         // ... of b2
{
    /// BEGIN SOLUTION
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's piece of the tile
    constexpr int FM = WM / 16, FN = WN / 16;            // its fragments, down and across
    constexpr int SLICES = BK / 16;                      // 16-deep slices of a K tile
    constexpr int LDM = BK + PAD;                        // elements between rows of a K tile
    constexpr int CN = GATE_UP ? BN / 2 : BN;            // columns of c per tile
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp's piece is whole fragments");
    static_assert(SLICES % 2 == 0, "slice 0 of every K tile goes to register set 0");
    static_assert(!GATE_UP || WN % 32 == 0, "a warp's fragments of b come in (gate, up) pairs");

    // STAGES buffers of each K tile, row by row: as[buf][r][kk] = a[row0 + r][k0 + kk] and
    // bs[buf][j][kk], row j of b's tile. A fragment at row 16 i, column 16 s starts a multiple of
    // 32 bytes in, ldm LDM; the padding puts the 8 rows that a fragment load reads 16 bytes of
    // at a time in 8 different groups of 4 banks. The epilogue's scratch tiles (a 16 x 16 float
    // tile per warp) reuse the start of smem.
    extern __shared__ __align__(128) unsigned char smem[];
    __nv_bfloat16(*as)[BM][LDM] = reinterpret_cast<__nv_bfloat16(*)[BM][LDM]>(smem);
    __nv_bfloat16(*bs)[BN][LDM] = reinterpret_cast<__nv_bfloat16(*)[BN][LDM]>(as + STAGES);
    float(*scratch)[16 * 16] = reinterpret_cast<float(*)[16 * 16]>(smem);

    // The tile of c, numbered in groups of GROUP_M tile rows (shared tiles of a and b in L2).
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + CN - 1) / CN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * CN;  // c's first column
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N * WM, wc = warp % WARPS_N * WN;  // the warp's piece

    // 16-byte copies where every piece is aligned and wholly inside or outside its matrix (the
    // same for all threads); element by element otherwise.
    const bool vec = k % 8 == 0 && stride_am % 8 == 0 && stride_b % 8 == 0 &&
                     stride_b2 % 8 == 0 && reinterpret_cast<size_t>(a) % 16 == 0 &&
                     reinterpret_cast<size_t>(b) % 16 == 0 &&
                     reinterpret_cast<size_t>(b2) % 16 == 0;
    auto issue = [&](int buf, int k0) {  // start the copies of the K tile at k0 into buffer buf
        issue_k_tile<BM, BK, THREADS, false>(as[buf], a, stride_am, a, stride_am, row0, m, k0, k,
                                             vec);
        issue_k_tile<BN, BK, THREADS, GATE_UP>(bs[buf], b, stride_b, b2, stride_b2, col0, n, k0,
                                               k, vec);
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    // Two register sets of operand fragments: the products of one slice run while the
    // fragments of the next slice are loaded into the other set.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2][FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[2][FN];
    auto load = [&](int set, int buf, int s) {  // the fragments of slice s of buffer buf
#pragma unroll
        for (int i = 0; i < FM; ++i) load_shared(fa[set][i], &as[buf][wr + 16 * i][16 * s], LDM);
#pragma unroll
        for (int j = 0; j < FN; ++j) load_shared(fb[set][j], &bs[buf][wc + 16 * j][16 * s], LDM);
    };

    // Exercise 1's pipeline: STAGES - 1 K tiles in flight ahead of the one multiplied (tiles
    // past k too, all zero fill), one barrier per K tile before its last slice.
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
        const int next = buf + 1 == STAGES ? 0 : buf + 1;    // tile t + 1's
        const int refill = buf == 0 ? STAGES - 1 : buf - 1;  // tile t - 1's, now free
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
            if (s == SLICES - 1) {
                __pipeline_wait_prior(STAGES - 2);  // tile t + 1 has landed (this thread's)
                __syncthreads();  // ... every thread's; every warp is done loading tile t
            }
            if (s == 0) {
                issue(refill, (t + STAGES - 1) * BK);
                __pipeline_commit();
            }
            if (s + 1 < SLICES)  // slice s + 1 into the other register set...
                load((s + 1) % 2, buf, s + 1);
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

    // GATE_UP: fragments 2 p and 2 p + 1 are g and u of the same 16 x 16 elements of h, in
    // fragments of one type: element e of one and element e of the other are the same element
    // of h, whatever the register layout is. SiLU and the product in float32, in registers; the
    // result replaces g.
    if (GATE_UP) {
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; j += 2)
#pragma unroll
                for (int e = 0; e < acc[i][j].num_elements; ++e)
                    acc[i][j].x[e] = silu_mul(acc[i][j].x[e], acc[i][j + 1].x[e]);
    }

    // Epilogue: float accumulator -> scratch tile -> 8 elements per lane, each rounded once to
    // bfloat16; one 16-byte store where every row of c starts on a 16-byte boundary (8 columns
    // from a multiple of 8 then end inside c or at its edge).
    const bool wide = n % 8 == 0 && reinterpret_cast<size_t>(c) % 16 == 0;
    float *mine = scratch[warp];
    const int r = lane / 2, half = lane % 2 * 8;  // row r of a fragment, columns half ..
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; j += GATE_UP ? 2 : 1) {
            // GATE_UP: the pair j = 2 p holds columns wc / 2 + 16 p of the tile.
            const int frow = row0 + wr + 16 * i;
            const int fcol = GATE_UP ? col0 + wc / 2 + 8 * j : col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past c
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const float4 lo = *reinterpret_cast<const float4 *>(mine + r * 16 + half);
            const float4 hi = *reinterpret_cast<const float4 *>(mine + r * 16 + half + 4);
            const int row = frow + r, col = fcol + half;
            if (row < m) {
                __nv_bfloat16 *out = c + (long long)row * n + fcol;  // the fragment's row
                if (wide) {
                    if (col < n)  // indexed as uint4s (nvcc 13 split `*(uint4 *)(out + half)`)
                        reinterpret_cast<uint4 *>(out)[lane % 2] = make_uint4(
                            pack(lo.x, lo.y), pack(lo.z, lo.w), pack(hi.x, hi.y), pack(hi.z, hi.w));
                } else {
                    const float v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
                    for (int q = 0; q < 8; ++q)
                        if (col + q < n) out[half + q] = __float2bfloat16_rn(v[q]);
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
    /// END SOLUTION
}

// Decode (m <= 128): the read of the weights is the time. Gate/up: B tiles of 64 rows (32 of
// w_gate, 32 of w_up: 64 x 32 tiles of h, 344 blocks at f = 11008), 4 warps of 32 x 32, K tiles
// 64 deep: 4 x (64 + 64) x 72 bfloat16s = 73728 bytes, so that 3 blocks fit an SM and all 344
// run at once on an H100's 132 SMs. Down: exercise 1's decode block, 64 x 32 tiles of y (128
// blocks at d = 4096), K tiles 128 deep (the loop runs over f): 104448 bytes.
extern "C" __global__ void __launch_bounds__(128, 1)
mlp_gate_up_kernel_decode(const __nv_bfloat16 *__restrict__ x,
                          const __nv_bfloat16 *__restrict__ w_gate,
                          const __nv_bfloat16 *__restrict__ w_up, __nv_bfloat16 *__restrict__ h,
                          int m, int f, int d, int stride_xm, int stride_gate, int stride_up)
{
    mlp_tile<64, 64, 2, 2, 64, 4, true>(x, w_gate, w_up, h, m, f, d, stride_xm, stride_gate,
                                        stride_up);
}

extern "C" __global__ void __launch_bounds__(128, 1)
mlp_down_kernel_decode(const __nv_bfloat16 *__restrict__ h,
                       const __nv_bfloat16 *__restrict__ w_down, __nv_bfloat16 *__restrict__ y,
                       int m, int d, int f, int stride_down)
{
    mlp_tile<64, 32, 2, 2, 128, 4, false>(h, w_down, w_down, y, m, d, f, f, stride_down,
                                          stride_down);
}

// Prefill (m > 128): the multiply-adds are the time. Exercise 1's prefill block for both: 8 warps
// of 64 x 64 (4 x 4 accumulator fragments), K tiles 32 deep, 4 buffers: 4 x (128 + 256) x 40
// bfloat16s = 122880 bytes, 1 block per SM (up to 255 registers a thread). Gate/up: 256 rows of
// B (128 of each weight), 128 x 128 tiles of h; down: 128 x 256 tiles of y.
extern "C" __global__ void __launch_bounds__(256, 1)
mlp_gate_up_kernel_prefill(const __nv_bfloat16 *__restrict__ x,
                           const __nv_bfloat16 *__restrict__ w_gate,
                           const __nv_bfloat16 *__restrict__ w_up, __nv_bfloat16 *__restrict__ h,
                           int m, int f, int d, int stride_xm, int stride_gate, int stride_up)
{
    mlp_tile<128, 256, 2, 4, 32, 4, true>(x, w_gate, w_up, h, m, f, d, stride_xm, stride_gate,
                                          stride_up);
}

extern "C" __global__ void __launch_bounds__(256, 1)
mlp_down_kernel_prefill(const __nv_bfloat16 *__restrict__ h,
                        const __nv_bfloat16 *__restrict__ w_down, __nv_bfloat16 *__restrict__ y,
                        int m, int d, int f, int stride_down)
{
    mlp_tile<128, 256, 2, 4, 32, 4, false>(h, w_down, w_down, y, m, d, f, f, stride_down,
                                           stride_down);
}
"""

# %% nbgrader={"grade": false, "grade_id": "mlp_cuda", "locked": false, "schema_version": 3, "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
mlp_module = SourceModule(MLP_CU, no_extern_c=True)
mlp_gate_up_kernel_decode_cu = mlp_module.get_function("mlp_gate_up_kernel_decode")
mlp_gate_up_kernel_prefill_cu = mlp_module.get_function("mlp_gate_up_kernel_prefill")
mlp_down_kernel_decode_cu = mlp_module.get_function("mlp_down_kernel_decode")
mlp_down_kernel_prefill_cu = mlp_module.get_function("mlp_down_kernel_prefill")


def mlp_cuda(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
             y: torch.Tensor) -> None:
    """y = (silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T in bfloat16: h (m x f, bfloat16) from
    mlp_gate_up_kernel_decode_cu or _prefill_cu, then y from mlp_down_kernel_decode_cu or
    _prefill_cu: the decode kernels where m <= 128, the prefill ones above.

    Pass the arguments in each kernel's order, as C types: each tensor as
    np.uintp(t.data_ptr()), each int as np.int32(...); then block=(threads, 1, 1),
    grid=(tiles, 1) and shared= the bytes of the kernel's dynamic shared memory.
    """
    ### BEGIN SOLUTION
    m, d = x.shape
    f = w_gate.shape[0]
    assert w_gate.shape == w_up.shape == (f, d) and w_down.shape == (d, f) and y.shape == (m, d), \
        (f"shapes do not chain: x {tuple(x.shape)}, w_gate {tuple(w_gate.shape)}, "
         f"w_up {tuple(w_up.shape)}, w_down {tuple(w_down.shape)}, y {tuple(y.shape)}")
    assert all(t.stride(1) == 1 for t in (x, w_gate, w_up, w_down)) and y.is_contiguous(), \
        "rows must be contiguous"
    h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)  # written once, read once
    # Each kernel's template arguments in MLP_CU: BM, BN (rows of b's tile), threads (32 per
    # warp), BK, STAGES.
    if m <= 128:  # decode: the read of the weights dominates
        gate_up, down = mlp_gate_up_kernel_decode_cu, mlp_down_kernel_decode_cu
        gate_up_tile, down_tile = (64, 64, 128, 64, 4), (64, 32, 128, 128, 4)
    else:  # prefill: the multiply-adds dominate
        gate_up, down = mlp_gate_up_kernel_prefill_cu, mlp_down_kernel_prefill_cu
        gate_up_tile = down_tile = (128, 256, 256, 32, 4)
    bm, bn, threads, bk, stages = gate_up_tile
    tiles = triton.cdiv(m, bm) * triton.cdiv(f, bn // 2)  # BN / 2 columns of h a tile
    assert tiles < 2**31, f"{tiles} tiles of h: gridDim.x <= 2^31 - 1"
    gate_up(
        np.uintp(x.data_ptr()),
        np.uintp(w_gate.data_ptr()),
        np.uintp(w_up.data_ptr()),
        np.uintp(h.data_ptr()),
        np.int32(m),
        np.int32(f),
        np.int32(d),
        np.int32(x.stride(0)),
        np.int32(w_gate.stride(0)),
        np.int32(w_up.stride(0)),
        block=(threads, 1, 1),
        grid=(tiles, 1),
        shared=stages * (bm + bn) * (bk + 8) * 2,  # bytes: STAGES buffers of as and bs, PAD = 8
    )
    bm, bn, threads, bk, stages = down_tile
    tiles = triton.cdiv(m, bm) * triton.cdiv(d, bn)
    assert tiles < 2**31, f"{tiles} tiles of y: gridDim.x <= 2^31 - 1"
    down(
        np.uintp(h.data_ptr()),
        np.uintp(w_down.data_ptr()),
        np.uintp(y.data_ptr()),
        np.int32(m),
        np.int32(d),
        np.int32(f),
        np.int32(w_down.stride(0)),
        block=(threads, 1, 1),
        grid=(tiles, 1),
        shared=stages * (bm + bn) * (bk + 8) * 2,
    )
    ### END SOLUTION


# %% [markdown]
# ### Check mlp
#
# Shapes: one fragment (16³), whole K tiles in both GEMMs (32 × 64 × 64), tails everywhere
# (17 × 40 × 33), `h` two column tiles wide (`f` = 72), padded rows of `x`. A failure names the
# shape (`m`, `d`, `f`) and the first wrong elements of `y` by `[row, col]`.

# %% nbgrader={"grade": true, "grade_id": "test_mlp_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", mlp_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", mlp_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_mlp_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", mlp_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", mlp_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast is mlp?
#
# On a GPU, `bench` times your launcher against eager torch's five kernels (three cuBLAS GEMMs,
# `F.silu`, the product), in TFLOP/s of the three GEMMs' `6 m d f`, at Llama-7B's widths: a
# decode-like batch (64 tokens, bound by the 271 MB of weights) and a prefill-like one (4096
# tokens, bound by the tensor cores); the sweep goes from 16 to 4096 tokens. Without a GPU it
# says "skipped: needs a GPU". On an H100 (2026-12-06) the Triton reference ran 1.08x eager
# torch at decode (1.06x in the latest run) and, with pointer loads, 0.88x at prefill; through
# the persistent TMA kernel (exercise 1's) with two 128-column `tl.dot`s, 0.94x; with gate and
# up read as one weight, one 256-column `tl.dot`, 1.12x (803 TFLOP/s against 715).
#
# The CUDA kernels' time is exercise 1's GEMM's, twice: at decode the read of the weights
# (two thirds of it in the gate/up kernel, which fetches `w_gate` and `w_up` as one matrix
# twice as tall), at prefill the multiply-adds, the pairs costing the gate/up block nothing in
# its K loop. (Not measured yet on the course GPU.)

# %% nbgrader={"grade": true, "grade_id": "perf_mlp_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", mlp_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", mlp_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_mlp_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", mlp_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", mlp_cuda, graded=True)
### END HIDDEN TESTS
