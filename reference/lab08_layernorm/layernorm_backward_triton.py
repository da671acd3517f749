"""Reference Triton layer-norm backward: the perf bar of lab08's `layernorm_backward` (hidden
from students).

Byte ledger: read dy and x once, write dx once: itemsize * 3 * n_rows * n_cols; read weight
once: itemsize * n_cols; read the float32 mean and rstd once: 4 * 2 * n_rows; write the
float32 dw and db once: 4 * 2 * n_cols (lab.toml's `bytes`). Beyond the ledger: the partial
rows, 2 * n_groups * n_cols float32 written by stage 1 and read by stage 2, n_groups =
n_rows / ROWS_PER_GROUP.

Stage 1: a program per group of ROWS_PER_GROUP consecutive rows, a whole row in registers at
a time (BLOCK_N = next power of two >= n_cols), weight and the dw and db accumulators in
registers for the whole group. Stage 2: each program sums SUM_BLOCK_N columns of the partial
rows, SUM_BLOCK_G rows at a time.
"""

import torch
import triton
import triton.language as tl

# Rows per program (16384 rows / 32 = 512 programs, about 4 per SM of an H200), row values per
# thread (sets num_warps) and stage 2's columns per program. To be swept on an H200.
ROWS_PER_GROUP = 32
ELEMS_PER_THREAD = 16
SUM_BLOCK_N = 64
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ROWS_PER_GROUP": (16, 32, 64, 128), "ELEMS_PER_THREAD": (8, 16, 32),
        "SUM_BLOCK_N": (32, 64, 128)}
SUM_BLOCK_G = 32  # stage 2's partial rows per step
MAX_WARPS = 16


@triton.jit
def ln_bwd_kernel(
    dy_ptr,  # n_rows x n_cols, rows stride_dyr apart
    x_ptr,  # n_rows x n_cols, rows stride_xr apart
    mean_ptr,  # n_rows float32
    rstd_ptr,  # n_rows float32
    w_ptr,  # n_cols
    dx_ptr,  # output: n_rows x n_cols, contiguous
    partial_dw_ptr,  # output: n_groups x n_cols float32
    partial_db_ptr,  # output: n_groups x n_cols float32
    n_rows,
    n_cols,
    stride_dyr,
    stride_xr,
    rows_per_group,
    BLOCK_N: tl.constexpr,  # a power of two >= n_cols
):
    group = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols  # the block is wider than the row
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)  # 0 past the row: g = 0
    acc_w = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_N], dtype=tl.float32)
    first = group.to(tl.int64) * rows_per_group  # 64-bit rows: row * stride can pass 2^31
    last = tl.minimum(first + rows_per_group, n_rows)
    for row in range(first, last):
        x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0,
                    eviction_policy="evict_first").to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_dyr + cols, mask=mask, other=0.0,
                     eviction_policy="evict_first").to(tl.float32)
        mean = tl.load(mean_ptr + row)
        rstd = tl.load(rstd_ptr + row)
        xhat = (x - mean) * rstd
        g = dy * w
        mean_g = tl.sum(g, axis=0) / n_cols
        mean_gx = tl.sum(g * xhat, axis=0) / n_cols
        dx = (g - mean_g - xhat * mean_gx) * rstd
        tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
        acc_w += dy * xhat
        acc_b += dy
    tl.store(partial_dw_ptr + group * n_cols + cols, acc_w, mask=mask)
    tl.store(partial_db_ptr + group * n_cols + cols, acc_b, mask=mask)


@triton.jit
def column_sum_kernel(
    partial_dw_ptr,  # n_groups x n_cols float32
    partial_db_ptr,
    dw_ptr,  # output: n_cols float32
    db_ptr,
    n_groups,
    n_cols,
    BLOCK_G: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the last program runs past the last column
    acc_w = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    for g0 in range(0, n_groups, BLOCK_G):
        groups = g0 + tl.arange(0, BLOCK_G)
        mask = (groups < n_groups)[:, None] & col_mask[None, :]  # the last step runs past
        offs = groups[:, None] * n_cols + cols[None, :]
        acc_w += tl.load(partial_dw_ptr + offs, mask=mask, other=0.0)
        acc_b += tl.load(partial_db_ptr + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(acc_w, axis=0), mask=col_mask)  # one reduction at the end
    tl.store(db_ptr + cols, tl.sum(acc_b, axis=0), mask=col_mask)


def layernorm_backward_triton(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                              rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                              dw: torch.Tensor, db: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1, "rows must be contiguous columns"
    rows_per_group = ROWS_PER_GROUP  # read per call: benchmarks/tune_references.py sets it
    n_groups = triton.cdiv(n_rows, rows_per_group)
    partial = torch.empty((2, n_groups, n_cols), dtype=torch.float32, device=x.device)
    block_n = triton.next_power_of_2(n_cols)
    warps = min(MAX_WARPS, max(1, block_n // (32 * ELEMS_PER_THREAD)))
    ln_bwd_kernel[(n_groups,)](dy, x, mean, rstd, weight, dx, partial[0], partial[1], n_rows,
                               n_cols, dy.stride(0), x.stride(0), rows_per_group,
                               BLOCK_N=block_n, num_warps=triton.next_power_of_2(warps))
    column_sum_kernel[(triton.cdiv(n_cols, SUM_BLOCK_N),)](
        partial[0], partial[1], dw, db, n_groups, n_cols, BLOCK_G=SUM_BLOCK_G,
        BLOCK_N=SUM_BLOCK_N, num_warps=4)
