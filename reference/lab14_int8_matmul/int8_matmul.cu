// Reference CUDA int8 matmul with a dequantizing epilogue for lab14 (hidden from students): the
// perf bar of int8_matmul, c = (a @ b.T) * s_row[:, None] * s_col[None, :] in bfloat16, written
// only with what the lab teaches: WMMA fragments of signed char and an int accumulator, fed from
// shared tiles stored slice by slice (each 16 x 16 fragment 256 contiguous bytes), the scales
// applied per element through a per-warp int scratch tile. No mma.sync PTX, no wgmma, no TMA.
//
// Work (lab.toml's `flops`): 2 m n k. Minimum traffic: m k + n k + 4 (m + n) + 2 m n bytes.
//
// The lab's solution with a grouped numbering of the tiles. NOT yet tuned on a GPU (no
// cp.async pipeline, 64 x 64 tiles): the constants are a first guess; benchmarks/
// tune_references.py has not measured it against the target (0.45x torch._int_mm + scaling).
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64    // rows of c per block
#define BN 64    // columns of c per block
#define BK 64    // depth of one K tile, in bytes
#define WM 32    // rows of c per warp
#define WN 32    // columns of c per warp
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 4 warps
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across
#define GROUP_M 16        // tile rows per group of the numbering

extern "C" __global__ void __launch_bounds__(THREADS)
int8_matmul_kernel(const signed char *__restrict__ a,  // m x k, rows stride_am apart
                   const signed char *__restrict__ b,  // n x k (B col-major), rows stride_bn apart
                   const float *__restrict__ s_row,    // [m]
                   const float *__restrict__ s_col,    // [n]
                   __nv_bfloat16 *__restrict__ c,      // m x n, contiguous
                   int m,                              // rows of a and c
                   int n,                              // rows of b, columns of c
                   int k,                              // columns of a and b
                   int stride_am,                      // bytes between rows of a
                   int stride_bn)                      // bytes between rows of b
{
    // K tiles slice by slice: as[s][r][q] = a[row0 + r][k0 + 16 s + q]. Each 16 x 16 fragment
    // is 256 contiguous bytes, 32-byte aligned (ldm 16).
    __shared__ __align__(32) signed char as[SLICES][BM][16];
    __shared__ __align__(32) signed char bs[SLICES][BN][16];
    __shared__ __align__(32) int scratch[THREADS / 32][16 * 16];  // a warp's epilogue tile

    // The tile of c, numbered in groups of GROUP_M tile rows (lab10): the blocks running
    // together share their tiles of a and b in the L2.
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // 16-byte pieces where each is wholly inside or outside and aligned; the same for all.
    const bool vec = k % 16 == 0 && stride_am % 16 == 0 && stride_bn % 16 == 0 &&
                     reinterpret_cast<size_t>(a) % 16 == 0 &&
                     reinterpret_cast<size_t>(b) % 16 == 0;

    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb[FN];

    for (int k0 = 0; k0 < k; k0 += BK) {
        if (vec) {
            for (int e = threadIdx.x; e < BM * SLICES; e += THREADS) {  // 2 pieces a thread
                const int r = e / SLICES, s = e % SLICES, kk = k0 + 16 * s;
                const int4 zero = make_int4(0, 0, 0, 0);
                const signed char *pa = a + (long long)(row0 + r) * stride_am + kk;  // 64-bit
                const signed char *pb = b + (long long)(col0 + r) * stride_bn + kk;
                *reinterpret_cast<int4 *>(&as[s][r][0]) =
                    row0 + r < m && kk < k ? *reinterpret_cast<const int4 *>(pa) : zero;
                *reinterpret_cast<int4 *>(&bs[s][r][0]) =
                    col0 + r < n && kk < k ? *reinterpret_cast<const int4 *>(pb) : zero;
            }
        } else {  // byte by byte: zeros past m, n or k
            for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
                const int r = e / BK, q = e % BK, kk = k0 + q;
                as[q / 16][r][q % 16] =
                    row0 + r < m && kk < k ? a[(long long)(row0 + r) * stride_am + kk] : 0;
                bs[q / 16][r][q % 16] =
                    col0 + r < n && kk < k ? b[(long long)(col0 + r) * stride_bn + kk] : 0;
            }
        }
        __syncthreads();  // the tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &as[s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], &bs[s][wc + 16 * j][0], 16);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp is done with the tiles before they are refilled
    }

    // Epilogue: int accumulator -> scratch tile -> 8 elements per lane, scaled in float32,
    // rounded once to bfloat16.
    int *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past c
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int row = frow + lane / 2, h = lane % 2 * 8;
            if (row < m) {
                const float sr = s_row[row];
                __nv_bfloat16 *out = c + (long long)row * n;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + h + q;
                    if (col < n)
                        out[col] = __float2bfloat16_rn((float)mine[(lane / 2) * 16 + h + q] * sr *
                                                       s_col[col]);
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
}
