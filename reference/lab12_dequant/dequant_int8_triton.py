"""Reference Triton int8 dequantization: the perf bar of lab12's `dequant_int8` (hidden from
students).

Byte ledger: read w once (1 byte a weight) and the row scales (2 bytes a row), write out once
(2 bytes a weight): 3 * rows * cols + 2 * rows (lab.toml's `bytes`, itemsize = 2).

A 2-D grid: axis 0 the row (axis 1 stops at 65535), axis 1 a block of columns. Consecutive
int8 loads and bfloat16 stores vectorise to 16-byte accesses where Triton can prove the
alignment (w.stride(0) divisible by 16 is specialised as such).
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 8192  # swept on an H200, 2026-12-01 (docs/perf.md)
NUM_WARPS = 16  # swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE": (1024, 2048, 4096, 8192), "NUM_WARPS": (2, 4, 8, 16)}


@triton.jit
def dequant_int8_kernel(
    w_ptr,  # [rows, cols] int8, rows stride_wr apart
    scale_ptr,  # [rows] bfloat16
    out_ptr,  # [rows, cols] bfloat16, contiguous
    n_cols,  # cols
    stride_wr,  # elements between the starts of two rows of w
    BLOCK_SIZE: tl.constexpr,  # columns per program
):
    row = tl.program_id(axis=0).to(tl.int64)  # row * stride_wr can pass 2^31
    cols = tl.program_id(axis=1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols  # the row's last block runs past its end
    w = tl.load(w_ptr + row * stride_wr + cols, mask=mask).to(tl.float32)
    s = tl.load(scale_ptr + row).to(tl.float32)  # one scale for the whole row
    tl.store(out_ptr + row * n_cols + cols, (w * s).to(out_ptr.dtype.element_ty), mask=mask)


def dequant_int8_triton(w: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    rows, cols = out.shape
    assert w.shape == (rows, cols) and scale.shape == (rows,), \
        f"w {tuple(w.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert w.stride(1) == 1 and scale.is_contiguous() and out.is_contiguous(), \
        "rows must be contiguous columns"
    block = max(16, min(BLOCK_SIZE, triton.next_power_of_2(cols)))
    warps = max(1, min(NUM_WARPS, block // 256))  # at least 8 weights per thread
    grid = (rows, triton.cdiv(cols, block))
    dequant_int8_kernel[grid](w, scale, out, cols, w.stride(0), BLOCK_SIZE=block,
                              num_warps=warps)
