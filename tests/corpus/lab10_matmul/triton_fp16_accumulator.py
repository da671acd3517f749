# impl: triton
# exercise: matmul_fp16
# status: fail
# reason: [m=16, k=1024, n=32, float16]
# reason: elements differ
# reason-gpu: elements differ
# (on the H200 the tensor cores' float16 accumulation is off already at k = 32: the GPU's
#  verdict names no shape)
# (the accumulator in float16: acc = tl.zeros(..., tl.float16) and tl.dot(..., out_dtype=
#  tl.float16). Each K tile's sum is rounded to 11 significant bits and added to a float16
#  running total, rounded again: the partial sums (|sum| ~ sqrt(k)) lose ~2^-11 of their size
#  at every step. Within the tolerance while k is small; at k = 1024 about 1 element in 5 is
#  off by more than 1e-3 relative.)

# %% nbgrader={"grade_id": "matmul_fp16_triton", "solution": true}
@triton.jit
def matmul_fp16_kernel(
    a_ptr,  # a: m x k float16, rows stride_am elements apart
    b_ptr,  # b: k x n float16, rows stride_bk elements apart
    c_ptr,  # c: m x n float16, contiguous
    m,  # rows of a and c (a multiple of 16)
    n,  # columns of b and c (a multiple of 16)
    k,  # columns of a, rows of b (a multiple of 16)
    stride_am,  # elements between the starts of two rows of a
    stride_bk,  # elements between the starts of two rows of b
    BLOCK_SIZE_M: tl.constexpr,  # rows of c per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of c per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
    GROUP_SIZE_M: tl.constexpr,  # tile rows per group of the numbering
):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    # Groups of GROUP_SIZE_M tile rows, numbered column by column: the programs of one wave
    # share their tiles of a and b in the L2.
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % rows).to(tl.int64)  # 64-bit offsets from here
    pid_n = ((pid % per_group) // rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float16)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = (k0 + tl.arange(0, BLOCK_SIZE_K)).to(tl.int64)
        # The block tile runs past m, n or k at the edges: zeros add nothing.
        a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
        b_blk = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :],
                        mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
        acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.float16)
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)  # c's edges
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc.to(tl.float16), mask=mask)


def matmul_fp16_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b, float16 in and out, float32 accumulation, on the tensor cores."""
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M = 128, 128, 64, 8
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    matmul_fp16_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M,
                             num_warps=8, num_stages=3)
