"""Reference Triton int8 matmul with a dequantizing epilogue: the perf bar of lab14's
`int8_matmul` (hidden from students). c = (a @ b.T) * s_row[:, None] * s_col[None, :] in
bfloat16: tl.dot on int8 blocks into an int32 accumulator (the tensor cores' int8 path), the
scales in float32 after the K loop, one rounding to bfloat16.

Work (lab.toml's `flops`): 2 m n k. Minimum traffic: a and b once (m k + n k bytes), the scales
(4 (m + n)), c once (2 m n). Tiles numbered in groups of GROUP_SIZE_M tile rows (lab10's
matmul_fp16): the programs of one wave share their tiles of a and b in the L2.

Target (lab.toml): 0.9x torch._int_mm + scaling; the constants below were swept on an H100.
"""

import torch
import triton
import triton.language as tl

# Swept on an H100 (2026-12-06, `benchmarks/tune_references.py lab14`): 1194 TFLOP/s mean
# over 4096^3 and 8192^3, 2.1-3.3x torch._int_mm + scaling. 3 stages against 848 at 2 and
# 823-826 at 4 and 5; 256-row tiles 352 (docs/perf.md).
BLOCK_SIZE_M = 128
BLOCK_SIZE_N = 128
BLOCK_SIZE_K = 128
GROUP_SIZE_M = 8
NUM_WARPS = 4
NUM_STAGES = 3
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory fails to launch and is skipped):
TUNE = {"BLOCK_SIZE_M": (64, 128, 256), "BLOCK_SIZE_N": (64, 128, 256),
        "BLOCK_SIZE_K": (64, 128, 256), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4, 5)}


@triton.jit
def int8_matmul_kernel(a_ptr, b_ptr, s_row_ptr, s_col_ptr, c_ptr, m, n, k, stride_am, stride_bn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % rows).to(tl.int64)
    pid_n = ((pid % per_group) // rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_n[None, :] * stride_bn + offs_k[:, None]  # B = b^T: [kk, j] = b[j, kk]
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        a_blk = tl.load(a_ptrs, mask=(offs_m[:, None] < m) & (offs_k[None, :] < k - k0), other=0)
        b_blk = tl.load(b_ptrs, mask=(offs_k[:, None] < k - k0) & (offs_n[None, :] < n), other=0)
        acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_SIZE_K
        b_ptrs += BLOCK_SIZE_K
    sr = tl.load(s_row_ptr + offs_m, mask=offs_m < m, other=0.0)
    sc = tl.load(s_col_ptr + offs_n, mask=offs_n < n, other=0.0)
    out = acc.to(tl.float32) * sr[:, None] * sc[None, :]
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16), mask=mask)


def int8_matmul_triton(a: torch.Tensor, b: torch.Tensor, s_row: torch.Tensor,
                       s_col: torch.Tensor, c: torch.Tensor) -> None:
    m, k = a.shape
    n = b.shape[0]
    assert b.shape[1] == k and c.shape == (m, n) and s_row.shape == (m,) and s_col.shape == (n,), \
        f"a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous() \
        and s_row.is_contiguous() and s_col.is_contiguous(), "rows must be contiguous"
    bm, bn = BLOCK_SIZE_M, BLOCK_SIZE_N  # read per call: benchmarks/tune_references.py sets them
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    int8_matmul_kernel[grid](a, b, s_row, s_col, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=BLOCK_SIZE_K,
                             GROUP_SIZE_M=GROUP_SIZE_M, num_warps=NUM_WARPS,
                             num_stages=NUM_STAGES)
