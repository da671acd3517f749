# impl: triton
# exercise: matmul_fp32
# status: fail
# reason: [m=17, k=65, n=33]
# reason: elements differ
# (a read with its strides swapped: element [i, kk] taken at kk * m + i, as if a were stored
#  column by column. Inside a's buffer everywhere (the largest offset is m k - 1), so nothing
#  faults: the values are simply a's, shuffled. Right on 1 x 1 x 1 only.)

# %% nbgrader={"grade_id": "matmul_fp32_triton", "solution": true}
@triton.jit
def matmul_fp32_kernel(
    a_ptr,  # a: m x k float32, rows stride_am elements apart
    b_ptr,  # b: k x n float32, rows stride_bk elements apart
    c_ptr,  # c: m x n float32, contiguous
    m,  # rows of a and c
    n,  # columns of b and c
    k,  # columns of a, rows of b
    stride_am,  # elements between the starts of two rows of a (>= k)
    stride_bk,  # elements between the starts of two rows of b (>= n)
    BLOCK_SIZE_M: tl.constexpr,  # rows of c per program
    BLOCK_SIZE_N: tl.constexpr,  # columns of c per program
    BLOCK_SIZE_K: tl.constexpr,  # depth of one step along k
):
    pid = tl.program_id(axis=0)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    # 64-bit from here on: offs_m * stride_am passes 2^31 - 1 on large matrices.
    pid_m = (pid // tiles_n).to(tl.int64)
    pid_n = (pid % tiles_n).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # rows of a and c
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)  # columns of b and c
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = (k0 + tl.arange(0, BLOCK_SIZE_K)).to(tl.int64)  # * stride_bk: 64-bit
        # The last block of rows, of columns and of k runs past the matrix: zeros there add
        # nothing to the sum (and rows past m, columns past n, are never stored).
        a_blk = tl.load(a_ptr + offs_k[None, :] * m + offs_m[:, None],
                        mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
        b_blk = tl.load(b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :],
                        mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
        # IEEE float32: the default, TF32, keeps 10 of the 23 mantissa bits of each input.
        acc = tl.dot(a_blk, b_blk, acc, input_precision="ieee")
    # The last tiles of rows and columns run past c.
    mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc, mask=mask)


def matmul_fp32_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float32, one program per BLOCK_SIZE_M x BLOCK_SIZE_N tile of c."""
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    # 64 x 64 tiles, 32 deep: 4 warps each hold 32 elements of the accumulator per thread.
    BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 64, 64, 32
    grid = (triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N),)
    matmul_fp32_kernel[grid](a, b, c, m, n, k, a.stride(0), b.stride(0),
                             BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
                             BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=4)
