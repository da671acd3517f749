"""Reference Triton layer norm and RMSNorm: the perf bar of lab08's forward exercises (hidden
from students). `layernorm_triton.py` and `rmsnorm_triton.py` each export one launcher from
here.

Byte ledger: read x once, write out once, read weight (and bias) once: itemsize * (2 * n_rows
* n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows * n_cols + n_cols) for RMSNorm
(lab.toml's `bytes`). A program holds ROWS whole rows (BLOCK_N = next power of two >= n_cols
columns each) in registers from the load to the store: the statistics are reductions over
registers, layer norm's variance a second pass around the mean (no cancellation). Short rows
go several to a program, so that a program still moves enough bytes.
"""

import torch
import triton
import triton.language as tl

# Row values per thread: sets num_warps, BLOCK_N x ROWS / (32 x ELEMS_PER_THREAD), 1 to 16.
# Starting point from lab07's softmax sweep on an H200 (4 warps up to 2048 columns, 16 at
# 16384: docs/perf.md); to be swept for this lab on an H200.
ELEMS_PER_THREAD = 16
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ELEMS_PER_THREAD": (8, 16, 32)}
# The smallest tile a program holds: rows shorter than this go several to a program (ROWS =
# MIN_TILE / BLOCK_N). Not swept: the perf shapes' rows (4096, 5120) are one to a program
# either way; it shapes the sweep plot's short rows only.
MIN_TILE = 2048
MAX_WARPS = 16
MAX_BLOCK_N = 65536  # longer rows would need a chunked kernel: no lab shape comes close


@triton.jit
def norm_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    w_ptr,  # weight, n_cols
    b_ptr,  # bias, n_cols (not read when RMS)
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_rows,  # rows
    n_cols,  # columns per row
    stride_xr,  # elements between the starts of two rows of x
    eps,  # inside the square root
    RMS: tl.constexpr,  # RMSNorm instead of layer norm
    ROWS: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # a power of two >= n_cols
):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)  # 64-bit: row * stride
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the block is wider than the row
    mask = (rows < n_rows)[:, None] & col_mask[None, :]  # the last program runs past the rows
    x = tl.load(x_ptr + rows[:, None] * stride_xr + cols[None, :], mask=mask, other=0.0,
                eviction_policy="evict_first").to(tl.float32)  # streamed: read once
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    if RMS:
        rstd = tl.rsqrt(tl.sum(x * x, axis=1) / n_cols + eps)
        y = x * rstd[:, None] * w[None, :]
    else:
        mean = tl.sum(x, axis=1) / n_cols
        d = tl.where(mask, x - mean[:, None], 0.0)  # not the zeros past the row
        rstd = tl.rsqrt(tl.sum(d * d, axis=1) / n_cols + eps)
        b = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
        y = d * rstd[:, None] * w[None, :] + b[None, :]
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=mask)


def config(n_cols: int) -> tuple[int, int, int]:
    """(BLOCK_N, rows per program, num_warps)."""
    block_n = triton.next_power_of_2(n_cols)
    assert block_n <= MAX_BLOCK_N, f"n_cols = {n_cols}: rows up to {MAX_BLOCK_N} columns"
    rows = max(1, MIN_TILE // block_n)
    warps = min(MAX_WARPS, max(1, rows * block_n // (32 * ELEMS_PER_THREAD)))
    return block_n, rows, triton.next_power_of_2(warps)


def launch(rms: bool, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
           out: torch.Tensor, eps: float) -> None:
    assert x.ndim == 2 and x.stride(1) == 1, f"rows must be contiguous columns: {x.stride()}"
    n_rows, n_cols = x.shape
    block_n, rows, warps = config(n_cols)
    norm_kernel[(triton.cdiv(n_rows, rows),)](
        x, weight, bias, out, n_rows, n_cols, x.stride(0), eps, RMS=rms, ROWS=rows,
        BLOCK_N=block_n, num_warps=warps)


def layernorm_triton(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                     out: torch.Tensor, eps: float) -> None:
    launch(False, x, weight, bias, out, eps)


def rmsnorm_triton(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    launch(True, x, weight, weight, out, eps)  # the kernel takes a bias; RMSNorm never reads it
