// Reference CUDA gated MLP for lab15 (hidden from students): the perf bar of mlp,
// y = (silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T in bfloat16, written only with what the lab
// teaches: WMMA fragments of __nv_bfloat16 and float accumulators, fed from shared tiles stored
// slice by slice (each 16 x 16 fragment 512 contiguous bytes). No mma.sync PTX, no wgmma, no TMA.
//   mlp_gate_up_kernel: two accumulator sets per warp (gate and up) fed by the same fragments
//     of x; the epilogue computes silu(g) * u in float32 through two per-warp scratch tiles and
//     stores h (m x f, bfloat16), one rounding;
//   mlp_down_kernel: y = h @ w_down.T, the same GEMM with one accumulator set, one rounding.
//
// Work (lab.toml's `flops`): 3 x 2 m d f. Minimum traffic: 2 (m d + 3 d f + m d) bytes, plus h
// written and read once, 4 m f. Each block reads a K tile of x (or h) once per tile column and
// a K tile of the weights once per tile row; the grouped numbering keeps the re-reads in the L2.
//
// The lab's solution with a grouped numbering of the tiles. NOT yet tuned on a GPU (no cp.async
// pipeline, 64 x 64 tiles): the constants are a first guess; benchmarks/tune_references.py has
// not measured it against the target (0.45x eager torch).
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define TILE 64  // rows and columns of a block's tile of h or y
#define BK 32    // depth of one K tile, in elements
#define WM 32    // rows of the tile per warp
#define WN 32    // columns of the tile per warp
#define THREADS ((TILE / WM) * (TILE / WN) * 32)  // 4 warps
#define SLICES (BK / 16)  // 16-deep slices of a K tile
#define PIECES (BK / 8)   // 16-byte pieces of a row of a K tile
#define FM (WM / 16)      // fragments of a warp, down
#define FN (WN / 16)      // ... and across
#define GROUP_M 16        // tile rows per group of the numbering

// Rows row0 .. row0 + TILE - 1 and columns k0 .. k0 + BK - 1 of a row-major matrix (`rows` x
// `cols`, rows `stride` apart) into a shared K tile, slice by slice:
// tile[s][r][q] = src[row0 + r][k0 + 16 s + q], zeros past the matrix. vec: 16-byte pieces,
// each wholly inside or outside (cols and stride multiples of 8, src 16-byte aligned).
__device__ __forceinline__ void fill_tile(__nv_bfloat16 (*tile)[TILE][16],
                                          const __nv_bfloat16 *__restrict__ src, int row0,
                                          int rows, int k0, int cols, int stride, bool vec)
{
    if (vec) {
        for (int e = threadIdx.x; e < TILE * PIECES; e += THREADS) {  // 2 pieces a thread
            const int r = e / PIECES, p = e % PIECES, kk = k0 + 8 * p;
            int4 piece = make_int4(0, 0, 0, 0);
            if (row0 + r < rows && kk < cols)
                piece = *reinterpret_cast<const int4 *>(src + (long long)(row0 + r) * stride + kk);
            *reinterpret_cast<int4 *>(&tile[p / 2][r][8 * (p % 2)]) = piece;
        }
    } else {
        for (int e = threadIdx.x; e < TILE * BK; e += THREADS) {
            const int r = e / BK, q = e % BK, kk = k0 + q;
            tile[q / 16][r][q % 16] = row0 + r < rows && kk < cols
                                          ? src[(long long)(row0 + r) * stride + kk]
                                          : __float2bfloat16(0.0f);
        }
    }
}

__device__ __forceinline__ bool aligned16(const void *p)
{
    return reinterpret_cast<size_t>(p) % 16 == 0;
}

// The block's tile (row0, col0) of a rows x cols output, tiles numbered in groups of GROUP_M tile
// rows (lab10): the blocks running together share their tiles of x (or h) and the weights in
// the L2.
__device__ __forceinline__ void tile_of_block(int rows, int cols, int &row0, int &col0)
{
    const int tiles_m = (rows + TILE - 1) / TILE, tiles_n = (cols + TILE - 1) / TILE;
    const int per_group = GROUP_M * tiles_n, first_m = blockIdx.x / per_group * GROUP_M;
    const int group_rows = min(tiles_m - first_m, GROUP_M);  // the last group may be short
    row0 = (first_m + blockIdx.x % per_group % group_rows) * TILE;
    col0 = blockIdx.x % per_group / group_rows * TILE;
}

extern "C" __global__ void __launch_bounds__(THREADS)
mlp_gate_up_kernel(const __nv_bfloat16 *__restrict__ x,       // m x d, rows stride_xm apart
                   const __nv_bfloat16 *__restrict__ w_gate,  // f x d, rows stride_gate apart
                   const __nv_bfloat16 *__restrict__ w_up,    // f x d, rows stride_up apart
                   __nv_bfloat16 *__restrict__ h,             // m x f, contiguous
                   int m,                                     // rows of x and h
                   int f,                                     // rows of the weights, columns of h
                   int d,                                     // columns of x and the weights
                   int stride_xm,                             // elements between rows of x
                   int stride_gate,                           // ... of w_gate
                   int stride_up)                             // ... of w_up
{
    __shared__ __align__(32) __nv_bfloat16 xs[SLICES][TILE][16];
    __shared__ __align__(32) __nv_bfloat16 gs[SLICES][TILE][16];
    __shared__ __align__(32) __nv_bfloat16 us[SLICES][TILE][16];
    __shared__ __align__(32) float scratch[THREADS / 32][2][16 * 16];  // a warp's g and u tiles

    int row0, col0;
    tile_of_block(m, f, row0, col0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (TILE / WN) * WM, wc = warp % (TILE / WN) * WN;  // the warp's piece
    const bool vec = d % 8 == 0 && stride_xm % 8 == 0 && stride_gate % 8 == 0 &&
                     stride_up % 8 == 0 && aligned16(x) && aligned16(w_gate) && aligned16(w_up);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_g[FM][FN], acc_u[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            wmma::fill_fragment(acc_g[i][j], 0.0f);
            wmma::fill_fragment(acc_u[i][j], 0.0f);
        }
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;

    for (int k0 = 0; k0 < d; k0 += BK) {
        fill_tile(xs, x, row0, m, k0, d, stride_xm, vec);
        fill_tile(gs, w_gate, col0, f, k0, d, stride_gate, vec);
        fill_tile(us, w_up, col0, f, k0, d, stride_up, vec);
        __syncthreads();  // the three tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &xs[s][wr + 16 * i][0], 16);  // once, for both
#pragma unroll
            for (int j = 0; j < FN; ++j) {
                wmma::load_matrix_sync(fb, &gs[s][wc + 16 * j][0], 16);
#pragma unroll
                for (int i = 0; i < FM; ++i) wmma::mma_sync(acc_g[i][j], fa[i], fb, acc_g[i][j]);
                wmma::load_matrix_sync(fb, &us[s][wc + 16 * j][0], 16);
#pragma unroll
                for (int i = 0; i < FM; ++i) wmma::mma_sync(acc_u[i][j], fa[i], fb, acc_u[i][j]);
            }
        }
        __syncthreads();  // every warp is done with the three tiles before they are refilled
    }

    // Epilogue: the two accumulators -> the warp's two scratch tiles -> 8 elements per lane:
    // SiLU of the gate times the up product in float32, one rounding to bfloat16.
    float *sg = scratch[warp][0], *su = scratch[warp][1];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= f) continue;  // the whole warp skips a fragment past h
            wmma::store_matrix_sync(sg, acc_g[i][j], 16, wmma::mem_row_major);
            wmma::store_matrix_sync(su, acc_u[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const int row = frow + lane / 2, c = lane % 2 * 8;
            if (row < m) {
                __nv_bfloat16 *out = h + (long long)row * f;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + c + q;
                    if (col < f) {
                        const int at = (lane / 2) * 16 + c + q;  // in the scratch tiles
                        const float g = sg[at], u = su[at];
                        out[col] = __float2bfloat16_rn(g / (1.0f + expf(-g)) * u);
                    }
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tiles
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
mlp_down_kernel(const __nv_bfloat16 *__restrict__ h,       // m x f, contiguous
                const __nv_bfloat16 *__restrict__ w_down,  // d x f, rows stride_down apart
                __nv_bfloat16 *__restrict__ y,             // m x d, contiguous
                int m,                                     // rows of h and y
                int d,                                     // rows of w_down, columns of y
                int f,                                     // columns of h and w_down
                int stride_down)                           // elements between rows of w_down
{
    __shared__ __align__(32) __nv_bfloat16 hs[SLICES][TILE][16];
    __shared__ __align__(32) __nv_bfloat16 ws[SLICES][TILE][16];
    __shared__ __align__(32) float scratch[THREADS / 32][16 * 16];  // a warp's epilogue tile

    int row0, col0;
    tile_of_block(m, d, row0, col0);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / (TILE / WN) * WM, wc = warp % (TILE / WN) * WN;
    // h's rows are f apart: 16-byte pieces where f and w_down's stride allow them.
    const bool vec = f % 8 == 0 && stride_down % 8 == 0 && aligned16(h) && aligned16(w_down);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[FN];

    for (int k0 = 0; k0 < f; k0 += BK) {
        fill_tile(hs, h, row0, m, k0, f, f, vec);
        fill_tile(ws, w_down, col0, d, k0, f, stride_down, vec);
        __syncthreads();  // both tiles are complete before any warp loads a fragment
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], &hs[s][wr + 16 * i][0], 16);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], &ws[s][wc + 16 * j][0], 16);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();  // every warp is done with both tiles before they are refilled
    }

    // Epilogue: float accumulator -> scratch tile -> 8 elements per lane, rounded once.
    float *mine = scratch[warp];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int frow = row0 + wr + 16 * i, fcol = col0 + wc + 16 * j;
            if (frow >= m || fcol >= d) continue;  // the whole warp skips a fragment past y
            wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int row = frow + lane / 2, c = lane % 2 * 8;
            if (row < m) {
                __nv_bfloat16 *out = y + (long long)row * d;
#pragma unroll
                for (int q = 0; q < 8; ++q) {
                    const int col = fcol + c + q;
                    if (col < d) out[col] = __float2bfloat16_rn(mine[(lane / 2) * 16 + c + q]);
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
}
