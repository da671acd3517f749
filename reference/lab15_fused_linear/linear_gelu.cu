// Reference CUDA linear layer with a fused GELU for lab15 (hidden from students): the perf bar of
// linear_gelu, y = gelu_tanh(x @ w.T + b) in bfloat16, written only with what the lab teaches:
// WMMA fragments of __nv_bfloat16 and a float accumulator, fed from shared tiles stored slice by
// slice (each 16 x 16 fragment 512 contiguous bytes), the bias and GELU (tanhf) applied per
// element through a per-warp float scratch tile, one rounding to bfloat16. No mma.sync PTX, no
// wgmma, no TMA.
//
// Work (lab.toml's `flops`): 2 m n k. Minimum traffic: 2 (m k + n k + n + m n) bytes.
//
// The lab's solution with a grouped numbering of the tiles. NOT yet tuned on a GPU (no
// cp.async pipeline, 64 x 64 tiles): the constants are a first guess; benchmarks/
// tune_references.py has not measured it against the target (0.45x cuBLAS + a GELU kernel).
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64    // rows of y per block
#define BN 64    // columns of y per block
#define BK 32    // depth of one K tile, in elements
#define WM 32    // rows of y per warp
#define WN 32    // columns of y per warp
#define THREADS ((BM / WM) * (BN / WN) * 32)  // 4 warps
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define PIECES (BK / 8)   // 16-byte pieces of a row of a K tile
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across
#define GROUP_M 16        // tile rows per group of the numbering

extern "C" __global__ void __launch_bounds__(THREADS)
linear_gelu_kernel(const __nv_bfloat16 *__restrict__ x,  // m x k, rows stride_xm apart
                   const __nv_bfloat16 *__restrict__ w,  // n x k (W^T col-major), stride_wn apart
                   const __nv_bfloat16 *__restrict__ b,  // [n]
                   __nv_bfloat16 *__restrict__ y,        // m x n, contiguous
                   int m,                                // rows of x and y
                   int n,                                // rows of w, columns of y
                   int k,                                // columns of x and w
                   int stride_xm,                        // elements between rows of x
                   int stride_wn)                        // elements between rows of w
{
    // K tiles slice by slice: xs[s][r][q] = x[row0 + r][k0 + 16 s + q]. Each 16 x 16 fragment
    // is 512 contiguous bytes, 32-byte aligned (ldm 16).
    __shared__ __align__(32) __nv_bfloat16 xs[SLICES][BM][16];
    __shared__ __align__(32) __nv_bfloat16 ws[SLICES][BN][16];
    __shared__ __align__(32) float scratch[THREADS / 32][16 * 16];  // a warp's epilogue tile

    // The tile of y, numbered in groups of GROUP_M tile rows (lab10): the blocks running
    // together share their tiles of x and w in the L2.
    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int group_rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % group_rows) * BM;
    const int col0 = blockIdx.x % per_group / group_rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (BN / WN) * WM, wc = warp % (BN / WN) * WN;  // the warp's piece

    // 16-byte pieces where each is wholly inside or outside and aligned; the same for all.
    const bool vec = k % 8 == 0 && stride_xm % 8 == 0 && stride_wn % 8 == 0 &&
                     reinterpret_cast<size_t>(x) % 16 == 0 &&
                     reinterpret_cast<size_t>(w) % 16 == 0;
    const __nv_bfloat16 bzero = __float2bfloat16(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[FN];

    for (int k0 = 0; k0 < k; k0 += BK) {
        if (vec) {
            for (int e = threadIdx.x; e < BM * PIECES; e += THREADS) {  // 2 pieces a thread
                const int r = e / PIECES, p = e % PIECES, kk = k0 + 8 * p;
                const int4 zero = make_int4(0, 0, 0, 0);
                const __nv_bfloat16 *px = x + (long long)(row0 + r) * stride_xm + kk;  // 64-bit
                const __nv_bfloat16 *pw = w + (long long)(col0 + r) * stride_wn + kk;
                *reinterpret_cast<int4 *>(&xs[p / 2][r][8 * (p % 2)]) =
                    row0 + r < m && kk < k ? *reinterpret_cast<const int4 *>(px) : zero;
                *reinterpret_cast<int4 *>(&ws[p / 2][r][8 * (p % 2)]) =
                    col0 + r < n && kk < k ? *reinterpret_cast<const int4 *>(pw) : zero;
            }
        } else {  // element by element: zeros past m, n or k
            for (int e = threadIdx.x; e < BM * BK; e += THREADS) {
                const int r = e / BK, q = e % BK, kk = k0 + q;
                xs[q / 16][r][q % 16] =
                    row0 + r < m && kk < k ? x[(long long)(row0 + r) * stride_xm + kk] : bzero;
                ws[q / 16][r][q % 16] =
                    col0 + r < n && kk < k ? w[(long long)(col0 + r) * stride_wn + kk] : bzero;
            }
        }
        __syncthreads();  // the tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &xs[s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], &ws[s][wc + 16 * j][0], 16);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp is done with the tiles before they are refilled
    }

    // Epilogue: float accumulator -> scratch tile -> 8 elements per lane: the bias, GELU's
    // tanh form in float32, one rounding to bfloat16.
    float *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= n) continue;  // the whole warp skips a fragment past y
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int row = frow + lane / 2, h = lane % 2 * 8;
            if (row < m) {
                __nv_bfloat16 *out = y + (long long)row * n;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + h + q;
                    if (col < n) {
                        const float v = mine[(lane / 2) * 16 + h + q] + __bfloat162float(b[col]);
                        const float g =
                            0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
                        out[col] = __float2bfloat16_rn(g);
                    }
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
}
