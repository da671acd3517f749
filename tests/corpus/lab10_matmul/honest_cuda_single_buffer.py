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

# %% edit matmul_fp16_cuda
# <<<
#     per 256 x 128 tile of c.
# ===
#     per 128 x 128 tile of c.
# >>>
# <<<
#     Kernel arguments as in matmul_fp32_cuda; block=(256, 1, 1), grid=(tiles, 1), shared= the
#     bytes of the kernel's dynamic shared memory.
# ===
#     Kernel arguments as in matmul_fp32_cuda; block=(256, 1, 1), grid=(tiles, 1).
# >>>
# <<<
#     bm, bn, bk, pad, stages = 256, 128, 32, 8, 3  # BM, BN, BK, PAD, STAGES in MATMUL_FP16_CU
# ===
#     bm, bn = 128, 128  # BM and BN in MATMUL_FP16_CU
# >>>
# <<<
#     # bytes: STAGES buffers of as and bs, halves
#     smem = stages * (bm * (bk + pad) + bk * (bn + pad)) * 2
# ===
# >>>
# <<<
#         shared=smem,  # 87552 bytes, over 48 KiB: SourceModule's launch makes the opt-in
# ===
# >>>
