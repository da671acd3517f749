"""Reference Triton matrix copy: the perf bar of lab02's matrix_copy (hidden from students).

Byte ledger: read x once, write out once: 2 * n_rows * n_cols * itemsize (lab.toml's
`bytes`). The tiling of matrix_add_triton.py: a 1-D grid of BLOCK_SIZE_M x BLOCK_SIZE_N tiles
numbered along the rows, 64-bit offsets, 16-byte accesses on aligned contiguous rows.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE_M = 4  # swept on an H200, see docs/perf.md
BLOCK_SIZE_N = 256  # swept on an H200, see docs/perf.md
NUM_WARPS = 8  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE_M": (4, 8, 16, 32), "BLOCK_SIZE_N": (256, 512, 1024),
        "NUM_WARPS": (4, 8)}


@triton.jit
def matrix_copy_kernel(
    x_ptr,  # input, rows stride_xm apart, columns adjacent
    out_ptr,  # output, contiguous
    n_rows,  # rows
    n_cols,  # columns
    stride_xm,  # elements between two rows of x
    BLOCK_SIZE_M: tl.constexpr,  # rows per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns per tile
):
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n_cols, BLOCK_SIZE_N)
    pid_m = (pid // tiles_n).to(tl.int64)  # row * stride_xm passes 2^31 on large matrices
    pid_n = pid % tiles_n
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)  # both edges
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x, mask=mask)


def matrix_copy_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = out.shape
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M) * triton.cdiv(n_cols, BLOCK_SIZE_N),)
    matrix_copy_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=BLOCK_SIZE_M,
                             BLOCK_SIZE_N=BLOCK_SIZE_N, num_warps=NUM_WARPS)
