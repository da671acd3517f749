"""Reference Triton matrix add: the perf bar of lab02's matrix_add (hidden from students).

Byte ledger: read x and y once, write out once: 3 * n_rows * n_cols * itemsize (lab.toml's
`bytes`). One program per BLOCK_SIZE_M x BLOCK_SIZE_N tile, on a 1-D grid numbered along the
rows (consecutive programs stream through a band of rows; no 65535 limit on any axis). A
column stride equal to 1 is compiled as a constant (Triton specializes integer arguments equal
to 1), and 16-byte aligned pointers and row strides that are multiples of 16 elements are
known to the compiler: on contiguous float32 rows the loads and stores are 16 bytes wide.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE_M = 32  # swept on an H200, see docs/perf.md
BLOCK_SIZE_N = 512  # swept on an H200, see docs/perf.md
NUM_WARPS = 8  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE_M": (4, 8, 16, 32), "BLOCK_SIZE_N": (256, 512, 1024),
        "NUM_WARPS": (4, 8)}


@triton.jit
def matrix_add_kernel(
    x_ptr,  # first input, any strides
    y_ptr,  # second input, any strides
    out_ptr,  # output, contiguous
    n_rows,  # rows
    n_cols,  # columns
    stride_xm,  # x's strides, in elements
    stride_xn,
    stride_ym,  # y's strides
    stride_yn,
    BLOCK_SIZE_M: tl.constexpr,  # rows per tile
    BLOCK_SIZE_N: tl.constexpr,  # columns per tile
):
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n_cols, BLOCK_SIZE_N)
    # 64-bit from here on: row * stride and (for a transposed view) col * stride pass 2^31.
    pid_m = (pid // tiles_n).to(tl.int64)
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)  # both edges
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x + y, mask=mask)


def matrix_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = out.shape
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M) * triton.cdiv(n_cols, BLOCK_SIZE_N),)
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols, x.stride(0), x.stride(1), y.stride(0),
                            y.stride(1), BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                            num_warps=NUM_WARPS)
