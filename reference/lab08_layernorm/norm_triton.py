"""Reference Triton layer norm and RMSNorm: the perf bar of lab08's forward exercises (hidden
from students). `layernorm_triton.py` and `rmsnorm_triton.py` each export one launcher from
here.

Byte ledger: read x once, write out once, read weight (and bias) once: itemsize * (2 * n_rows
* n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows * n_cols + n_cols) for RMSNorm
(lab.toml's `bytes`). A program holds ROWS whole rows in registers from the load to the store:
BLOCK_N = the next power of two >= n_cols columns each, or (SPLIT) a power-of-two head and a
power-of-two tail where that masks fewer lanes (5120 = 4096 + 1024, none masked, where one
block of 8192 masks 37.5%). The statistics are reductions over registers, layer norm's variance
a second pass around the mean (no cancellation). Short rows go several to a program, so that
a program still moves enough bytes.
"""

import torch
import triton
import triton.language as tl

# Row values per thread, by dtype: sets num_warps, the program's values / (32 x it), 1 to 16.
# A 16-bit row holds half the bytes per value, and may want more values per thread. Start:
# lab07's softmax sweep on an H200 (4 warps up to 2048 columns, 16 at 16384: docs/perf.md),
# and this lab's Triton solutions, 4 warps at 4096 columns and 8 at 5120 (32 values a
# thread), which measured 1.05-1.19x the reference at 16 (docs/perf.md, "Labs 08 and 10").
# To be swept on an H200.
ELEMS_PER_THREAD = 32  # swept on an H200 (2026-12-01), docs/perf.md
ELEMS_PER_THREAD_BF16 = 32  # swept on an H200 (2026-12-01), docs/perf.md
# SPLIT: rows of one program each, not a power of two, held as a head and a tail block (above)
# when that masks fewer lanes than one block. To be swept on an H200.
SPLIT = False  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ELEMS_PER_THREAD": (8, 16, 32), "ELEMS_PER_THREAD_BF16": (16, 32, 64),
        "SPLIT": (True, False)}
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
    BLOCK_N: tl.constexpr,  # a power of two: the row's first columns (all of them if no tail)
    TAIL_N: tl.constexpr,  # 0, or a power of two holding columns BLOCK_N .. n_cols - 1
):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)  # 64-bit: row * stride
    row_mask = rows < n_rows  # the last program runs past the rows
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the block is wider than the row
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xr + cols[None, :], mask=mask, other=0.0,
                eviction_policy="evict_first").to(tl.float32)  # streamed: read once
    s = tl.sum(x * x if RMS else x, axis=1)
    if TAIL_N > 0:  # a second register block: the same steps on the tail's columns
        t_cols = BLOCK_N + tl.arange(0, TAIL_N)
        t_col_mask = t_cols < n_cols
        t_mask = row_mask[:, None] & t_col_mask[None, :]
        xt = tl.load(x_ptr + rows[:, None] * stride_xr + t_cols[None, :], mask=t_mask,
                     other=0.0, eviction_policy="evict_first").to(tl.float32)
        s += tl.sum(xt * xt if RMS else xt, axis=1)
    if RMS:
        mean = tl.zeros([ROWS], dtype=tl.float32)
        rstd = tl.rsqrt(s / n_cols + eps)
    else:
        mean = s / n_cols
        d = tl.where(mask, x - mean[:, None], 0.0)  # not the zeros past the row
        q = tl.sum(d * d, axis=1)
        if TAIL_N > 0:
            dt = tl.where(t_mask, xt - mean[:, None], 0.0)
            q += tl.sum(dt * dt, axis=1)
        rstd = tl.rsqrt(q / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    y = (x - mean[:, None]) * rstd[:, None] * w[None, :]
    if not RMS:
        y += tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=mask)
    if TAIL_N > 0:
        wt = tl.load(w_ptr + t_cols, mask=t_col_mask, other=0.0).to(tl.float32)
        yt = (xt - mean[:, None]) * rstd[:, None] * wt[None, :]
        if not RMS:
            yt += tl.load(b_ptr + t_cols, mask=t_col_mask, other=0.0).to(tl.float32)[None, :]
        tl.store(out_ptr + rows[:, None] * n_cols + t_cols[None, :],
                 yt.to(out_ptr.dtype.element_ty), mask=t_mask)


def config(n_cols: int, itemsize: int) -> tuple[int, int, int, int]:
    """(BLOCK_N, TAIL_N, rows per program, num_warps)."""
    block_n = triton.next_power_of_2(n_cols)
    assert block_n <= MAX_BLOCK_N, f"n_cols = {n_cols}: rows up to {MAX_BLOCK_N} columns"
    tail_n = 0
    if SPLIT and block_n >= 2 * MIN_TILE and block_n != n_cols:
        head = block_n // 2
        block_n, tail_n = head, max(16, triton.next_power_of_2(n_cols - head))  # < 2 head
    rows = max(1, MIN_TILE // block_n)
    per_thread = ELEMS_PER_THREAD if itemsize == 4 else ELEMS_PER_THREAD_BF16
    warps = min(MAX_WARPS, max(1, rows * (block_n + tail_n) // (32 * per_thread)))
    return block_n, tail_n, rows, 1 << (warps.bit_length() - 1)  # a power of two, rounded down


def launch(rms: bool, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
           out: torch.Tensor, eps: float) -> None:
    assert x.ndim == 2 and x.stride(1) == 1, f"rows must be contiguous columns: {x.stride()}"
    n_rows, n_cols = x.shape
    block_n, tail_n, rows, warps = config(n_cols, x.element_size())
    norm_kernel[(triton.cdiv(n_rows, rows),)](
        x, weight, bias, out, n_rows, n_cols, x.stride(0), eps, RMS=rms, ROWS=rows,
        BLOCK_N=block_n, TAIL_N=tail_n, num_warps=warps)


def layernorm_triton(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                     out: torch.Tensor, eps: float) -> None:
    launch(False, x, weight, bias, out, eps)


def rmsnorm_triton(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    launch(True, x, weight, weight, out, eps)  # the kernel takes a bias; RMSNorm never reads it
