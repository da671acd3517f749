"""Reference Triton RGB -> gray: the perf bar for lab05's rgb_to_gray (hidden from students).

Byte ledger: read 3 bytes per pixel once, write 1 byte per pixel once: (3 + 1) * h * w
(lab.toml's `itemsize * (c + 1) * h * w`, itemsize = 1).

Each lane converts a group of 4 pixels: 12 input bytes are exactly 3 aligned 32-bit words,
the 4 gray bytes one word, so no load or store is narrower than 4 bytes; the stores of
consecutive groups are contiguous and vectorise to 16 bytes. Program 0 also converts the
n % 4 pixels after the last whole group, byte by byte.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 256  # swept on an H200, see docs/perf.md
NUM_WARPS = 4  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE": (256, 512, 1024, 2048), "NUM_WARPS": (2, 4, 8)}


@triton.jit
def gray_of(r, g, b):
    """BT.601 in 8-bit fixed point, rounded half up; r, g, b are uint32 in [0, 255]."""
    return (77 * r + 150 * g + 29 * b + 128) >> 8


@triton.jit
def rgb_to_gray_kernel(
    rgb_ptr,  # input: n_pixels x 3 bytes, R G B
    gray_ptr,  # output: n_pixels bytes
    n_pixels,  # h * w
    BLOCK_SIZE: tl.constexpr,  # groups of 4 pixels per program
):
    pid = tl.program_id(axis=0).to(tl.int64)  # 3 * 4 * group passes 2^31 on big images
    groups = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    n_groups = n_pixels // 4
    mask = groups < n_groups  # the last program runs past the last whole group
    words = rgb_ptr.to(tl.pointer_type(tl.uint32))
    w0 = tl.load(words + 3 * groups, mask=mask)  # R0 G0 B0 R1, lowest byte first
    w1 = tl.load(words + 3 * groups + 1, mask=mask)  # G1 B1 R2 G2
    w2 = tl.load(words + 3 * groups + 2, mask=mask)  # B2 R3 G3 B3
    y0 = gray_of(w0 & 0xFF, (w0 >> 8) & 0xFF, (w0 >> 16) & 0xFF)
    y1 = gray_of(w0 >> 24, w1 & 0xFF, (w1 >> 8) & 0xFF)
    y2 = gray_of((w1 >> 16) & 0xFF, w1 >> 24, w2 & 0xFF)
    y3 = gray_of((w2 >> 8) & 0xFF, (w2 >> 16) & 0xFF, w2 >> 24)
    gray_words = gray_ptr.to(tl.pointer_type(tl.uint32))
    tl.store(gray_words + groups, y0 | (y1 << 8) | (y2 << 16) | (y3 << 24), mask=mask)
    if pid == 0:  # the n_pixels % 4 pixels after the last group
        tail = n_groups * 4 + tl.arange(0, 4)
        tail_mask = tail < n_pixels
        r = tl.load(rgb_ptr + 3 * tail, mask=tail_mask).to(tl.uint32)
        g = tl.load(rgb_ptr + 3 * tail + 1, mask=tail_mask).to(tl.uint32)
        b = tl.load(rgb_ptr + 3 * tail + 2, mask=tail_mask).to(tl.uint32)
        tl.store(gray_ptr + tail, gray_of(r, g, b), mask=tail_mask)


def rgb_to_gray_triton(rgb: torch.Tensor, gray: torch.Tensor) -> None:
    assert rgb.shape == (*gray.shape, 3), f"want an h x w x 3 image, got {tuple(rgb.shape)}"
    assert rgb.is_contiguous() and gray.is_contiguous(), "pixels must be contiguous"
    # 32-bit words need 4-byte aligned tensors: torch allocations are 16-byte aligned.
    assert rgb.data_ptr() % 4 == 0 and gray.data_ptr() % 4 == 0, "need 4-byte alignment"
    n = gray.numel()
    grid = (max(triton.cdiv(n // 4, BLOCK_SIZE), 1),)  # one program at least, for the tail
    rgb_to_gray_kernel[grid](rgb, gray, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
