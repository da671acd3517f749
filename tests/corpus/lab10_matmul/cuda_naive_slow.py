# impl: cuda
# exercise: matmul_fp32
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (the naive matmul, the first step of the notebook's staircase: one element of c per thread,
#  its row of a and column of b read from global memory for every multiply-add, no shared
#  memory. The caches catch part of the re-reads, not enough: correct everywhere, 64-bit
#  offsets and grid limits included (a 1-D grid of m n threads), and far below the
#  register-tiled reference.)

# %% nbgrader={"grade_id": "matmul_fp32_cu", "solution": true}
MATMUL_FP32_CU = r"""
__global__ void matmul_fp32_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                   float *__restrict__ c, int m, int n, int k, int stride_am,
                                   int stride_bk)
{
    // One element of c per thread, threadIdx.x along a row of c: a warp reads 32 neighbouring
    // floats of a row of b per step, and one float of a (the same for the whole warp).
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)m * n) return;
    const long long row = i / n, col = i % n;
    float acc = 0.0f;
    for (int kk = 0; kk < k; ++kk)
        acc += a[row * stride_am + kk] * b[(long long)kk * stride_bk + col];
    c[i] = acc;
}
"""

# %% nbgrader={"grade_id": "matmul_fp32_cuda", "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
matmul_fp32_kernel_cu = SourceModule(MATMUL_FP32_CU).get_function("matmul_fp32_kernel")


def matmul_fp32_cuda(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float32 with matmul_fp32_kernel_cu, one block of 256 threads per tile.

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    each int as np.int32(...); then block=(threads, 1, 1) and grid=(tiles, 1).
    """
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    n = b.shape[1]
    tiles = triton.cdiv(m * n, 256)  # one thread per element of c
    matmul_fp32_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(256, 1, 1),
        grid=(tiles, 1),
    )
