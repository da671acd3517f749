"""Reference Triton int4 dequantization: the perf bar of lab12's `dequant_int4` (hidden from
students).

Byte ledger: read the packed bytes once (half a byte a weight) and the group scales (2 bytes
per 128 weights), write out once (2 bytes a weight): rows * cols / 2 + 2 * rows * cols / 128
+ 2 * rows * cols (lab.toml's `bytes`, itemsize = 2).

Flat over groups: group g (128 weights, 64 packed bytes, one scale) is row g // groups_per_row,
group g % groups_per_row of that row, and its output is out[128 g : 128 (g + 1)] (out is
contiguous and cols a multiple of 128). A program takes BLOCK_GROUPS groups as a
[BLOCK_GROUPS, 64] tile of bytes: rows of 64 contiguous bytes can load as 16-byte vectors (the
packed row stride is a multiple of 16, which Triton specialises on); the low and high nibbles
are interleaved into [BLOCK_GROUPS, 128] and stored contiguously. Only whole groups exist, so
the mask is per group.
"""

import torch
import triton
import triton.language as tl

BLOCK_GROUPS = 32  # swept on an H200, 2026-12-01 (docs/perf.md)
NUM_WARPS = 4  # swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_GROUPS": (4, 8, 16, 32, 64), "NUM_WARPS": (2, 4, 8)}
GROUP_SIZE = 128  # weights per scale


@triton.jit
def dequant_int4_kernel(
    packed_ptr,  # [rows, cols / 2] uint8, rows stride_pr apart
    scale_ptr,  # [rows, cols / 128] bfloat16, rows stride_sr apart
    out_ptr,  # [rows, cols] bfloat16, contiguous
    n_rows,  # rows
    n_cols,  # cols, a multiple of GROUP_SIZE
    stride_pr,  # bytes between the starts of two rows of packed
    stride_sr,  # elements between the starts of two rows of scale
    GROUP_SIZE: tl.constexpr,  # weights per scale: 128
    BLOCK_GROUPS: tl.constexpr,  # groups per program
):
    groups_per_row = n_cols // GROUP_SIZE
    g = tl.program_id(axis=0).to(tl.int64) * BLOCK_GROUPS + tl.arange(0, BLOCK_GROUPS)
    mask = g < n_rows * groups_per_row  # the last program runs past the last group
    row = g // groups_per_row
    grp = g % groups_per_row
    byte_offs = (row * stride_pr + grp * (GROUP_SIZE // 2))[:, None] + \
        tl.arange(0, GROUP_SIZE // 2)[None, :]
    b = tl.load(packed_ptr + byte_offs, mask=mask[:, None]).to(tl.int32)
    s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)[:, None]
    lo = ((b & 0xF) - 8).to(tl.float32) * s  # elements 2j
    hi = ((b >> 4) - 8).to(tl.float32) * s  # elements 2j + 1
    vals = tl.interleave(lo, hi)  # [BLOCK_GROUPS, GROUP_SIZE]: lo0 hi0 lo1 hi1 ...
    out_offs = g[:, None] * GROUP_SIZE + tl.arange(0, GROUP_SIZE)[None, :]
    tl.store(out_ptr + out_offs, vals.to(out_ptr.dtype.element_ty), mask=mask[:, None])


def dequant_int4_triton(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    rows, cols = out.shape
    assert cols % GROUP_SIZE == 0, f"cols = {cols} is not a multiple of {GROUP_SIZE}"
    assert packed.shape == (rows, cols // 2) and scale.shape == (rows, cols // GROUP_SIZE), \
        f"packed {tuple(packed.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert packed.stride(1) == 1 and scale.stride(1) == 1 and out.is_contiguous(), \
        "rows must be contiguous columns"
    n_groups = rows * (cols // GROUP_SIZE)
    grid = (triton.cdiv(n_groups, BLOCK_GROUPS),)
    dequant_int4_kernel[grid](packed, scale, out, rows, cols, packed.stride(0), scale.stride(0),
                              GROUP_SIZE=GROUP_SIZE, BLOCK_GROUPS=BLOCK_GROUPS,
                              num_warps=NUM_WARPS)
