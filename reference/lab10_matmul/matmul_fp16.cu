// Reference CUDA float16 matmul for lab10 (hidden from students): the perf bar of
// matmul_fp16, written only with what the lab teaches: WMMA fragments (<mma.h>) fed from
// shared memory, filled by cp.async (__pipeline_memcpy_async, <cuda_pipeline.h>) STAGES K tiles
// ahead. No wgmma, no TMA, no inline PTX (the CPU backend runs this file too).
//
// Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum: read a and b once, write c
// once, 2 (m k + k n + m n) bytes. This kernel reads a tile of a once per tile column of c and a
// tile of b once per tile row (BN / 2 and BM / 2 FLOPs per byte fetched: 64 to 128), the grouped
// numbering keeping most re-reads in the L2; it writes c once, 16 bytes per store.
//
// One block of 8 warps per BM x BN tile of c, the warps WARPS_M x (8 / WARPS_M), each owning a
// WM x WN piece: (WM / 16) x (WN / 16) float accumulator fragments in registers (64 x 64: 16
// fragments, 128 floats per thread). Per 16-deep slice of a K tile a warp loads WM / 16
// fragments of a and WN / 16 of b and does every product of the two: each fragment load feeds
// 4 tensor-core operations at 64 x 64.
//
// Shared memory (dynamic): STAGES buffers of a's K tile (BM x BK halves) and b's (BK x BN), each
// row padded by 8 halves (16 bytes): a fragment load reads 16 bytes from each of 8 rows, and
// rows 80 (a) or 2 BN + 16 (b) bytes apart start those 8 pieces in 8 different groups of 4
// banks (64 or 2 BN bytes apart, they would share banks). Every fragment starts on a multiple
// of 32 bytes, as load_matrix_sync requires. The K loop keeps STAGES - 1 tiles in flight:
//
//     issue tiles 0 .. STAGES - 2, one commit each
//     for each tile t: wait until tile t has landed (wait_prior(STAGES - 2)); __syncthreads()
//         issue tile t + STAGES - 1 into the buffer tile t - 1 used (free: every warp passed
//         the barrier after multiplying it); commit (empty at the end: the count stays uniform)
//         multiply tile t
//
// m, n, k are multiples of 16 and the row strides multiples of 8 (the launcher checks): every
// 16-byte piece of a row, and every 16 x 16 fragment of c, is inside the matrix or outside it
// as a whole. Pieces outside are zeros, stored directly. The epilogue goes through shared
// memory (a fragment's register layout is unspecified and c is float16): each warp stores a
// finished accumulator to a 16 x 16 float scratch tile of its own, and each lane converts 8
// floats and writes them with one 16-byte store.
//
// Tiles are numbered on a 1-D grid (no 65535 limit) in groups of group_m tile rows, column by
// column inside a group. Offsets are 64-bit wherever a row number multiplies a stride.

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

constexpr int BK = 32;       // depth of one K tile
constexpr int PAD = 8;       // halves of padding per shared row
constexpr int THREADS = 256; // 8 warps

template <int BM, int BN, int STAGES>
constexpr int smem_bytes()
{
    return STAGES * (BM * (BK + PAD) + BK * (BN + PAD)) * 2;
}

// Two floats rounded to a pair of halves, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __half2 pair = __floats2half2_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

template <int BM, int BN, int WARPS_M, int STAGES>
__device__ __forceinline__ void body(unsigned char *smem, const __half *__restrict__ a,
                                     const __half *__restrict__ b, __half *__restrict__ c,
                                     int m, int n, int k, int stride_am, int stride_bk,
                                     int group_m)
{
    constexpr int WARPS_N = THREADS / 32 / WARPS_M;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's piece of the tile
    constexpr int FM = WM / 16, FN = WN / 16;            // its fragments
    constexpr int A_STAGE = BM * (BK + PAD), B_STAGE = BK * (BN + PAD);  // halves
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp's piece is whole fragments");
    static_assert(BM * BK / 8 % THREADS == 0 && BK * BN / 8 % THREADS == 0, "copies per thread");

    __half *as = reinterpret_cast<__half *>(smem);    // [STAGES][BM][BK + PAD]
    __half *bs = as + STAGES * A_STAGE;                // [STAGES][BK][BN + PAD]

    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = group_m * tiles_n, first_m = blockIdx.x / per_group * group_m;
    const int rows = min(tiles_m - first_m, group_m);
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N * WM, wc = warp % WARPS_N * WN;

    auto issue = [&](int stage, int k0) {
        __half *sa = as + stage * A_STAGE, *sb = bs + stage * B_STAGE;
#pragma unroll
        for (int p = 0; p < BM * BK / 8 / THREADS; ++p) {
            const int e = threadIdx.x + p * THREADS, r = e / (BK / 8), cc = e % (BK / 8) * 8;
            const int row = row0 + r, col = k0 + cc;
            __half *dst = sa + r * (BK + PAD) + cc;
            if (row < m && col < k)
                __pipeline_memcpy_async(dst, a + (long long)row * stride_am + col, 16);
            else  // past m, or past k: zeros add nothing
                *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int p = 0; p < BK * BN / 8 / THREADS; ++p) {
            const int e = threadIdx.x + p * THREADS, r = e / (BN / 8), cc = e % (BN / 8) * 8;
            const int row = k0 + r, col = col0 + cc;
            __half *dst = sb + r * (BN + PAD) + cc;
            if (row < k && col < n)
                __pipeline_memcpy_async(dst, b + (long long)row * stride_bk + col, 16);
            else
                *reinterpret_cast<uint4 *>(dst) = make_uint4(0, 0, 0, 0);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    const int k_tiles = (k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < k_tiles) issue(s, s * BK);
        __pipeline_commit();
    }
    for (int t = 0; t < k_tiles; ++t) {
        __pipeline_wait_prior(STAGES - 2);  // tile t has landed (this thread's copies)
        __syncthreads();  // ... every thread's; and every warp is done with tile t - 1
        const int next = t + STAGES - 1;
        if (next < k_tiles) issue(next % STAGES, next * BK);
        __pipeline_commit();
        const __half *sa = as + t % STAGES * A_STAGE, *sb = bs + t % STAGES * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i)
                wmma::load_matrix_sync(fa[i], sa + (wr + i * 16) * (BK + PAD) + kk, BK + PAD);
#pragma unroll
            for (int j = 0; j < FN; ++j)
                wmma::load_matrix_sync(fb[j], sb + kk * (BN + PAD) + wc + j * 16, BN + PAD);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
    }
    __pipeline_wait_prior(0);  // nothing left in flight (only empty batches remain)
    __syncthreads();           // the pipeline's buffers become the epilogue's scratch tiles

    float *scratch = reinterpret_cast<float *>(smem) + warp * 16 * 16;
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            const int row = row0 + wr + i * 16, col = col0 + wc + j * 16;
            if (row >= m || col >= n) continue;  // a fragment past c (the whole warp skips it)
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int r = lane / 2, h = lane % 2 * 8;  // row r, halves h .. h + 7
            const float4 lo = *reinterpret_cast<const float4 *>(scratch + r * 16 + h);
            const float4 hi = *reinterpret_cast<const float4 *>(scratch + r * 16 + h + 4);
            const uint4 out = make_uint4(pack(lo.x, lo.y), pack(lo.z, lo.w), pack(hi.x, hi.y),
                                         pack(hi.z, hi.w));  // 8 halves, each rounded once
            // Indexed as uint4s (nvcc 13 split `*(uint4 *)(c + ... + h)` into four 4-byte stores).
            reinterpret_cast<uint4 *>(c + (long long)(row + r) * n + col)[lane % 2] = out;
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
}

// One kernel per (BM, BN, WARPS_M, STAGES): the sweep's candidates (TUNE in
// matmul_fp16_cuda.py). Dynamic shared memory (smem_bytes; over 48 KiB the GPU path opts in).
#define WMMA_KERNEL(BM_, BN_, WARPS_M_, ST_)                                                       \
    extern "C" __global__ void __launch_bounds__(THREADS)                                          \
        matmul_fp16_kernel_##BM_##x##BN_##_##WARPS_M_##_##ST_(                                     \
            const __half *__restrict__ a, const __half *__restrict__ b, __half *__restrict__ c,    \
            int m, int n, int k, int stride_am, int stride_bk, int group_m)                        \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        body<BM_, BN_, WARPS_M_, ST_>(smem, a, b, c, m, n, k, stride_am, stride_bk, group_m);      \
    }

// 128 x 128: warps 2 x 4 (64 x 32 each); 128 x 256 and 256 x 128: 64 x 64 each.
WMMA_KERNEL(128, 128, 2, 2)
WMMA_KERNEL(128, 128, 2, 3)
WMMA_KERNEL(128, 128, 2, 4)
WMMA_KERNEL(128, 256, 2, 2)
WMMA_KERNEL(128, 256, 2, 3)
WMMA_KERNEL(128, 256, 2, 4)
WMMA_KERNEL(256, 128, 4, 2)
WMMA_KERNEL(256, 128, 4, 3)
WMMA_KERNEL(256, 128, 4, 4)
