"""Reference Triton row softmax: the perf bar for lab07 (hidden from students).

Byte ledger: read each row once, write it once: 2 * n_rows * n_cols * itemsize. The whole
row stays in registers between the max, the exponentials and the sum.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(
    x_ptr,  # input rows, stride_xr apart
    out_ptr,  # output rows, contiguous
    n_rows,  # rows
    n_cols,  # columns per row
    stride_xr,  # elements between two rows of x
    BLOCK_SIZE: tl.constexpr,  # power of two >= n_cols
    ROWS_PER_PROGRAM: tl.constexpr,  # short rows: several per program amortise the launch
):
    pid = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols  # the block is wider than the row
    for i in tl.static_range(ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + i
        ok = mask & (row < n_rows)  # the last program may run past the last row
        x = tl.load(x_ptr + row * stride_xr + offs, mask=ok, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=ok)


def config(n_cols: int) -> tuple[int, int, int]:
    """(BLOCK_SIZE, num_warps, rows per program); from a sweep on an H200, see docs/perf.md."""
    block = triton.next_power_of_2(n_cols)
    num_warps = 4 if block <= 2048 else 8 if block <= 8192 else 16
    rows = 4 if block <= 512 else 1
    return block, num_warps, rows


def softmax_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    block, num_warps, rows = config(n_cols)
    grid = (triton.cdiv(n_rows, rows),)
    softmax_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE=block,
                         ROWS_PER_PROGRAM=rows, num_warps=num_warps)
