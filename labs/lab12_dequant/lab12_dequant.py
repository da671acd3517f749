# %% [markdown]
# # Lab 12 — Weight dequantization: int8 and packed int4 to bfloat16, in Triton and in CUDA C
#
# A language model that writes one token at a time multiplies each weight matrix by a single
# vector (or a handful of them): every weight is read from memory once per token and takes
# part in two floating-point operations. The GPU's arithmetic units are idle most of the time;
# the time per token is **the number of bytes the weights occupy** divided by the memory
# bandwidth. Fewer bytes per weight, faster tokens (and a model that fits in fewer GPUs):
#
# | format | bytes per weight | relative to bfloat16 |
# |---|---|---|
# | bfloat16 | 2 | 1 |
# | int8, one bfloat16 scale per row of `cols` weights | 1 + 2 / `cols` | ≈ 1/2 |
# | int4, two per byte, one bfloat16 scale per 128 weights | 1/2 + 2/128 = 0.516 | ≈ 1/3.9 |
#
# The weights are stored as small integers and a **scale**: the real weight is
# `integer × scale`. Turning them back into bfloat16 is **dequantization**, and it is the
# inner loop of every quantized inference kernel. Production kernels dequantize inside the
# matrix multiplication, in registers, and never write the bfloat16 weights back. Here you
# write them out, so that every element can be checked and the unpacking timed on its own:
# a standalone dequantization moves more bytes than it saves (int4 to bfloat16 reads 0.52
# bytes and writes 2 per weight), and its speed is that of a copy whose input is a quarter
# of its output.
#
# **What you will learn**
# - **Per-channel scales** (exercise 1, the warm-up): int8 weights, one scale per row.
# - **Packing** (exercise 2): two 4-bit weights in one byte, the even element in the low
#   nibble (bits 0–3), the odd one in the high nibble (bits 4–7). Shifts and masks.
# - **The offset**: a nibble `n` (0 to 15) stands for `n - 8` (−8 to 7). That is *not* the
#   two's complement reading of 4 bits, where `0xF` would be −1.
# - **Group-wise scales**: one scale per 128 consecutive weights of a row, `scale[row, col // 128]`:
#   finer than one per row, so one large weight spoils the precision of 127 others only.
# - **What a thread should move**: a few packed bytes in one load and bfloat16 *pairs* out
#   (each packed byte becomes one 4-byte pair) in one 16-byte store, why the stores decide,
#   and why one byte per thread is slow.
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | bytes in, integers in registers | `tl.load(p)` of a `uint8` pointer gives `tl.uint8`; widen with `.to(tl.int32)` before subtracting (`uint8` arithmetic wraps at 256) | `unsigned char b = packed[i];` C promotes `b` to `int` in `b - 8` by itself |
# | int8 weights | `tl.load(w_ptr + …)` gives `tl.int8`; `.to(tl.float32)` | `const signed char *` (plain `char` may be unsigned) |
# | low / high nibble | `b & 0xF`, `b >> 4` | the same |
# | the offset | `(b & 0xF) - 8` on `int32` | `(b & 0xF) - 8` |
# | even and odd elements back in order | `tl.interleave(lo, hi)`: two `[…, n]` tensors become `[…, 2n]`, `lo0 hi0 lo1 hi1 …` (`tl.join(lo, hi)` gives `[…, n, 2]`) | one packed byte is one `__nv_bfloat162` pair: `__floats2bfloat162_rn(lo * s, hi * s)`, `.x` the even element |
# | one scale per row | `tl.load(scale_ptr + row)`: a scalar, broadcast | `scale[row]`, the same for every thread of the row |
# | one scale per group of 128 | `scale_ptr + row * stride_sr + col // 128` | the same, in `size_t` |
# | 16 bytes per load | automatic for contiguous bytes Triton can prove 16-byte aligned (it specialises integer arguments divisible by 16, such as a row stride) | `uint4 v = *reinterpret_cast<const uint4 *>(p);` then a byte view of `v` |
# | float32 math, one rounding | `(w * s).to(out_ptr.dtype.element_ty)` | `__float2bfloat16_rn`, `__floats2bfloat162_rn` |
# | 64-bit offsets | `tl.program_id(0).to(tl.int64)` before `row * stride` | `(size_t)row * stride` |
#
# **What you write**, for each exercise: a Triton kernel and its launcher, a CUDA C kernel (in
# a source string) and its launcher. Launchers receive `out` already allocated: write into it.
# 1. `dequant_int8`: `w` int8 `[rows, cols]`, `scale` bfloat16 `[rows]` → `out` bfloat16
#    `[rows, cols]` = `w * scale[row]`.
# 2. `dequant_int4`: `packed` uint8 `[rows, cols / 2]`, `scale` bfloat16 `[rows, cols / 128]` →
#    `out` bfloat16 `[rows, cols]` = `(nibble - 8) * scale[row, col // 128]`.
#
# **How you are graded**: correctness on many shapes you do not see (one weight, odd widths,
# padded rows, many groups per row), fresh random weights every time; on a GPU, the
# bandwidth of each kernel against a reference kernel. Without a GPU, Triton runs in its
# interpreter and CUDA C on the CPU: correctness only. Messages name the sizes as
# `torch.nn.Linear` names its weight: `out_features` (the rows) and `in_features` (the
# columns); int4 cases also show `in_bytes` (`cols / 2`, a packed row) and `groups`
# (`cols / 128`).
#
# **Precision.** `integer × scale` is exact in float32 (an int8 has 8 significant bits, a
# bfloat16 scale 8; the product at most 16 of float32's 24), so a correct kernel rounds once,
# at the end, and is within half a bfloat16 unit in the last place (ulp) of the exact value.
# The checks allow one ulp (relative error 2^-7 ≈ 7.8e-3), because Triton's CPU interpreter
# truncates when it converts float32 to bfloat16. Rounding *twice* (an intermediate result
# rounded to bfloat16, then used again) costs more than that on some elements, and fails.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab12_dequant"

# %% [markdown]
# ## Exercise 1 — int8 weights, one scale per row (warm-up)
#
# A symmetric per-channel quantizer stores row `r` of a weight matrix (one output channel) as
# int8 values `w[r, c]` in `[-128, 127]` and one bfloat16 `scale[r]`; the weight is
#
# ```
# out[r, c] = w[r, c] * scale[r]      (float32, rounded once to bfloat16)
# ```
#
# `w` may be a view with **padded rows**: row `r` starts at `w + r * w.stride(0)`, and
# `w.stride(0)` can exceed `cols` (a column slice of a wider matrix, say). `scale` and `out`
# are contiguous. The shapes include one weight, widths of 1 to 4097 and padded rows.
#
# ### Triton
#
# A 2-D grid: axis 0 is the row (Triton's axes 1 and 2 stop at 65535, and a model has more
# rows than that), axis 1 a block of `BLOCK_SIZE` columns of that row.

# %% nbgrader={"grade": false, "grade_id": "dequant_int8_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def dequant_int8_kernel(
    w_ptr,  # [rows, cols] int8, rows stride_wr apart
    scale_ptr,  # [rows] bfloat16: one scale per row
    out_ptr,  # [rows, cols] bfloat16, contiguous
    n_cols,  # cols
    stride_wr,  # elements between the starts of two rows of w: cols, or more if padded
    BLOCK_SIZE: tl.constexpr,  # columns per program
):
    ### BEGIN SOLUTION
    row = tl.program_id(axis=0).to(tl.int64)  # row * stride_wr can pass 2^31
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols  # the row's last block runs past its end
    w = tl.load(w_ptr + row * stride_wr + cols, mask=mask).to(tl.float32)
    s = tl.load(scale_ptr + row).to(tl.float32)  # a scalar: the same scale for the whole row
    # Exact in float32; the conversion at the store is the one rounding.
    tl.store(out_ptr + row * n_cols + cols, (w * s).to(out_ptr.dtype.element_ty), mask=mask)
    ### END SOLUTION


def dequant_int8_triton(w: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    """out[r, c] = w[r, c] * scale[r]: w int8 [rows, cols], scale and out bfloat16."""
    ### BEGIN SOLUTION
    rows, cols = out.shape
    assert w.shape == (rows, cols) and scale.shape == (rows,), \
        f"w {tuple(w.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert w.stride(1) == 1 and scale.is_contiguous() and out.is_contiguous(), \
        "rows must be contiguous columns"
    BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))  # not far above cols
    grid = (rows, triton.cdiv(cols, BLOCK_SIZE))
    dequant_int8_kernel[grid](w, scale, out, cols, w.stride(0), BLOCK_SIZE=BLOCK_SIZE,
                              num_warps=8 if BLOCK_SIZE >= 4096 else 4)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — which program does what</summary>
#
# `grid = (rows, triton.cdiv(cols, BLOCK_SIZE))`. In the kernel, `row = tl.program_id(0)`
# (converted with `.to(tl.int64)`) and `cols = tl.program_id(1) * BLOCK_SIZE +
# tl.arange(0, BLOCK_SIZE)`, masked with `cols < n_cols`.
# </details>
#
# <details><summary>Hint 2 — two addresses and a scalar</summary>
#
# The weights of the block: `w_ptr + row * stride_wr + cols` (pass `w.stride(0)`, never
# assume `cols`). The output: `out_ptr + row * n_cols + cols`. The scale: `tl.load(scale_ptr +
# row)`, one value, which multiplies every element of the block.
# </details>
#
# <details><summary>Hint 3 — the arithmetic</summary>
#
# Widen both to float32 (`.to(tl.float32)`), multiply, and convert once at the store:
# `.to(out_ptr.dtype.element_ty)`. Nothing else rounds.
# </details>
#
# ### CUDA C
#
# The same grid, `blockIdx.x` the row and `blockIdx.y * blockDim.x + threadIdx.x` the
# thread's **8 columns**: 8 int8 weights are one 8-byte load (`uint2`), and their 8 bfloat16
# one 16-byte store (`uint4`, seen as four `__nv_bfloat162` pairs). Those accesses need
# aligned addresses: every row of `w` starts 8-byte aligned only when `w.stride(0)` is a
# multiple of 8, and every row of `out` 16-byte aligned only when `cols` is. The launcher
# knows and passes `aligned` (0 or 1); otherwise the thread does its (up to) 8 columns one at
# a time. `<cuda_bf16.h>` is a C++ header: the cell compiles with `no_extern_c=True` and the
# kernel says `extern "C"` itself.

# %% nbgrader={"grade": false, "grade_id": "dequant_int8_cu", "locked": false, "schema_version": 3, "solution": true}
DEQUANT_INT8_CU = r"""
#include <cuda_bf16.h>  // __nv_bfloat16, __nv_bfloat162 and their conversions

extern "C" __global__ void dequant_int8_kernel(
    const signed char *__restrict__ w,        // [rows, cols] int8, rows stride_wr apart
    const __nv_bfloat16 *__restrict__ scale,  // [rows]: one scale per row
    __nv_bfloat16 *__restrict__ out,          // [rows, cols], contiguous
    int n_cols,                               // cols
    int stride_wr,                            // elements between the starts of two rows of w
    int aligned)                              // 1: 8-byte aligned w rows, 16-byte out rows
{
    /// BEGIN SOLUTION
    constexpr int PACK = 8;  // columns per thread: an 8-byte load, a 16-byte store
    const size_t row = blockIdx.x;
    const signed char *wr = w + row * stride_wr;  // size_t: row * stride_wr can pass 2^31
    __nv_bfloat16 *o = out + row * n_cols;
    const int c = (blockIdx.y * blockDim.x + threadIdx.x) * PACK;  // first of 8 columns
    if (c >= n_cols) return;  // the row's last block runs past its end
    const float s = __bfloat162float(scale[row]);
    if (aligned) {  // n_cols % 8 == 0: the 8 columns are whole
        const uint2 v = *reinterpret_cast<const uint2 *>(wr + c);
        const signed char *q = reinterpret_cast<const signed char *>(&v);  // its 8 weights
        uint4 r;
        __nv_bfloat162 *r2 = reinterpret_cast<__nv_bfloat162 *>(&r);
#pragma unroll
        for (int k = 0; k < PACK / 2; ++k) {  // exact products, one rounding per pair
            r2[k] = __floats2bfloat162_rn(q[2 * k] * s, q[2 * k + 1] * s);
        }
        *reinterpret_cast<uint4 *>(o + c) = r;
    } else {
        for (int k = c; k < min(c + PACK, n_cols); ++k) {  // the row's last 8 may be short
            o[k] = __float2bfloat16_rn(wr[k] * s);
        }
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "dequant_int8_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
dequant_int8_kernel_cu = SourceModule(DEQUANT_INT8_CU, no_extern_c=True).get_function(
    "dequant_int8_kernel")


def dequant_int8_cuda(w: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    """out[r, c] = w[r, c] * scale[r] with dequant_int8_kernel_cu: block (row, column block).

    Kernel arguments: w, scale and out as np.uintp(t.data_ptr()); cols, w.stride(0) and the
    aligned flag as np.int32; then block=(threads, 1, 1) and grid=(rows, column blocks).
    """
    ### BEGIN SOLUTION
    rows, cols = out.shape
    assert w.shape == (rows, cols) and scale.shape == (rows,), \
        f"w {tuple(w.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert w.stride(1) == 1 and scale.is_contiguous() and out.is_contiguous(), \
        "rows must be contiguous columns"
    # uint2 loads need 8-byte aligned w rows, uint4 stores 16-byte aligned out rows.
    aligned = (cols % 8 == 0 and w.stride(0) % 8 == 0 and w.data_ptr() % 8 == 0
               and out.data_ptr() % 16 == 0)
    threads = 128
    column_blocks = triton.cdiv(triton.cdiv(cols, 8), threads)  # 8 columns per thread
    dequant_int8_kernel_cu(
        np.uintp(w.data_ptr()),
        np.uintp(scale.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(cols),
        np.int32(w.stride(0)),
        np.int32(aligned),
        block=(threads, 1, 1),
        grid=(rows, column_blocks),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — a first correct kernel</summary>
#
# Correct before fast: one column per thread. `c = blockIdx.y * blockDim.x + threadIdx.x`,
# return if `c >= n_cols`, then `o[c] = __float2bfloat16_rn(wr[c] * s)` with
# `wr = w + (size_t)blockIdx.x * stride_wr`, `o = out + (size_t)blockIdx.x * n_cols` and
# `s = __bfloat162float(scale[blockIdx.x])`. `grid=(rows, cdiv(cols, threads))`.
# </details>
#
# <details><summary>Hint 2 — 8 columns per thread</summary>
#
# `c = (blockIdx.y * blockDim.x + threadIdx.x) * 8`. Aligned: `uint2 v = *reinterpret_cast<const
# uint2 *>(wr + c)`, read its weights through `const signed char *q = reinterpret_cast<const
# signed char *>(&v)`, and fill a `uint4 r` through `__nv_bfloat162 *r2 =
# reinterpret_cast<__nv_bfloat162 *>(&r)`: `r2[k] = __floats2bfloat162_rn(q[2k] * s, q[2k+1]
# * s)` for `k = 0..3`. Store `r` at `o + c` as one `uint4`.
# </details>
#
# <details><summary>Hint 3 — the launcher</summary>
#
# `aligned = cols % 8 == 0 and w.stride(0) % 8 == 0` (and `w.data_ptr() % 8 == 0`,
# `out.data_ptr() % 16 == 0`), passed as `np.int32(aligned)`. Otherwise: a loop over
# `k = c … min(c + 8, n_cols) - 1`. `grid=(rows, cdiv(cdiv(cols, 8), threads))`.
# </details>

# %% [markdown]
# ### Check your work
#
# One weight, widths from 1 to 4097, 127 and 129 rows, padded rows with a stride that is a
# multiple of 8 and one that is not. A failure lists the first elements that differ, with
# your value and the expected one.

# %% nbgrader={"grade": true, "grade_id": "test_dequant_int8_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", dequant_int8_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", dequant_int8_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_dequant_int8_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", dequant_int8_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", dequant_int8_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launchers against torch (`w.to(torch.bfloat16) * scale[:, None]`:
# two kernels and a bfloat16 temporary) from 1024 to 28672 rows of 8192 weights, in GB/s
# (1 byte read and 2 written per weight) and % of the device's copy bandwidth, with a plot.
# Without a GPU it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_dequant_int8_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", dequant_int8_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", dequant_int8_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_dequant_int8_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", dequant_int8_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", dequant_int8_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — int4 weights, two per byte, one scale per 128
#
# **The packing.** Row `r` of the weight matrix has `cols` 4-bit weights, stored in `cols / 2`
# bytes. Byte `j` of the row holds two neighbours:
#
# ```
#           bit 7 ... 4   bit 3 ... 0
# byte j:   [ element 2j+1 | element 2j ]      (high nibble | low nibble)
#
#   element 2j     = (byte & 0xF) - 8
#   element 2j + 1 = (byte >> 4)  - 8
# ```
#
# For example the byte `0x3C`: its low nibble `0xC` = 12 gives element `2j` = 12 − 8 = **4**,
# its high nibble `0x3` gives element `2j + 1` = 3 − 8 = **−5**. The even element comes
# first in memory *and* in the low bits: reading the high nibble first swaps every pair.
#
# **The offset.** A nibble holds 0 to 15; the weights are −8 to 7, stored with 8 added
# (*offset binary*). Reading the nibble as a signed 4-bit number (two's complement) is a
# different code, wrong for every nibble:
#
# | nibble | `0x0` | `0x7` | `0x8` | `0xF` |
# |---|---|---|---|---|
# | this lab: `n - 8` | −8 | −1 | 0 | 7 |
# | two's complement | 0 | 7 | −8 | −1 |
#
# **Group-wise scales.** Each run of 128 consecutive weights of a row (64 packed bytes) has
# its own bfloat16 scale: `scale` is `[rows, cols / 128]`, and
#
# ```
# out[r, c] = (nibble of element c of row r - 8) * scale[r, c // 128]
# ```
#
# The group is counted in **weights** (128 of them), not in bytes. `cols` is a multiple of 128:
# quantized checkpoints are stored so, and your launchers should check it and say which `cols`
# broke the rule if not.
#
# **Layouts.** `packed` may have padded rows: row `r` starts at `packed + r * packed.stride(0)`
# bytes, and that stride is a multiple of 16 (rows stay 16-byte aligned). `scale` may have
# padded rows too (`scale.stride(0) >= cols / 128`). `out` is contiguous.
#
# **Whole groups.** Since every row is a whole number of groups, number them across the matrix:
# group `g` is group `g % groups_per_row` of row `g // groups_per_row`, and because `out` is
# contiguous its 128 outputs are `out[128 g : 128 g + 128]` of the flat output. A kernel that
# works in whole groups has no partial group to mask, only groups past the last one.
#
# ### Triton
#
# `dequant_int4_kernel` takes `BLOCK_GROUPS` groups per program: a `[BLOCK_GROUPS, 64]` tile of
# packed bytes (each row of the tile one group's 64 contiguous bytes, which Triton loads 16
# bytes at a time), and a `[BLOCK_GROUPS, 128]` tile of output.

# %% nbgrader={"grade": false, "grade_id": "dequant_int4_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def dequant_int4_kernel(
    packed_ptr,  # [rows, cols / 2] uint8, rows stride_pr bytes apart
    scale_ptr,  # [rows, cols / 128] bfloat16, rows stride_sr apart
    out_ptr,  # [rows, cols] bfloat16, contiguous
    n_rows,  # rows
    n_cols,  # cols, a multiple of GROUP_SIZE
    stride_pr,  # bytes between the starts of two rows of packed
    stride_sr,  # elements between the starts of two rows of scale
    GROUP_SIZE: tl.constexpr,  # weights per scale: 128 (64 packed bytes)
    BLOCK_GROUPS: tl.constexpr,  # groups per program
):
    ### BEGIN SOLUTION
    groups_per_row = n_cols // GROUP_SIZE
    # This program's groups, numbered across the whole matrix; 64-bit: offsets pass 2^31.
    g = tl.program_id(axis=0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)
    mask = g < n_rows * groups_per_row  # the last program runs past the last group
    row = g // groups_per_row
    grp = g % groups_per_row
    # [BLOCK_GROUPS, 64]: the 64 bytes of each group, contiguous within a row of packed.
    byte_offs = (row * stride_pr + grp * (GROUP_SIZE // 2))[:, None] + \
        tl.arange(0, GROUP_SIZE // 2)[None, :]
    b = tl.load(packed_ptr + byte_offs, mask=mask[:, None]).to(tl.int32)  # widen: no wrap
    s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
    lo = ((b & 0xF) - 8).to(tl.float32) * s[:, None]  # elements 2j: the low nibbles
    hi = ((b >> 4) - 8).to(tl.float32) * s[:, None]  # elements 2j + 1: the high nibbles
    vals = tl.interleave(lo, hi)  # [BLOCK_GROUPS, 128]: lo0 hi0 lo1 hi1 ..., in memory order
    out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    tl.store(out_ptr + out_offs, vals.to(out_ptr.dtype.element_ty), mask=mask[:, None])
    ### END SOLUTION


def dequant_int4_triton(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    """out[r, c] = (nibble c of packed row r - 8) * scale[r, c // 128], bfloat16 [rows, cols]."""
    ### BEGIN SOLUTION
    GROUP_SIZE = 128
    rows, cols = out.shape
    assert cols % GROUP_SIZE == 0, \
        f"cols = {cols} is not a multiple of the group size {GROUP_SIZE}"
    assert packed.shape == (rows, cols // 2) and scale.shape == (rows, cols // GROUP_SIZE), \
        f"packed {tuple(packed.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert packed.stride(1) == 1 and scale.stride(1) == 1 and out.is_contiguous(), \
        "rows must be contiguous columns"
    BLOCK_GROUPS = 16  # 2048 weights per program: 1 KiB of packed bytes in, 4 KiB out
    grid = (triton.cdiv(rows * (cols // GROUP_SIZE), BLOCK_GROUPS),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUP_SIZE=GROUP_SIZE, BLOCK_GROUPS=BLOCK_GROUPS, num_warps=4)
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — whole groups</summary>
#
# `g = tl.program_id(0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)`, masked with
# `g < n_rows * groups_per_row`; `row = g // groups_per_row`, `grp = g % groups_per_row`. The
# group's bytes start at `row * stride_pr + grp * 64`: add `tl.arange(0, 64)` along a second
# axis (`[:, None]` and `[None, :]`) to get a `[BLOCK_GROUPS, 64]` tile of offsets, and mask it
# with `mask[:, None]`. The group's scale is at `row * stride_sr + grp`.
# </details>
#
# <details><summary>Hint 2 — the nibbles</summary>
#
# Widen the bytes first, `.to(tl.int32)`: in `uint8`, `3 - 8` is 251. Then
# `(b & 0xF) - 8` are the even elements and `(b >> 4) - 8` the odd ones, each a
# `[BLOCK_GROUPS, 64]` tile. Convert to float32 and multiply by the scales, `s[:, None]`.
# </details>
#
# <details><summary>Hint 3 — back in memory order</summary>
#
# `tl.interleave(lo, hi)` makes a `[BLOCK_GROUPS, 128]` tile `lo0, hi0, lo1, hi1, …`: exactly
# the group's 128 outputs, which start at `g * 128` in `out`. Offsets
# `g[:, None] * 128 + tl.arange(0, 128)[None, :]`, one conversion at the store. (Two strided
# stores, `lo` at even offsets and `hi` at odd ones, are also correct; a GPU prefers one
# contiguous store.)
# </details>
#
# ### CUDA C
#
# One thread per **4-byte chunk of packed bytes: 8 weights**. A row of `cols / 2` bytes is
# `cols / 8` chunks; a group (64 bytes) is 16 chunks, so a chunk never straddles two groups
# and its 8 weights share one scale. Number the chunks across the matrix, as the groups
# above: chunk `g` is chunk `g % chunks_per_row` of row `g / chunks_per_row`, and its outputs are
# `out[8 g : 8 g + 8]`.
#
# The thread loads its chunk as one 32-bit `unsigned`, reads it byte by byte through an
# `unsigned char *` view of that register, and writes **pairs**: byte `j` of the chunk becomes
# one `__nv_bfloat162` (`.x` = element `2j` from the low nibble, `.y` = element `2j + 1` from
# the high one), `__floats2bfloat162_rn(lo * s, hi * s)`. The 4 pairs are 16 bytes: one
# `uint4` store.
#
# **Why 4 bytes in and not a whole `uint4` (32 weights)?** Output is 80% of the traffic, so the
# stores decide. With 4 packed bytes a thread stores 16 bytes and a warp's store is one
# contiguous 512-byte run. With 16 packed bytes a thread stores 64 bytes as four `uint4`, and
# each of those store instructions spreads the warp over 2 KiB, 16 bytes written in every 64:
# on an H200 that kernel moved 1.9 TB/s where the 4-byte one moves 3.8 (measured at
# 16384 × 8192).
#
# **Why not a byte per thread?** It is correct, and it is the first kernel everyone writes:
# each thread loads one byte and stores one pair. But a GPU hides the long latency of memory
# only if enough bytes are on their way at any moment; every thread can keep only a few loads
# outstanding, so the bytes in flight are set by the bytes *each load* asks for. A warp of
# byte loads asks for 32 bytes and a warp of byte-pair stores writes 128; a warp of 32-bit
# loads asks for 128 and its `uint4` stores write 512. With a byte per thread the loads arrive
# too slowly to keep the memory busy, and every store waits for its load.
# (The figures for this comparison on the course's GPU come from the H200 run and will be
# added here by the course staff.)

# %% nbgrader={"grade": false, "grade_id": "dequant_int4_cu", "locked": false, "schema_version": 3, "solution": true}
DEQUANT_INT4_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void dequant_int4_kernel(
    const unsigned char *__restrict__ packed,  // [rows, cols / 2], rows stride_pr bytes apart
    const __nv_bfloat16 *__restrict__ scale,   // [rows, cols / 128], rows stride_sr apart
    __nv_bfloat16 *__restrict__ out,           // [rows, cols], contiguous
    int n_rows,                                // rows
    int n_cols,                                // cols, a multiple of 128
    int stride_pr,                             // bytes between the starts of two packed rows
    int stride_sr)                             // elements between two rows of scale
{
    /// BEGIN SOLUTION
    constexpr int BYTES = 4;        // packed bytes per thread: one 32-bit word, 8 weights
    constexpr int GROUP_BYTES = 64; // 128 weights share a scale
    const int chunks_per_row = n_cols / (2 * BYTES);
    const int g = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's chunk
    if (g >= n_rows * chunks_per_row) return;  // the last block runs past the last chunk
    const int row = g / chunks_per_row;
    const int c = g - row * chunks_per_row;  // chunk within the row
    // size_t: row * stride_pr can pass 2^31.
    const unsigned v = *reinterpret_cast<const unsigned *>(packed + (size_t)row * stride_pr +
                                                           (size_t)c * BYTES);
    const float s = __bfloat162float(scale[(size_t)row * stride_sr + c * BYTES / GROUP_BYTES]);
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);
    uint4 o;  // 2 * BYTES bfloat16 = 16 bytes
    __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(&o);
#pragma unroll
    for (int j = 0; j < BYTES; ++j) {  // byte j: elements 2j (low nibble) and 2j + 1 (high)
        const float lo = (float)((b[j] & 0xF) - 8);
        const float hi = (float)((b[j] >> 4) - 8);
        o2[j] = __floats2bfloat162_rn(lo * s, hi * s);  // exact products, one rounding each
    }
    // Neighbouring threads, neighbouring 16 bytes: the warp stores one 512-byte run.
    *reinterpret_cast<uint4 *>(out + (size_t)g * 2 * BYTES) = o;
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "dequant_int4_cuda", "locked": false, "schema_version": 3, "solution": true}
dequant_int4_kernel_cu = SourceModule(DEQUANT_INT4_CU, no_extern_c=True).get_function(
    "dequant_int4_kernel")


def dequant_int4_cuda(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    """out[r, c] = (nibble c of packed row r - 8) * scale[r, c // 128], dequant_int4_kernel_cu.

    Kernel arguments: packed, scale and out as np.uintp(t.data_ptr()); rows, cols,
    packed.stride(0) and scale.stride(0) as np.int32; then block=(threads, 1, 1) and
    grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    GROUP_SIZE = 128
    rows, cols = out.shape
    assert cols % GROUP_SIZE == 0, \
        f"cols = {cols} is not a multiple of the group size {GROUP_SIZE}"
    assert packed.shape == (rows, cols // 2) and scale.shape == (rows, cols // GROUP_SIZE), \
        f"packed {tuple(packed.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert packed.stride(1) == 1 and scale.stride(1) == 1 and out.is_contiguous(), \
        "rows must be contiguous columns"
    # 32-bit loads need 4-byte aligned packed rows; uint4 stores a 16-byte aligned out.
    assert packed.stride(0) % 4 == 0 and packed.data_ptr() % 4 == 0, \
        f"packed rows must start 4-byte aligned (stride {packed.stride(0)})"
    assert out.data_ptr() % 16 == 0, "out must be 16-byte aligned"
    n_chunks = rows * (cols // 8)  # 4 packed bytes = 8 weights per thread
    assert n_chunks < 2**31 - 256, f"{n_chunks} chunks do not fit the kernel's int"
    threads = 256
    dequant_int4_kernel_cu(
        np.uintp(packed.data_ptr()),
        np.uintp(scale.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(rows),
        np.int32(cols),
        np.int32(packed.stride(0)),
        np.int32(scale.stride(0)),
        block=(threads, 1, 1),
        grid=(triton.cdiv(n_chunks, threads), 1),
    )
    ### END SOLUTION


# %% [markdown]
# <details><summary>Hint 1 — which chunk, which scale</summary>
#
# `g = blockIdx.x * blockDim.x + threadIdx.x`; return if `g >= n_rows * chunks_per_row`
# (`chunks_per_row = n_cols / 8`). Then `row = g / chunks_per_row`, `c = g % chunks_per_row`.
# The chunk's bytes start at `packed + (size_t)row * stride_pr + 4 * c`; its scale is
# `scale[(size_t)row * stride_sr + c / 16]` (16 chunks per group of 64 bytes).
# </details>
#
# <details><summary>Hint 2 — a byte view of a register</summary>
#
# `unsigned v = *reinterpret_cast<const unsigned *>(address);` then
# `const unsigned char *b = reinterpret_cast<const unsigned char *>(&v);`: `b[0] … b[3]` are
# the 4 bytes, in memory order. For each, `(b[j] & 0xF) - 8` and `(b[j] >> 4) - 8`, as
# floats, times the scale. With `#pragma unroll` every index is a constant and nothing leaves
# the registers.
# </details>
#
# <details><summary>Hint 3 — pairs out</summary>
#
# `uint4 o; __nv_bfloat162 *o2 = reinterpret_cast<__nv_bfloat162 *>(&o);` and
# `o2[j] = __floats2bfloat162_rn(lo * s, hi * s);`. The chunk's 8 outputs start at
# `out + (size_t)g * 8`: store `o` there as one `uint4`. The launcher: one thread per chunk,
# `grid=(cdiv(rows * cols / 8, threads), 1)`, after checking `cols % 128 == 0` and the
# 4-byte alignment of `packed` rows.
# </details>

# %% [markdown]
# ### Check your work
#
# One group, one row, 127 to 255 rows, up to 32 groups a row, padded packed rows and padded
# scale rows. The scales differ from group to group: a scale taken per 128 packed bytes
# (256 weights) instead of per 128 weights is wrong from the second group of a row on.

# %% nbgrader={"grade": true, "grade_id": "test_dequant_int4_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", dequant_int4_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", dequant_int4_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_dequant_int4_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", dequant_int4_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", dequant_int4_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# The byte ledger per weight: half a byte of packed input, 2/128 of a byte of scale, 2 bytes of
# bfloat16 output: 2.52 bytes, 80% of them written. A kernel at the copy roof is limited by
# its stores, so the stores matter as much as the loads: contiguous, 16 bytes per access.
# torch needs several kernels and integer temporaries for the same result (masks, shifts, a
# stack, a conversion, a repeated scale). On a GPU, `bench` times your launchers against it
# from 1024 to 28672 rows of 8192 weights; without a GPU it says "skipped: needs a GPU".
# Measured on an H200 at 16384 × 8192 (2026-12-01): torch's ops 291 GB/s; the references
# 3852 (Triton) and 4027 (CUDA), 88–92% of the copy roof and 13–14× torch; this notebook's
# solutions 3515 and 3695. (The byte-per-thread kernel's figure comes from the next GPU run.)

# %% nbgrader={"grade": true, "grade_id": "perf_dequant_int4_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", dequant_int4_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", dequant_int4_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_dequant_int4_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", dequant_int4_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", dequant_int4_cuda, graded=True)
### END HIDDEN TESTS
