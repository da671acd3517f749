# impl: cuda
# exercise: matmul_fp32
# status: fail
# reason: [m=1, k=1, n=1]
# reason: elements differ
# (the loop over K tiles stops at the last whole one, k0 + BK <= k: the last k % 8 columns of a
#  and rows of b never enter the sum. Right when k is a multiple of 8 (64 x 64 x 64, 32 x 128
#  x 16); wrong everywhere else, first on 1 x 1 x 1, where no K tile is whole and c comes out
#  0.)

# %% nbgrader={"grade_id": "matmul_fp32_cu", "solution": true}
MATMUL_FP32_CU = r"""
#define BM 128  // rows of c per block
#define BN 128  // columns of c per block
#define BK 8    // depth of one K tile
#define THREADS 256  // 16 x 16 threads, each an 8 x 8 piece of c

__global__ void matmul_fp32_kernel(const float *__restrict__ a,  // m x k, rows stride_am apart
                                   const float *__restrict__ b,  // k x n, rows stride_bk apart
                                   float *__restrict__ c,        // m x n, contiguous
                                   int m,                        // rows of a and c
                                   int n,                        // columns of b and c
                                   int k,                        // columns of a, rows of b
                                   int stride_am,                // elements between rows of a
                                   int stride_bk)                // elements between rows of b
{
    // a's piece transposed (as[kk][i] = a[row0 + i][k0 + kk]), each row 4 floats longer so that
    // the writes of a warp spread over all 32 banks; b's piece as it is.
    __shared__ __align__(16) float as[BK][BM + 4];
    __shared__ __align__(16) float bs[BK][BN];
    const int tiles_n = (n + BN - 1) / BN;
    const int row0 = blockIdx.x / tiles_n * BM, col0 = blockIdx.x % tiles_n * BN;
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;

    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 + BK <= k; k0 += BK) {  // the last K tile may be short: zeros fill it
#pragma unroll
        for (int p = 0; p < BM * BK / THREADS; ++p) {
            const int e = t + p * THREADS, i = e / BK, kk = e % BK;  // 8 threads along a row
            const int row = row0 + i, col = k0 + kk;
            // Past the last row of a, or past k: a zero adds nothing. 64-bit: row * stride_am.
            as[kk][i] = (row < m && col < k) ? a[(long long)row * stride_am + col] : 0.0f;
        }
#pragma unroll
        for (int p = 0; p < BK * BN / THREADS; ++p) {
            const int e = t + p * THREADS, kk = e / BN, j = e % BN;  // a warp along a row of b
            const int row = k0 + kk, col = col0 + j;
            bs[kk][j] = (row < k && col < n) ? b[(long long)row * stride_bk + col] : 0.0f;
        }
        __syncthreads();  // both pieces are complete before any thread reads them
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
            // Rows ty*4 + 0..3 and 64 + ty*4 + 0..3, columns tx*4 + 0..3 and 64 + tx*4 + 0..3.
            const float4 a0 = *reinterpret_cast<const float4 *>(&as[kk][ty * 4]);
            const float4 a1 = *reinterpret_cast<const float4 *>(&as[kk][64 + ty * 4]);
            const float4 b0 = *reinterpret_cast<const float4 *>(&bs[kk][tx * 4]);
            const float4 b1 = *reinterpret_cast<const float4 *>(&bs[kk][64 + tx * 4]);
            const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();  // every thread is done with the pieces before they are refilled
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = row0 + (i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4);
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            const int col = col0 + (j < 4 ? tx * 4 + j : 64 + tx * 4 + j - 4);
            if (row < m && col < n) c[(long long)row * n + col] = acc[i][j];  // c's edges
        }
    }
}
"""
