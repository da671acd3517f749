"""Reference Triton matmul: the kernel both of lab10's Triton references share (hidden from
students). matmul_fp32_triton.py runs it in IEEE float32, matmul_fp16_triton.py in float16 on
the tensor cores; each holds its own launch constants and their sweep.

Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum (not what a tiled kernel moves):
read a and b once, write c once, itemsize * (m k + k n + m n). The kernel reads each tile of
a once per tile column of c and each tile of b once per tile row; the grouped numbering below
keeps most of those re-reads in the L2.

One program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of c on a 1-D grid (no 65535 limit), tiles
numbered in groups of GROUP_SIZE_M tile rows, column by column inside a group: the programs
of one wave share GROUP_SIZE_M tile rows of a and a few tile columns of b. The loop over k
advances two pointer tiles (64-bit strides); its loads are masked along m and n (constant over
16-element runs when n and the strides are multiples of 16, so they stay 16 bytes wide) and
along k only when k is not a multiple of BLOCK_SIZE_K (EVEN_K). Accumulation in float32; c is
written once, rounded to its dtype. num_stages lets the compiler keep several K tiles in
flight (cp.async / TMA-free pipelining on Hopper).
"""

import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(
    a_ptr,  # m x k, rows stride_am apart
    b_ptr,  # k x n, rows stride_bk apart
    c_ptr,  # m x n, contiguous
    m,
    n,
    k,
    stride_am,
    stride_bk,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
    GROUP_SIZE_M: tl.constexpr,
    EVEN_K: tl.constexpr,  # k % BLOCK_SIZE_K == 0: no mask along k
    IEEE: tl.constexpr,  # float32 inputs computed in float32 (not TF32)
):
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
    # BLOCK_SIZE_K * stride_bk can pass 2^31. tl.cast, not .to: a stride equal to 1 arrives
    # as a constant (Triton specializes it), which has no .to().
    stride_bk64 = tl.cast(stride_bk, tl.int64)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None].to(tl.int64) * stride_bk64 + offs_n[None, :]
    in_m = offs_m[:, None] < m  # the block tile's rows past m (zeros, never stored)
    in_n = offs_n[None, :] < n
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(k, BLOCK_SIZE_K)):
        if EVEN_K:
            a_blk = tl.load(a_ptrs, mask=in_m, other=0.0)
            b_blk = tl.load(b_ptrs, mask=in_n, other=0.0)
        else:  # the last K tile runs past k: zeros add nothing
            left = k - kt * BLOCK_SIZE_K
            a_blk = tl.load(a_ptrs, mask=in_m & (offs_k[None, :] < left), other=0.0)
            b_blk = tl.load(b_ptrs, mask=(offs_k[:, None] < left) & in_n, other=0.0)
        if IEEE:
            acc = tl.dot(a_blk, b_blk, acc, input_precision="ieee")
        else:
            acc = tl.dot(a_blk, b_blk, acc)
        a_ptrs += BLOCK_SIZE_K
        b_ptrs += BLOCK_SIZE_K * stride_bk64
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=in_m & in_n)


def launch(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, ieee: bool, block_m: int,
           block_n: int, block_k: int, group_m: int, num_warps: int, num_stages: int) -> None:
    m, k = a.shape
    n = b.shape[1]
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), "rows must be contiguous"
    grid = (triton.cdiv(m, block_m) * triton.cdiv(n, block_n),)
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), BLOCK_SIZE_M=block_m,
                        BLOCK_SIZE_N=block_n, BLOCK_SIZE_K=block_k, GROUP_SIZE_M=group_m,
                        EVEN_K=k % block_k == 0, IEEE=ieee, num_warps=num_warps,
                        num_stages=num_stages)
