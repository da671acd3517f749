# impl: cuda
# exercise: matmul_fp16
# status: pass
# (honest work, the step before the notebook's kernel: the same 128 x 128 block tile and 8
#  warps of 64 x 32, staged in shared memory by plain 16-byte loads into one buffer: load,
#  barrier, multiply, barrier. No cp.async, no overlap of loads and tensor-core work, and the
#  epilogue writes one half per lane and step. Slower on a GPU, right everywhere.)

# %% nbgrader={"grade_id": "matmul_fp16_cu", "solution": true}
MATMUL_FP16_CU = r"""
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define PAD 8

// One buffer per tile, plain 16-byte loads: the K tile is loaded, __syncthreads(), multiplied,
// __syncthreads(), and only then is the next one fetched (no cp.async, no overlap).
extern "C" __global__ void matmul_fp16_kernel(const __half *__restrict__ a,
                                              const __half *__restrict__ b,
                                              __half *__restrict__ c, int m, int n, int k,
                                              int stride_am, int stride_bk)
{
    __shared__ __align__(32) __half as[BM][BK + PAD];
    __shared__ __align__(32) __half bs[BK][BN + PAD];
    __shared__ __align__(32) float scratch[8][16 * 16];
    const int tiles_n = (n + BN - 1) / BN;
    const int row0 = blockIdx.x / tiles_n * BM, col0 = blockIdx.x % tiles_n * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / 4 * 64, wc = warp % 4 * 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK / 8; e += blockDim.x) {
            const int r = e / (BK / 8), cc = e % (BK / 8) * 8, row = row0 + r, col = k0 + cc;
            *reinterpret_cast<uint4 *>(&as[r][cc]) = row < m && col < k
                ? *reinterpret_cast<const uint4 *>(a + (long long)row * stride_am + col)
                : make_uint4(0, 0, 0, 0);
        }
        for (int e = threadIdx.x; e < BK * BN / 8; e += blockDim.x) {
            const int r = e / (BN / 8), cc = e % (BN / 8) * 8, row = k0 + r, col = col0 + cc;
            *reinterpret_cast<uint4 *>(&bs[r][cc]) = row < k && col < n
                ? *reinterpret_cast<const uint4 *>(b + (long long)row * stride_bk + col)
                : make_uint4(0, 0, 0, 0);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2];
            for (int i = 0; i < 4; ++i)
                wmma::load_matrix_sync(fa[i], &as[wr + i * 16][kk], BK + PAD);
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &bs[kk][wc + j * 16], BN + PAD);
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = row0 + wr + i * 16, col = col0 + wc + j * 16;
            if (row >= m || col >= n) continue;
            wmma::store_matrix_sync(scratch[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32)  // one half at a time
                c[(long long)(row + e / 16) * n + col + e % 16] = __float2half_rn(scratch[warp][e]);
            __syncwarp();
        }
}
"""

# %% nbgrader={"grade_id": "matmul_fp16_cuda", "solution": true}
# <mma.h> is C++: the source says extern "C" itself (no_extern_c=True).
matmul_fp16_kernel_cu = SourceModule(MATMUL_FP16_CU, no_extern_c=True).get_function(
    "matmul_fp16_kernel")


def matmul_fp16_cuda(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    """c = a @ b in float16 (float32 accumulation) with matmul_fp16_kernel_cu: WMMA, 8 warps
    per 128 x 128 tile of c.

    Kernel arguments as in matmul_fp32_cuda; block=(256, 1, 1), grid=(tiles, 1).
    """
    m, k = a.shape
    assert b.shape[0] == k and c.shape == (m, b.shape[1]), \
        f"shapes do not chain: a {tuple(a.shape)}, b {tuple(b.shape)}, c {tuple(c.shape)}"
    n = b.shape[1]
    for name, size in (("m", m), ("n", n), ("k", k)):
        assert size % 16 == 0, f"{name} = {size} is not a multiple of 16 (the WMMA tile)"
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), \
        f"rows must be contiguous: strides a {a.stride()}, b {b.stride()}, c {c.stride()}"
    for name, t in (("a", a), ("b", b), ("c", c)):  # the kernel copies 16-byte pieces of rows
        assert t.stride(0) % 8 == 0 and t.data_ptr() % 16 == 0, \
            f"{name}'s rows must start on 16-byte boundaries: stride {t.stride(0)} elements"
    bm, bn = 128, 128  # BM and BN in MATMUL_FP16_CU
    tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
    matmul_fp16_kernel_cu(
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
