"""Reference Triton RGBA invert: the perf bar for lab05's invert (hidden from students).

Byte ledger: read 4 bytes per pixel once, write 4 bytes per pixel once: 2 * 4 * h * w
(lab.toml's `itemsize * 2 * c * h * w`, itemsize = 1).

One RGBA pixel is one 32-bit word (R in the low byte on a little-endian GPU): XOR with
0x00FFFFFF inverts R, G and B and keeps A. Consecutive words vectorise to 16-byte accesses.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024  # swept on an H200, see docs/perf.md
NUM_WARPS = 8  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE": (1024, 2048, 4096, 8192), "NUM_WARPS": (4, 8, 16)}


@triton.jit
def invert_kernel(
    rgba_ptr,  # input: n_pixels words
    out_ptr,  # output: n_pixels words
    n_pixels,  # h * w
    BLOCK_SIZE: tl.constexpr,  # pixels per program
):
    pid = tl.program_id(axis=0).to(tl.int64)  # byte offsets pass 2^31 on big images
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_pixels  # the last program runs past the end
    words = rgba_ptr.to(tl.pointer_type(tl.uint32))
    out_words = out_ptr.to(tl.pointer_type(tl.uint32))
    # 255 - v == v ^ 0xFF for a byte: flip the three low bytes (R, G, B), keep the top one (A).
    tl.store(out_words + offs, tl.load(words + offs, mask=mask) ^ 0x00FFFFFF, mask=mask)


def invert_triton(rgba: torch.Tensor, out: torch.Tensor) -> None:
    assert rgba.shape == out.shape and rgba.shape[-1] == 4, f"want h x w x 4, {rgba.shape}"
    assert rgba.is_contiguous() and out.is_contiguous(), "pixels must be contiguous"
    assert rgba.data_ptr() % 4 == 0 and out.data_ptr() % 4 == 0, "need 4-byte alignment"
    n = out.numel() // 4
    grid = (triton.cdiv(n, BLOCK_SIZE),)
    invert_kernel[grid](rgba, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=NUM_WARPS)
