"""Reference Triton transpose: the perf bar of lab09 (hidden from students).

Byte ledger: read x once, write out once: 2 * n_rows * n_cols * itemsize (lab.toml's
`bytes`).

One program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of x, on a 1-D grid (no 65535 limit on any
axis), 64-bit offsets. The tile is loaded with x's strides (contiguous along axis 1) and stored
with out's (contiguous along axis 0): the compiler converts its register layout through shared
memory between the two, so both global accesses are coalesced. 16-byte aligned pointers and
n_rows, stride_xm multiples of 16 are known to the compiler (Triton specializes them): on such
matrices (16384 x 16384) both sides are 16 bytes wide.

Tiles are numbered in groups of GROUP_SIZE_M row tiles: consecutive programs take the
group's row tiles of one column tile first, so programs running at the same time write
neighbouring pieces of the same rows of out (GROUP_SIZE_M = 1: plain row-major order).
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE_M = 64  # swept on an H200, 2026-12-01 (docs/perf.md)
BLOCK_SIZE_N = 64  # swept on an H200, 2026-12-01 (docs/perf.md)
NUM_WARPS = 8  # swept on an H200, 2026-12-01 (docs/perf.md)
GROUP_SIZE_M = 1  # swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE_M": (32, 64, 128), "BLOCK_SIZE_N": (32, 64, 128), "NUM_WARPS": (2, 4, 8),
        "GROUP_SIZE_M": (1, 4, 16)}


@triton.jit
def transpose_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xm elements apart
    out_ptr,  # output, n_cols x n_rows, contiguous
    n_rows,  # rows of x
    n_cols,  # columns of x
    stride_xm,  # elements between two rows of x
    BLOCK_SIZE_M: tl.constexpr,  # rows of x per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns of x per tile
    GROUP_SIZE_M: tl.constexpr,  # row tiles per group of the numbering
):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(n_rows, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n_cols, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    in_group = pid % per_group
    # 64-bit from here on: offs_m * stride_xm and offs_n * n_rows pass 2^31 on large matrices.
    pid_m = (first_m + in_group % group_rows).to(tl.int64)
    pid_n = (in_group // group_rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of x
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # columns of x
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)  # both edges
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)


def transpose_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M) * triton.cdiv(n_cols, BLOCK_SIZE_N),)
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=BLOCK_SIZE_M,
                           BLOCK_SIZE_N=BLOCK_SIZE_N, GROUP_SIZE_M=GROUP_SIZE_M,
                           num_warps=NUM_WARPS)
