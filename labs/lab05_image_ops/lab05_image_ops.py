# %% [markdown]
# # Lab 05 — Image operations on bytes, in Triton and in CUDA C
#
# Two operations on 8-bit images stored pixel after pixel, row after row, the channels of a
# pixel next to each other (*interleaved*):
#
# 1. **`rgb_to_gray`**: an `H × W × 3` RGB image (`uint8`) to an `H × W` gray image (`uint8`).
# 2. **`invert`**: an `H × W × 4` RGBA image to its negative, same shape: each colour channel
#    `v` becomes `255 - v`, the alpha channel (opacity) is kept.
#
# Both move bytes and do almost no arithmetic, so their speed is all about memory: **how many
# bytes each thread moves per instruction**. A byte per load is far too little (a GPU wants
# 16 bytes per thread per load), and an RGB pixel is 3 bytes, which no load instruction
# matches. You will also meet the two classic traps of byte arithmetic: **overflow**
# (`uint8` arithmetic wraps around at 256) and **rounding** (the exact rule matters when the
# answer is an integer).
#
# | idea | Triton | CUDA C |
# |---|---|---|
# | a byte tensor | `tl.load` from a `uint8` pointer gives `tl.uint8` values | `const unsigned char *` |
# | overflow | `77 * r` with `r` of type `tl.uint8` **stays `uint8` and wraps**: widen first, `r.to(tl.uint32)` | C promotes `unsigned char` to `int` in `77 * r` by itself; a byte-sized *variable* for the sum still wraps |
# | channel `k` of pixel `p` (interleaved) | `tl.load(rgb_ptr + 3 * offs + k)`: a strided load | `rgb[3 * p + k]` |
# | several bytes per load | reinterpret the pointer: `rgb_ptr.to(tl.pointer_type(tl.uint32))` loads 32-bit words | `reinterpret_cast<const uint4 *>(rgb)[i]`: 16 bytes per load |
# | bytes out of a word (little-endian: the first byte is the lowest) | `(w >> 8) & 0xFF` | the same, or read a local `uint4` through an `unsigned char *` view |
# | one RGBA pixel = one 32-bit word | `rgba_ptr.to(tl.pointer_type(tl.uint32))` | `uchar4` (`.x .y .z .w` = R G B A), or `unsigned int` |
# | contiguous bytes | the compiler vectorises a `tl.load` of consecutive bytes: 16 per thread | you do: one `uint4` per thread, and a scalar tail |
# | the last, partial group | a mask, or one program does the leftover pixels | the first threads do the leftover pixels, one each |
#
# **What you write**, for each exercise: a Triton kernel and its launcher, a CUDA C kernel (in
# a source string) and its launcher. Launchers receive the output already allocated: write
# into it. Inputs are contiguous and 16-byte aligned.
#
# **How you are graded**: exact equality on many image sizes you do not see (one pixel, one
# row, every remainder of the pixel groups fast kernels use), with fresh random bytes; on a
# GPU, the bandwidth of your kernels against a reference. Without a GPU, Triton runs in its
# interpreter and CUDA C on the CPU: correctness only.

# %% nbgrader={"grade": false, "grade_id": "setup", "locked": true, "schema_version": 3, "solution": false}
# The lab's runtime comes first: without a GPU it switches Triton to its interpreter, which must
# happen before triton is imported (it also repairs an earlier import, but why rely on that).
from grader.notebook import SourceModule, bench, check

import numpy as np
import torch
import triton
import triton.language as tl

LAB = "lab05_image_ops"

# %% [markdown]
# ## Exercise 1 — RGB to gray
#
# The gray value of a pixel weighs its channels by how bright each looks (ITU-R BT.601:
# `0.299 R + 0.587 G + 0.114 B`). In floating point that sum is rarely an integer, and how it
# is rounded decides the answer; this lab uses the form image libraries use, **exact in
# integers**: the weights in 8-bit fixed point (`0.299 × 256 ≈ 77`, `0.587 × 256 ≈ 150`,
# `0.114 × 256 ≈ 29`, and `77 + 150 + 29 = 256`, so white stays 255), rounded half up:
#
# ```
# gray = (77 * R + 150 * G + 29 * B + 128) >> 8
# ```
#
# `+ 128` is the rounding (`128 / 256` = one half); `>> 8` divides by 256 and drops the
# fraction. Your output must equal this integer exactly. Float weights `0.299 …` give a
# different answer on some pixels; without `+ 128` (truncation) about half the pixels come out
# one too low.
#
# The sum goes up to `255 × 256 + 128 = 65408`, far past a byte: compute it in 32 bits, and
# narrow to 8 bits only the final `>> 8`.
#
# **The 3-byte pixel problem.** Pixel `p` is bytes `3p, 3p + 1, 3p + 2` of the input. Reading
# them one byte per load is correct but slow. No load is 3 bytes wide; but 4 pixels are 12
# bytes, exactly three 32-bit words, and 16 pixels are 48 bytes, exactly three 16-byte `uint4`:
#
# ```
# word 0: R0 G0 B0 R1    word 1: G1 B1 R2 G2    word 2: B2 R3 G3 B3
# ```
#
# (the first byte of a word is its lowest: GPUs are little-endian). A thread (or a program's
# lane) that handles a whole group reads whole words, takes the bytes apart in registers, and
# writes the group's gray bytes as one word too. The pixels after the last whole group are
# done one at a time.
#
# ### Part 1 — Triton
#
# `rgb_to_gray_kernel` gets the image as a flat `uint8` pointer and the number of pixels. Start
# with the simple version (three strided loads), check it, then make it fast. The helper
# `gray_of(r, g, b)` below the kernel holds the formula, for values already widened to 32 bits
# (a `@triton.jit` function may call one defined after it: names are looked up when the
# kernel is first launched).

# %% [markdown]
# <details><summary>Hint 1 — where the channels are</summary>
#
# With `offs` the pixel indices of a program (`pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)`,
# masked by `offs < n_pixels`), three loads with the same mask give the three channels:
# `rgb_ptr + 3 * offs`, then `+ 1`, then `+ 2`. Each returns `tl.uint8` values.
#
# </details>
#
# <details><summary>Hint 2 — widen, then round</summary>
#
# In Triton, `77 * r` with `r` of type `tl.uint8` is computed in `uint8`: it wraps around at
# 256 and the result is garbage. Widen each channel first (`.to(tl.uint32)`), then apply the
# formula with its `+ 128`. `tl.store` to a `uint8` pointer narrows the result back by itself.
# This version is correct: run the checks before making it fast.
#
# </details>
#
# <details><summary>Hint 3 — whole words (the fast version)</summary>
#
# A byte per load is one load instruction per byte. Let each lane handle a *group* of 4
# pixels: `words = rgb_ptr.to(tl.pointer_type(tl.uint32))` sees the input as 32-bit words, and
# group `k` is words `3k`, `3k + 1`, `3k + 2` (three loads, masked by `k < n_pixels // 4`).
# Byte `j` of word `w` is `(w >> (8 * j)) & 0xFF`; the picture above says which byte is which
# channel. Pack the 4 gray bytes of a group into one word (`y0 | (y1 << 8) | …`) and store it
# through `gray_ptr.to(tl.pointer_type(tl.uint32))` at index `k`. The last `n_pixels % 4`
# pixels do not fill a word: let one program (`pid == 0`) do them with byte loads, and launch
# at least one program even when there is no whole group.
#
# </details>

# %% nbgrader={"grade": false, "grade_id": "rgb_to_gray_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def rgb_to_gray_kernel(
    rgb_ptr,  # input: n_pixels pixels of 3 bytes, R G B
    gray_ptr,  # output: n_pixels bytes
    n_pixels,  # number of pixels, h * w
    BLOCK_SIZE: tl.constexpr,  # units of work per program (pixels, or groups of 4 pixels)
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0).to(tl.int64)  # 3 * pixel index can pass 2^31 on big images
    # Each lane converts a group of 4 pixels: 12 bytes in = 3 words, 4 bytes out = 1 word.
    groups = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    n_groups = n_pixels // 4
    mask = groups < n_groups  # the last program runs past the last whole group
    words = rgb_ptr.to(tl.pointer_type(tl.uint32))
    w0 = tl.load(words + 3 * groups, mask=mask)  # R0 G0 B0 R1 (lowest byte first)
    w1 = tl.load(words + 3 * groups + 1, mask=mask)  # G1 B1 R2 G2
    w2 = tl.load(words + 3 * groups + 2, mask=mask)  # B2 R3 G3 B3
    y0 = gray_of(w0 & 0xFF, (w0 >> 8) & 0xFF, (w0 >> 16) & 0xFF)
    y1 = gray_of(w0 >> 24, w1 & 0xFF, (w1 >> 8) & 0xFF)
    y2 = gray_of((w1 >> 16) & 0xFF, w1 >> 24, w2 & 0xFF)
    y3 = gray_of((w2 >> 8) & 0xFF, (w2 >> 16) & 0xFF, w2 >> 24)
    gray_words = gray_ptr.to(tl.pointer_type(tl.uint32))
    tl.store(gray_words + groups, y0 | (y1 << 8) | (y2 << 16) | (y3 << 24), mask=mask)
    if pid == 0:  # the last n_pixels % 4 pixels do not fill a word: byte by byte
        tail = n_groups * 4 + tl.arange(0, 4)
        tail_mask = tail < n_pixels
        r = tl.load(rgb_ptr + 3 * tail, mask=tail_mask).to(tl.uint32)
        g = tl.load(rgb_ptr + 3 * tail + 1, mask=tail_mask).to(tl.uint32)
        b = tl.load(rgb_ptr + 3 * tail + 2, mask=tail_mask).to(tl.uint32)
        tl.store(gray_ptr + tail, gray_of(r, g, b), mask=tail_mask)
    ### END SOLUTION


@triton.jit
def gray_of(r, g, b):
    """BT.601 gray of 32-bit channel values in [0, 255], rounded half up."""
    ### BEGIN SOLUTION
    return (77 * r + 150 * g + 29 * b + 128) >> 8
    ### END SOLUTION


def rgb_to_gray_triton(rgb: torch.Tensor, gray: torch.Tensor) -> None:
    """gray[i, j] = (77 R + 150 G + 29 B + 128) >> 8 of pixel rgb[i, j]."""
    ### BEGIN SOLUTION
    assert rgb.shape == (*gray.shape, 3), f"want an h x w x 3 image, got {tuple(rgb.shape)}"
    assert rgb.dtype == gray.dtype == torch.uint8, f"dtypes: {rgb.dtype}, {gray.dtype}"
    assert rgb.is_contiguous() and gray.is_contiguous(), "pixels must be contiguous"
    n = gray.numel()
    BLOCK_SIZE = 1024  # groups of 4 pixels per program: 12 KiB in, 4 KiB out
    # One program per BLOCK_SIZE groups, and at least one for the tail of a tiny image.
    grid = (max(triton.cdiv(n // 4, BLOCK_SIZE), 1),)
    rgb_to_gray_kernel[grid](rgb, gray, n, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% [markdown]
# ### Part 2 — CUDA C
#
# `rgb_to_gray_kernel` gets the image as `const unsigned char *`, and `n_pixels`. In C,
# `77 * rgb[i]` is computed in `int` (C promotes `unsigned char` before arithmetic), so the
# formula works as written; what wraps is a *variable* too narrow for the sum.

# %% [markdown]
# <details><summary>Hint 1 — a first correct kernel</summary>
#
# One thread per pixel: `i = blockIdx.x * blockDim.x + threadIdx.x`, and if `i < n_pixels`,
# read `rgb[3 * i]`, `rgb[3 * i + 1]`, `rgb[3 * i + 2]`, apply the formula into a 32-bit
# `unsigned` (not an `unsigned char`: the sum would wrap before the shift) and write
# `gray[i]`. Correct, but each thread moves 4 bytes in 4 instructions.
#
# </details>
#
# <details><summary>Hint 2 — 16 pixels, three uint4</summary>
#
# 16 pixels are 48 bytes = three `uint4`. Thread `t` handles pixels `16t … 16t + 15`: it loads
# `reinterpret_cast<const uint4 *>(rgb)[3 * t + k]` for `k = 0, 1, 2` and stores one `uint4`
# of 16 gray bytes at `reinterpret_cast<uint4 *>(gray)[t]`. Threads with `t >= n_pixels / 16`
# do no group; the `n_pixels % 16` pixels after the last group are done one each by the grid's
# first threads. Launch `max(cdiv(n_pixels / 16, threads), 1)` blocks.
#
# </details>
#
# <details><summary>Hint 3 — bytes out of registers</summary>
#
# Load the three `uint4` into a local array `uint4 in[3]` and read it through
# `const unsigned char *b = reinterpret_cast<const unsigned char *>(in)`: pixel `p` of the
# group is `b[3 * p]`, `b[3 * p + 1]`, `b[3 * p + 2]`. Write the results through an
# `unsigned char *` view of a local `uint4 out`. With `#pragma unroll` on the loop over the 16
# pixels every index is a constant, and the compiler keeps everything in registers.
#
# </details>

# %% nbgrader={"grade": false, "grade_id": "rgb_to_gray_cu", "locked": false, "schema_version": 3, "solution": true}
RGB_TO_GRAY_CU = r"""
// gray[p] = (77 R + 150 G + 29 B + 128) >> 8 for the n_pixels pixels of rgb (R G B bytes).
__global__ void rgb_to_gray_kernel(const unsigned char *__restrict__ rgb,  // 3 bytes a pixel
                                   unsigned char *__restrict__ gray,       // 1 byte a pixel
                                   int n_pixels)                           // number of pixels
{
    /// BEGIN SOLUTION
    // Thread t converts pixels 16t .. 16t + 15: 48 bytes in = 3 uint4, 16 bytes out = 1 uint4.
    const int PIXELS = 16;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n_groups = n_pixels / PIXELS;
    if (t < n_groups) {  // the last block runs past the last whole group
        const uint4 *src = reinterpret_cast<const uint4 *>(rgb) + 3 * t;
        uint4 in[3] = {src[0], src[1], src[2]};
        uint4 out;
        // Byte views of registers: indexed by constants once unrolled, they stay registers.
        const unsigned char *b = reinterpret_cast<const unsigned char *>(in);
        unsigned char *y = reinterpret_cast<unsigned char *>(&out);
#pragma unroll
        for (int p = 0; p < PIXELS; ++p) {
            unsigned sum = 77u * b[3 * p] + 150u * b[3 * p + 1] + 29u * b[3 * p + 2] + 128u;
            y[p] = (unsigned char)(sum >> 8);
        }
        reinterpret_cast<uint4 *>(gray)[t] = out;
    }
    int tail = n_groups * PIXELS + t;
    if (tail < n_pixels) {  // only the first n_pixels % 16 threads have a leftover pixel
        const unsigned char *px = rgb + 3 * tail;
        gray[tail] = (unsigned char)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128u) >> 8);
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "rgb_to_gray_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
rgb_to_gray_kernel_cu = SourceModule(RGB_TO_GRAY_CU).get_function("rgb_to_gray_kernel")


def rgb_to_gray_cuda(rgb: torch.Tensor, gray: torch.Tensor) -> None:
    """gray = the gray image of rgb, with rgb_to_gray_kernel_cu.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n_pixels as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert rgb.shape == (*gray.shape, 3), f"want an h x w x 3 image, got {tuple(rgb.shape)}"
    assert rgb.dtype == gray.dtype == torch.uint8, f"dtypes: {rgb.dtype}, {gray.dtype}"
    assert rgb.is_contiguous() and gray.is_contiguous(), "pixels must be contiguous"
    # uint4 loads and stores must start on a 16-byte boundary: fresh tensors do.
    assert rgb.data_ptr() % 16 == 0 and gray.data_ptr() % 16 == 0, "need 16-byte alignment"
    n = gray.numel()
    pixels_per_thread = 16  # PIXELS in RGB_TO_GRAY_CU
    threads = 256
    # One thread per group of 16 pixels, and at least one block for the tail.
    blocks = max(triton.cdiv(n // pixels_per_thread, threads), 1)
    rgb_to_gray_kernel_cu(
        np.uintp(rgb.data_ptr()),
        np.uintp(gray.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Image sizes include one pixel, a single row, and pixel counts with every remainder modulo 4
# and 16 (the groups above). Outputs must be exact: a failure lists the first pixels that
# differ, with your value and the expected one.

# %% nbgrader={"grade": true, "grade_id": "test_rgb_to_gray_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", rgb_to_gray_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", rgb_to_gray_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_rgb_to_gray_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", rgb_to_gray_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", rgb_to_gray_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU, `bench` times your launchers against the same formula in torch, from L2-resident
# images to 8192 × 8192, in GB/s (3 bytes read and 1 written per pixel) and % of the device's
# copy bandwidth, with a plot. Without a GPU it says "skipped: needs a GPU".

# %% nbgrader={"grade": true, "grade_id": "perf_rgb_to_gray_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", rgb_to_gray_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", rgb_to_gray_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_rgb_to_gray_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", rgb_to_gray_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", rgb_to_gray_cuda, graded=True)
### END HIDDEN TESTS

# %% [markdown]
# ## Exercise 2 — Invert an RGBA image
#
# `out = 255 - v` for the red, green and blue bytes of each pixel; the alpha byte (the 4th)
# is copied unchanged. `255 - v` of a byte never leaves `[0, 255]`: no overflow here.
#
# An RGBA pixel is 4 bytes, **one 32-bit word**, so it needs no regrouping: a `uchar4` in CUDA
# (`.x .y .z .w` = R G B A). Read as a little-endian word, R is bits 0–7 and A bits 24–31;
# and since `255 - v == v ^ 0xFF` for a byte, the whole pixel is `word ^ 0x00FFFFFF`.
#
# ### Part 1 — Triton

# %% [markdown]
# <details><summary>Hint 1 — a flat array of bytes</summary>
#
# The image is `4 * n_pixels` contiguous bytes, and byte `i` is channel `i % 4` of its pixel:
# alpha when `i % 4 == 3`. Load a block of consecutive bytes (masked at the end): the compiler
# turns consecutive `uint8` loads into 16-byte loads by itself.
#
# </details>
#
# <details><summary>Hint 2 — choose per byte</summary>
#
# `tl.where(condition, a, b)` picks `a` where the condition holds, else `b`: keep the byte
# where it is alpha, store `255 - v` elsewhere. Or work on words: load through
# `rgba_ptr.to(tl.pointer_type(tl.uint32))` (one pixel per element) and XOR with `0x00FFFFFF`.
#
# </details>

# %% nbgrader={"grade": false, "grade_id": "invert_triton", "locked": false, "schema_version": 3, "solution": true}
@triton.jit
def invert_kernel(
    rgba_ptr,  # input: n_pixels pixels of 4 bytes, R G B A
    out_ptr,  # output: the same layout
    n_bytes,  # 4 * n_pixels
    BLOCK_SIZE: tl.constexpr,  # bytes per program
):
    ### BEGIN SOLUTION
    pid = tl.program_id(axis=0).to(tl.int64)  # 4 * pixels passes 2^31 on big images
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_bytes  # the last block runs past the end
    v = tl.load(rgba_ptr + offs, mask=mask)
    is_alpha = offs % 4 == 3  # byte 3 of every pixel
    tl.store(out_ptr + offs, tl.where(is_alpha, v, 255 - v), mask=mask)
    ### END SOLUTION


def invert_triton(rgba: torch.Tensor, out: torch.Tensor) -> None:
    """out = rgba with R, G, B inverted (255 - v) and A kept."""
    ### BEGIN SOLUTION
    assert rgba.shape == out.shape and rgba.shape[-1] == 4, f"want h x w x 4, {rgba.shape}"
    assert rgba.dtype == out.dtype == torch.uint8, f"dtypes: {rgba.dtype}, {out.dtype}"
    assert rgba.is_contiguous() and out.is_contiguous(), "pixels must be contiguous"
    n_bytes = out.numel()
    BLOCK_SIZE = 4096  # bytes per program: 32 per thread with 4 warps
    grid = (triton.cdiv(n_bytes, BLOCK_SIZE),)
    invert_kernel[grid](rgba, out, n_bytes, BLOCK_SIZE=BLOCK_SIZE)
    ### END SOLUTION


# %% [markdown]
# ### Part 2 — CUDA C
#
# `invert_kernel` gets the pixels as `uchar4` (4 bytes each, 4-byte aligned) and `n_pixels`.

# %% [markdown]
# <details><summary>Hint 1 — a pixel per thread</summary>
#
# `uchar4 p = rgba[i];` reads a whole pixel in one 4-byte load;
# `out[i] = make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w);` writes it back. Correct, and
# already 4 times better than a byte per thread.
#
# </details>
#
# <details><summary>Hint 2 — the XOR</summary>
#
# Seen as an `unsigned int` (`reinterpret_cast<const unsigned int *>(rgba)`), a pixel is
# inverted by `word ^ 0x00FFFFFFu`: the three low bytes (R, G, B) flip, the high byte (A)
# stays. One instruction per pixel.
#
# </details>
#
# <details><summary>Hint 3 — 16 bytes per thread</summary>
#
# A `uint4` is 4 pixels: thread `t` loads `reinterpret_cast<const uint4 *>(rgba)[t]`, XORs
# its `.x`, `.y`, `.z` and `.w`, and stores it. The `n_pixels % 4` pixels after the last
# `uint4` are done one word each by the first threads; launch
# `max(cdiv(n_pixels / 4, threads), 1)` blocks.
#
# </details>

# %% nbgrader={"grade": false, "grade_id": "invert_cu", "locked": false, "schema_version": 3, "solution": true}
INVERT_CU = r"""
// out = rgba with R, G, B inverted (255 - v) and A kept, for n_pixels pixels.
__global__ void invert_kernel(const uchar4 *__restrict__ rgba,  // input pixels, R G B A
                              uchar4 *__restrict__ out,         // output pixels
                              int n_pixels)                     // number of pixels
{
    /// BEGIN SOLUTION
    // Thread t inverts pixels 4t .. 4t + 3: one uint4 in, one out. As a little-endian word a
    // pixel is A B G R from the top byte down: XOR with 0x00FFFFFF flips R, G, B, keeps A.
    const unsigned FLIP = 0x00FFFFFFu;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int n_groups = n_pixels / 4;
    if (t < n_groups) {  // the last block runs past the last whole uint4
        uint4 v = reinterpret_cast<const uint4 *>(rgba)[t];
        v.x ^= FLIP;
        v.y ^= FLIP;
        v.z ^= FLIP;
        v.w ^= FLIP;
        reinterpret_cast<uint4 *>(out)[t] = v;
    }
    int tail = n_groups * 4 + t;
    if (tail < n_pixels) {  // only the first n_pixels % 4 threads have a leftover pixel
        reinterpret_cast<unsigned *>(out)[tail] =
            reinterpret_cast<const unsigned *>(rgba)[tail] ^ FLIP;
    }
    /// END SOLUTION
}
"""

# %% nbgrader={"grade": false, "grade_id": "invert_cuda", "locked": false, "schema_version": 3, "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
invert_kernel_cu = SourceModule(INVERT_CU).get_function("invert_kernel")


def invert_cuda(rgba: torch.Tensor, out: torch.Tensor) -> None:
    """out = the inverted image of rgba, with invert_kernel_cu.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n_pixels as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    ### BEGIN SOLUTION
    assert rgba.shape == out.shape and rgba.shape[-1] == 4, f"want h x w x 4, {rgba.shape}"
    assert rgba.dtype == out.dtype == torch.uint8, f"dtypes: {rgba.dtype}, {out.dtype}"
    assert rgba.is_contiguous() and out.is_contiguous(), "pixels must be contiguous"
    assert rgba.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, "need 16-byte alignment"
    n = out.numel() // 4
    threads = 256
    # One thread per 4 pixels (one uint4), and at least one block for the tail.
    blocks = max(triton.cdiv(n // 4, threads), 1)
    invert_kernel_cu(
        np.uintp(rgba.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
    ### END SOLUTION


# %% [markdown]
# ### Check your work
#
# Exact equality again, on pixel counts with every remainder modulo 4. The alpha bytes are
# random too: a kernel that inverts them fails.

# %% nbgrader={"grade": true, "grade_id": "test_invert_triton", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "triton", invert_triton)
### BEGIN HIDDEN TESTS
check(LAB, "triton", invert_triton, suite="hidden")
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "test_invert_cuda", "locked": true, "schema_version": 3, "solution": false}
check(LAB, "cuda", invert_cuda)
### BEGIN HIDDEN TESTS
check(LAB, "cuda", invert_cuda, suite="hidden")
### END HIDDEN TESTS

# %% [markdown]
# ### How fast?
#
# On a GPU: GB/s (4 bytes read and 4 written per pixel) against torch and the copy roof, with
# a plot.

# %% nbgrader={"grade": true, "grade_id": "perf_invert_triton", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "triton", invert_triton)
### BEGIN HIDDEN TESTS
bench(LAB, "triton", invert_triton, graded=True)
### END HIDDEN TESTS

# %% nbgrader={"grade": true, "grade_id": "perf_invert_cuda", "locked": true, "schema_version": 3, "solution": false}
bench(LAB, "cuda", invert_cuda)
### BEGIN HIDDEN TESTS
bench(LAB, "cuda", invert_cuda, graded=True)
### END HIDDEN TESTS
