# impl: cuda
# exercise: matmul_fp32
# status: pass
# (honest work: another register tiling than the notebook's. 64 x 64 tiles, 16 deep, each of
#  256 threads a 4 x 4 piece of c with rows and columns 16 apart (a warp's shared reads are
#  then consecutive words), a's tile padded by one column, every offset 64-bit, the loops not
#  unrolled by hand. Right everywhere.)

# %% nbgrader={"grade_id": "matmul_fp32_cu", "solution": true}
MATMUL_FP32_CU = r"""
#define BM 64
#define BN 64
#define BK 16
// 16 x 16 threads, each a 4 x 4 piece of c: rows ty + 16 i, columns tx + 16 j (strided, so
// the shared reads of a warp are consecutive floats: no float4, no bank conflicts either).
__global__ void matmul_fp32_kernel(const float *__restrict__ a, const float *__restrict__ b,
                                   float *__restrict__ c, int m, int n, int k, int stride_am,
                                   int stride_bk)
{
    __shared__ float as[BM][BK + 1];
    __shared__ float bs[BK][BN];
    const int tiles_n = (n + BN - 1) / BN;
    const long long row0 = (long long)(blockIdx.x / tiles_n) * BM;
    const long long col0 = (long long)(blockIdx.x % tiles_n) * BN;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += 256) {
            const long long row = row0 + e / BK;
            const int col = k0 + e % BK;
            as[e / BK][e % BK] = row < m && col < k ? a[row * stride_am + col] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += 256) {
            const int row = k0 + e / BN;
            const long long col = col0 + e % BN;
            bs[e / BN][e % BN] = row < k && col < n ? b[(long long)row * stride_bk + col] : 0.0f;
        }
        __syncthreads();
        for (int kk = 0; kk < BK; ++kk) {
            float av[4], bv[4];
            for (int i = 0; i < 4; ++i) av[i] = as[ty + 16 * i][kk];
            for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const long long row = row0 + ty + 16 * i, col = col0 + tx + 16 * j;
            if (row < m && col < n) c[row * n + col] = acc[i][j];
        }
}
"""

# %% edit matmul_fp32_cuda
# <<<
#     bm, bn = 128, 128  # BM and BN in MATMUL_FP32_CU
# ===
#     bm, bn = 64, 64  # BM and BN in MATMUL_FP32_CU
# >>>
