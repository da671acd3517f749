"""Reference Triton linear layer with a fused GELU: the perf bar of lab15's `linear_gelu`
(hidden from students). y = gelu_tanh(x @ w.T + b) in bfloat16: tl.dot over K blocks into a
float32 accumulator, then in the epilogue the bias and GELU's tanh form (as v * sigmoid(2u)) in
float32, one rounding to bfloat16 at the store.

The bfloat16 blocks go to tl.dot as they are (the tensor cores' bfloat16 path: exact
products, a float32 sum).

Work (lab.toml's `flops`): 2 m n k. Minimum traffic: 2 (m k + n k + n + m n) bytes.
Tiles numbered in groups of GROUP_SIZE_M tile rows (lab10's matmul_fp16).

Target (lab.toml): 1.0x cuBLAS + a GELU kernel; the constants below were swept on an H100.
"""

import torch
import triton
import triton.language as tl

# Swept on an H100 (2026-12-06, `benchmarks/tune_references.py lab15`). Prefill (4096^3):
# 128 x 128 x 64 tiles, 8 warps, 3 stages: 573-575 TFLOP/s (256-row tiles 68, 256-column 518,
# 2 stages 466, 4 warps 545; GROUP_SIZE_M within 1%). That is 0.85x cuBLAS + a GELU kernel
# (669-684): short of lab.toml's 1.0x. Loads through TMA descriptors measured 596 (0.89x),
# not enough to close it either (docs/perf.md).
BLOCK_SIZE_M = 128
BLOCK_SIZE_N = 128
BLOCK_SIZE_K = 64
GROUP_SIZE_M = 8
NUM_WARPS = 8
NUM_STAGES = 3
# A batch of at most DECODE_ROWS rows (decode: the weight read dominates, and a 128-row tile
# would leave most of the GPU idle) has constants of its own, read per call as the others.
# Decode (64 x 4096 x 4096): one 64-row tile, 32 columns a program (128 programs on 132 SMs),
# K tiles 256 deep, 4 warps, 4 stages: 123-128 TFLOP/s, 1.17-1.25x cuBLAS + GELU (16 or 64
# columns 100 or out of shared memory; 16-row tiles 59).
DECODE_ROWS = 128
DECODE_BLOCK_SIZE_M = 64
DECODE_BLOCK_SIZE_N = 32
DECODE_BLOCK_SIZE_K = 256
DECODE_NUM_WARPS = 4
DECODE_NUM_STAGES = 4
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory fails to launch and is skipped). Each set moves
# only its own perf shape.
TUNE = {"BLOCK_SIZE_M": (64, 128, 256), "BLOCK_SIZE_N": (64, 128, 256),
        "BLOCK_SIZE_K": (32, 64, 128), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4, 5),
        "DECODE_BLOCK_SIZE_M": (16, 32, 64), "DECODE_BLOCK_SIZE_N": (16, 32, 64, 128),
        "DECODE_BLOCK_SIZE_K": (64, 128, 256), "DECODE_NUM_WARPS": (2, 4, 8),
        "DECODE_NUM_STAGES": (3, 4, 5, 6)}


@triton.jit
def linear_gelu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, m, n, k, stride_xm, stride_wn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                       EVEN_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % group_rows).to(tl.int64)
    pid_n = ((pid % per_group) // group_rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    in_m = offs_m[:, None] < m  # rows past m and columns past n: zeros, never stored
    in_n = offs_n[None, :] < n
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
        w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]  # W^T: [kk, j] = w[j, kk]
        if EVEN_K:  # k a multiple of BLOCK_SIZE_K: no mask along k
            x_blk = tl.load(x_ptrs, mask=in_m, other=0.0)
            w_blk = tl.load(w_ptrs, mask=in_n, other=0.0)
        else:
            x_blk = tl.load(x_ptrs, mask=in_m & (offs_k[None, :] < k), other=0.0)
            w_blk = tl.load(w_ptrs, mask=(offs_k[:, None] < k) & in_n, other=0.0)
        acc = tl.dot(x_blk, w_blk, acc)  # bfloat16 products, exact; a float32 sum
    bias = tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)
    v = acc + bias[None, :]
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    out = v / (1.0 + tl.exp(-2.0 * u))
    tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16),
             mask=in_m & in_n)


def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                       y: torch.Tensor) -> None:
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    # Read per call: benchmarks/tune_references.py sets them.
    if m <= DECODE_ROWS:
        bm, bn, bk, group = DECODE_BLOCK_SIZE_M, DECODE_BLOCK_SIZE_N, DECODE_BLOCK_SIZE_K, 1
        warps, stages = DECODE_NUM_WARPS, DECODE_NUM_STAGES
    else:
        bm, bn, bk, group = BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M
        warps, stages = NUM_WARPS, NUM_STAGES
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    linear_gelu_kernel[grid](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                             BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                             GROUP_SIZE_M=group, EVEN_K=k % bk == 0, num_warps=warps,
                             num_stages=stages)
