"""Reference Triton linear layer with a fused GELU: the perf bar of lab15's `linear_gelu`
(hidden from students). y = gelu_tanh(x @ w.T + b) in bfloat16: tl.dot over K blocks into a
float32 accumulator, then in the epilogue the bias and GELU's tanh form (as v * sigmoid(2u)) in
float32, one rounding to bfloat16 at the store.

The bfloat16 blocks go to tl.dot as they are (the tensor cores' bfloat16 path: exact
products, a float32 sum).

Work (lab.toml's `flops`): 2 m n k. Minimum traffic: 2 (m k + n k + n + m n) bytes.
Tiles numbered in groups of GROUP_SIZE_M tile rows (lab10's matmul_fp16).

The constants are NOT yet tuned on a GPU (benchmarks/tune_references.py has not run on this
file): lab10's float16 winners as a first guess. Target (lab.toml): 1.0x cuBLAS + a GELU kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK_SIZE_M = 128  # not yet tuned on a GPU
BLOCK_SIZE_N = 128  # not yet tuned on a GPU
BLOCK_SIZE_K = 64  # not yet tuned on a GPU
GROUP_SIZE_M = 8  # not yet tuned on a GPU
NUM_WARPS = 8  # not yet tuned on a GPU
NUM_STAGES = 3  # not yet tuned on a GPU
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory fails to launch and is skipped). BLOCK_SIZE_M 16
# and 32 for the decode-like batch (64 rows).
TUNE = {"BLOCK_SIZE_M": (16, 32, 64, 128, 256), "BLOCK_SIZE_N": (64, 128, 256),
        "BLOCK_SIZE_K": (32, 64, 128), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4, 5)}


@triton.jit
def linear_gelu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, m, n, k, stride_xm, stride_wn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
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
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
    w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]  # W^T: [kk, j] = w[j, kk]
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        x_blk = tl.load(x_ptrs, mask=(offs_m[:, None] < m) & (offs_k[None, :] < k - k0),
                        other=0.0)
        w_blk = tl.load(w_ptrs, mask=(offs_k[:, None] < k - k0) & (offs_n[None, :] < n),
                        other=0.0)
        acc = tl.dot(x_blk, w_blk, acc)  # bfloat16 products, exact; a float32 sum
        x_ptrs += BLOCK_SIZE_K
        w_ptrs += BLOCK_SIZE_K
    bias = tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)
    v = acc + bias[None, :]
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    out = v / (1.0 + tl.exp(-2.0 * u))
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
    tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16), mask=mask)


def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                       y: torch.Tensor) -> None:
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    bm, bn = BLOCK_SIZE_M, BLOCK_SIZE_N  # read per call: benchmarks/tune_references.py sets them
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    linear_gelu_kernel[grid](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                             BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=BLOCK_SIZE_K,
                             GROUP_SIZE_M=GROUP_SIZE_M, num_warps=NUM_WARPS,
                             num_stages=NUM_STAGES)
