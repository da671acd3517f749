// Reference CUDA float16 matmul for lab10 (hidden from students): the perf bar of
// matmul_fp16, written only with what the lab teaches: WMMA fragments (<mma.h>) fed from
// shared memory, filled by cp.async (__pipeline_memcpy_async, <cuda_pipeline.h>) STAGES K tiles
// ahead. No wgmma, no TMA, no inline PTX (the CPU backend runs this file too).
//
// Work (lab.toml's `flops`): 2 m n k. Byte ledger of the minimum: read a and b once, write c
// once, 2 (m k + k n + m n) bytes. This kernel reads a tile of a once per tile column of c and a
// tile of b once per tile row (BM BN / (BM + BN) FLOPs per byte fetched: 64 at 128 x 128, 85 at
// 128 x 256), the grouped numbering keeping most re-reads in the L2; it writes c once, 16 bytes
// per store.
//
// One block of WARPS_M x WARPS_N warps per BM x BN tile of c, each warp owning a WM x WN piece:
// (WM / 16) x (WN / 16) float accumulator fragments in registers (64 x 64: 16 fragments, 128
// floats per thread). Per 16-deep slice of a K tile a warp loads WM / 16 fragments of a and
// WN / 16 of b and does every product of the two: each fragment load feeds 4 tensor-core
// operations at 64 x 64. The tiles (TUNE in matmul_fp16_cuda.py): 128 x 256 and 256 x 128 with
// 8 warps of 64 x 64, one block per SM (their registers); 128 x 128 with 8 warps of 64 x 32 or
// 4 warps of 64 x 64, two blocks per SM, so that one block's barrier is the other's work.
//
// Shared memory (dynamic): STAGES buffers of a's K tile (BM x BK halves) and b's (BK x BN), each
// row padded by 8 halves (16 bytes): a fragment load reads 16 bytes from each of 8 rows, and
// rows 2 BK + 16 (a) or 2 BN + 16 (b) bytes apart start those 8 pieces in 8 different groups of
// 4 banks (2 BK or 2 BN bytes apart, a multiple of 128, they would share banks). Every fragment
// starts on a multiple of 32 bytes, as load_matrix_sync requires. Copies: consecutive threads
// take consecutive 16-byte pieces of a row (a warp's copy reads whole 32-byte sectors), each
// thread the same column of rows a pass of the block apart, from two pointers set once.
//
// The K loop keeps STAGES - 1 tiles in flight and has one barrier per tile, placed before the
// last slice's products: past it every warp holds tile t's last fragments (tile t's buffer is
// free) and loads the next tile's first ones while those products run. Fragments go to two
// register sets in turn; where a thread may use 255 registers (64 x 64 warps) a warp loads slice
// s + 1 before multiplying slice s, hiding the loads' latency (PREFETCH):
//
//     issue tiles 0 .. STAGES - 2, one commit each; wait for tile 0; load its slice 0
//     for each tile t, for each slice s:
//         at the last slice: wait until tile t + 1 has landed; __syncthreads()
//         at slice 0: issue tile t + STAGES - 1 into the buffer of tile t - 1 (free since the
//             previous barrier); commit
//         load the next slice's fragments (tile t + 1's first after the last), multiply slice s
//
// Tiles past k are issued too, all zeros (their copies read nothing): the loop has no branch
// but its own, and the commits stay uniform.
//
// m, n, k are multiples of 16 and the row strides multiples of 8 (the launcher checks): every
// 16-byte piece of a row, and every 16 x 16 fragment of c, is inside the matrix or outside it
// as a whole. A piece outside is a copy of no bytes that fills its 16 with zeros (the copy's
// zfill; its source the matrix's start, never read). The epilogue goes through shared memory
// (a fragment's register layout is unspecified and c is float16): each warp stores a finished
// accumulator to a 16 x 16 float scratch tile of its own, and each lane converts 8 floats and
// writes them with one 16-byte store.
//
// Tiles are numbered on a 1-D grid (no 65535 limit) in groups of group_m tile rows, column by
// column inside a group. Offsets are 64-bit wherever a row number multiplies a stride.

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

constexpr int PAD = 8;  // halves of padding per shared row

// Two floats rounded to a pair of halves, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack(float x, float y)
{
    __half2 pair = __floats2half2_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

template <int BM, int BN, int WARPS_M, int WARPS_N, int BK, int STAGES, int MIN_BLOCKS>
__device__ __forceinline__ void body(unsigned char *smem, const __half *__restrict__ a,
                                     const __half *__restrict__ b, __half *__restrict__ c,
                                     int m, int n, int k, int stride_am, int stride_bk,
                                     int group_m)
{
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's piece of the tile
    constexpr int FM = WM / 16, FN = WN / 16;            // its fragments
    constexpr int SLICES = BK / 16;                      // 16-deep slices of a K tile
    constexpr int LDA = BK + PAD, LDB = BN + PAD;        // shared row strides (halves)
    constexpr int A_STAGE = BM * LDA, B_STAGE = BK * LDB;
    constexpr int SMEM = STAGES * (A_STAGE + B_STAGE) * 2;  // bytes: the launcher's `shared`
    constexpr int A_ROWS = THREADS / (BK / 8), B_ROWS = THREADS / (BN / 8);  // rows per pass
    // Fragments of the next slice loaded before this slice's products (their latency hidden)
    // need a second register set: 32 registers at 64 x 64, affordable where a thread may use
    // 255; within 128 (8 warps, 2 blocks per SM) they are loaded after the products instead.
    constexpr bool PREFETCH = 65536 / (THREADS * MIN_BLOCKS) >= 255;
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp's piece is whole fragments");
    static_assert(SLICES % 2 == 0, "slice 0 of every tile is in register set 0");
    static_assert(THREADS % (BN / 8) == 0 && BM % A_ROWS == 0 && BK % B_ROWS == 0,
                  "whole passes: each thread copies one column of pieces");
    static_assert(SMEM >= THREADS / 32 * 16 * 16 * 4,
                  "the epilogue's scratch tiles fit in the pipeline's buffers");

    __half *as = reinterpret_cast<__half *>(smem);    // [STAGES][BM][LDA]
    __half *bs = as + STAGES * A_STAGE;                // [STAGES][BK][LDB]

    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + BN - 1) / BN;
    const int per_group = group_m * tiles_n, first_m = blockIdx.x / per_group * group_m;
    const int rows = min(tiles_m - first_m, group_m);
    const int row0 = (first_m + blockIdx.x % per_group % rows) * BM;
    const int col0 = blockIdx.x % per_group / rows * BN;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N * WM, wc = warp % WARPS_N * WN;

    // This thread's pieces: rows ar, ar + A_ROWS, ... of a's tile at column ac, rows br,
    // br + B_ROWS, ... of b's at column bc. Sources at K tile 0; a pointer past the matrix is
    // never read (its pieces are zero-filled).
    const int ar = threadIdx.x / (BK / 8), ac = threadIdx.x % (BK / 8) * 8;
    const int br = threadIdx.x / (BN / 8), bc = threadIdx.x % (BN / 8) * 8;
    const __half *a_src = a + (long long)(row0 + ar) * stride_am + ac;
    const __half *b_src = b + (long long)br * stride_bk + col0 + bc;
    const long long a_pass = (long long)A_ROWS * stride_am, b_pass = (long long)B_ROWS * stride_bk;

    auto issue = [&](int stage, int k0) {
        __half *sa = as + stage * A_STAGE + ar * LDA + ac;
        __half *sb = bs + stage * B_STAGE + br * LDB + bc;
        const __half *ga = a_src + k0, *gb = b_src + (long long)k0 * stride_bk;
#pragma unroll
        for (int p = 0; p < BM / A_ROWS; ++p) {
            const bool inside = row0 + ar + p * A_ROWS < m && k0 + ac < k;
            __pipeline_memcpy_async(sa + p * A_ROWS * LDA, inside ? ga + p * a_pass : a, 16,
                                    inside ? 0 : 16);  // outside: past m or k, zeros
        }
#pragma unroll
        for (int p = 0; p < BK / B_ROWS; ++p) {
            const bool inside = k0 + br + p * B_ROWS < k && col0 + bc < n;
            __pipeline_memcpy_async(sb + p * B_ROWS * LDB, inside ? gb + p * b_pass : b, 16,
                                    inside ? 0 : 16);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2][FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb[2][FN];
    auto load = [&](int set, int stage, int kk) {  // the fragments of slice kk of a buffer
        const __half *sa = as + stage * A_STAGE + wr * LDA + kk;
        const __half *sb = bs + stage * B_STAGE + kk * LDB + wc;
#pragma unroll
        for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(fa[set][i], sa + i * 16 * LDA, LDA);
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(fb[set][j], sb + j * 16, LDB);
    };
    auto load_after = [&](int s, int stage, int next) {  // the slice after slice s
        if (s + 1 < SLICES)
            load((s + 1) % 2, stage, (s + 1) * 16);
        else
            load(0, next, 0);
    };

    // Buffers in turn: tile t's (stage), tile t + 1's (next), and tile t - 1's (refill), where
    // tile t + STAGES - 1 goes.
    const int k_tiles = (k + BK - 1) / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        issue(s, s * BK);
        __pipeline_commit();
    }
    __pipeline_wait_prior(STAGES - 2);  // tile 0 has landed (this thread's copies)
    __syncthreads();                    // ... every thread's
    load(0, 0, 0);
    int stage = 0;
    for (int t = 0; t < k_tiles; ++t) {
        const int next = stage + 1 == STAGES ? 0 : stage + 1;
        const int refill = stage == 0 ? STAGES - 1 : stage - 1;
#pragma unroll
        for (int s = 0; s < SLICES; ++s) {
            if (s == SLICES - 1) {
                __pipeline_wait_prior(STAGES - 2);  // tile t + 1 has landed (this thread's)
                __syncthreads();  // ... every thread's; every warp is done reading tile t
            }
            if (s == 0) {
                issue(refill, (t + STAGES - 1) * BK);
                __pipeline_commit();
            }
            if (PREFETCH) load_after(s, stage, next);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j)
                    wmma::mma_sync(acc[i][j], fa[s % 2][i], fb[s % 2][j], acc[i][j]);
            if (!PREFETCH) load_after(s, stage, next);
        }
        stage = next;
    }
    __pipeline_wait_prior(0);  // the zeros past k have landed too
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

// One kernel per (tile, warps, BK, STAGES): the sweep's candidates (TUNE in
// matmul_fp16_cuda.py), named matmul_fp16_kernel_<BM>x<BN>_<WARPS_M>x<WARPS_N>_<BK>_<STAGES>.
// MIN_BLOCKS, blocks per SM for __launch_bounds__: 2 for the 128 x 128 tiles (with 8 warps, at
// most 128 registers a thread), 1 for the others (8 warps of 64 x 64 take over 200). Dynamic
// shared memory (SMEM in body; over 48 KiB the GPU path opts in).
#define WMMA_KERNEL(BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_)                                     \
    extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS_)                      \
        matmul_fp16_kernel_##BM_##x##BN_##_##WM_##x##WN_##_##BK_##_##ST_(                          \
            const __half *__restrict__ a, const __half *__restrict__ b, __half *__restrict__ c,    \
            int m, int n, int k, int stride_am, int stride_bk, int group_m)                        \
    {                                                                                              \
        extern __shared__ __align__(128) unsigned char smem[];                                     \
        body<BM_, BN_, WM_, WN_, BK_, ST_, MIN_BLOCKS_>(smem, a, b, c, m, n, k, stride_am,         \
                                                        stride_bk, group_m);                       \
    }

// Each tile at BK 32 and 64, 2 to 4 stages.
#define WMMA_KERNELS(BM_, BN_, WM_, WN_, MIN_BLOCKS_)                                              \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 32, 2, MIN_BLOCKS_)                                            \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 32, 3, MIN_BLOCKS_)                                            \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 32, 4, MIN_BLOCKS_)                                            \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 64, 2, MIN_BLOCKS_)                                            \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 64, 3, MIN_BLOCKS_)                                            \
    WMMA_KERNEL(BM_, BN_, WM_, WN_, 64, 4, MIN_BLOCKS_)

WMMA_KERNELS(128, 128, 2, 4, 2)
WMMA_KERNELS(128, 128, 2, 2, 2)
WMMA_KERNELS(128, 256, 2, 4, 1)
WMMA_KERNELS(256, 128, 4, 2, 1)
