// Reference CUDA flash-decoding for lab16's `flash_decode`, the split pass with one pipeline a
// block (flash_decode_cuda.py's BLOCK_TILES): compiled after fragments.cuh (issue_piece,
// load_fragment, from_float, exp2_approx) and flash_decode_split.cuh (WARPS, BN, STAGES, FUSED;
// last_of_head, combine_head).
//
// One block of WARPS warps per (split, KV head, sequence), grid (splits, hkv, b), as there; but
// where each warp there streams its own 16-key tiles and merges with the others at the end, here
// the block's threads fill one BN-key K/V tile together (cp.async, STAGES - 1 tiles in flight:
// 128 KiB at D = 128, BN 128, 3 stages) and its warps share each tile:
// - q . k^T: warp w the scores of keys w BN / WARPS .. (w + 1) BN / WARPS - 1, the group's query
//   heads one 16 x D matrix_a operand (rows G .. 15 zero), stored to a 16 x BN float tile;
// - the online softmax, THREADS / 16 threads a row, each BN / (THREADS / 16) columns: the row's
//   max by shuffles, alpha = exp2(m_old - m_new), p rounded to bfloat16 into a 16 x BN tile, the
//   thread's share of the row's sum; alpha across its row of a 16 x 16 tile, which loaded as an
//   accumulator gives every element of p . v's accumulators its row's (WMMA leaves the
//   fragments' element -> (row, column) map unspecified: mma_sync, loads and stores agree on it);
// - p . v: warp w the output columns w D / WARPS .. (w + 1) D / WARPS - 1, over all BN keys.
// Three __syncthreads a tile (BN keys), where the warps' own pipelines take three __syncwarp
// every 16 keys and a merge of the warps at the end. Keys past the split's stop: zeros from the
// copies, p = 0 in the softmax. After the loop the accumulators leave through the stage tiles
// as the split's float32 partials (its G real rows); with FUSED the KV head's last block
// combines the splits (combine_head).
// The block's cp.async copies of keys n0 .. n0 + BN - 1 of a KV head (k_head, v_head: its first
// row) into one stage's K and V tiles, zeros past stop; one commit group, empty where `tile` is
// false, so that every thread counts the groups alike. Thread t copies the same 16 bytes of
// every (THREADS / (D / 8))-th row of a whole tile; the split's last tile, which may pass stop,
// piece by piece (issue_piece).
template <int D>
__device__ __forceinline__ void issue_block_tile(bf16 (*tile_k)[D + PAD_T],
                                                 bf16 (*tile_v)[D + PAD_T],
                                                 const bf16 *__restrict__ k_head,
                                                 const bf16 *__restrict__ v_head, int n0,
                                                 int stop, bool tile)
{
    constexpr int ROWS = THREADS / (D / 8);  // rows per pass of the block
    static_assert(BN % ROWS == 0, "whole passes of the block over a tile");
    if (tile && n0 + BN <= stop) {
        const int r = threadIdx.x / (D / 8), c = threadIdx.x % (D / 8) * 8;
        const long long from = (long long)(n0 + r) * D + c;
#pragma unroll
        for (int i = 0; i < BN / ROWS; ++i) {
            __pipeline_memcpy_async(&tile_k[r + i * ROWS][c], k_head + from + i * ROWS * D, 16);
            __pipeline_memcpy_async(&tile_v[r + i * ROWS][c], v_head + from + i * ROWS * D, 16);
        }
    } else if (tile) {
        for (int p = threadIdx.x; p < BN * D / 8; p += THREADS) {
            issue_piece<bf16, D>(tile_k, k_head, n0, stop, p);
            issue_piece<bf16, D>(tile_v, v_head, n0, stop, p);
        }
    }
    __pipeline_commit();
}

// Shared memory (dynamic, flash_decode_cuda.py's block_smem_bytes): q's 16 x (D + PAD_T) tile;
// STAGES x {K, V} tiles of BN x (D + PAD_T); the scores, 16 x (BN + PAD_F) floats; p, 16 x
// (BN + PAD_T) bfloat16; alpha, 16 x (16 + PAD_F) floats. After the loop the partial output,
// 16 x (D + PAD_F) floats, in the stage tiles.
template <int D>
__device__ __forceinline__ void flash_decode_block_split(const bf16 *__restrict__ q,
                                                         const bf16 *__restrict__ k,
                                                         const bf16 *__restrict__ v,
                                                         float *__restrict__ part_o,
                                                         float *__restrict__ part_m,
                                                         float *__restrict__ part_l, int s,
                                                         int unit, int group, float scale_log2,
                                                         unsigned *__restrict__ done,
                                                         bf16 *__restrict__ o)
{
    constexpr int LDT = D + PAD_T, LDS = BN + PAD_F, LDP = BN + PAD_T, LDA = 16 + PAD_F;
    constexpr int LDO = D + PAD_F;
    constexpr int ROW_THREADS = THREADS / 16, COLS = BN / ROW_THREADS;  // the softmax's
    constexpr int KEYS_W = BN / WARPS, COLS_W = D / WARPS;  // a warp's keys, output columns
    static_assert(KEYS_W % 16 == 0 && COLS_W % 16 == 0, "whole fragments a warp");
    static_assert(ROW_THREADS <= 32 && BN % ROW_THREADS == 0, "a row's threads in one warp");
    static_assert(STAGES >= 2, "a tile in flight while one is used");
    static_assert(16 * LDO * 4 <= STAGES * 2 * BN * LDT * 2,
                  "the partial output leaves through the stage tiles");
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
    extern __shared__ __align__(128) unsigned char smem[];
    bf16(*qs)[LDT] = reinterpret_cast<bf16(*)[LDT]>(smem);
    bf16(*kv)[2][BN][LDT] = reinterpret_cast<bf16(*)[2][BN][LDT]>(qs + 16);
    float(*ss)[LDS] = reinterpret_cast<float(*)[LDS]>(kv + STAGES);
    bf16(*ps)[LDP] = reinterpret_cast<bf16(*)[LDP]>(ss + 16);
    float(*as)[LDA] = reinterpret_cast<float(*)[LDA]>(ps + 16);

    const int warp = threadIdx.x / 32;
    const int split = blockIdx.x, splits = gridDim.x;
    const int kv_head = blockIdx.z * gridDim.y + blockIdx.y;
    const long long head = (long long)kv_head * s * D;  // the KV head's first row, k and v
    // The split's keys, as flash_decode_wmma.cu deals them: s in units of `unit` keys.
    const long long units = (s + unit - 1) / unit;
    const int start = (int)(split * units / splits) * unit;
    const int stop = min((int)((split + 1) * units / splits) * unit, s);
    const int tiles = (stop - start + BN - 1) / BN;  // tile j at start + j BN

    for (int p = threadIdx.x; p < 16 * D / 8; p += THREADS)
        issue_piece<bf16, D>(qs, q + (long long)kv_head * group * D, 0, group, p);
    __pipeline_commit();
#pragma unroll
    for (int j = 0; j < STAGES - 1; ++j)
        issue_block_tile<D>(kv[j][0], kv[j][1], k + head, v + head, start + j * BN, stop,
                            j < tiles);
    __pipeline_wait_prior(STAGES - 1);  // q's pieces (the oldest group) have landed...
    __syncthreads();                    // ... every thread's
    FragA qf[D / 16];
#pragma unroll
    for (int i = 0; i < D / 16; ++i) load_fragment(qf[i], &qs[0][16 * i], LDT);
    Acc acc[COLS_W / 16];
#pragma unroll
    for (int f = 0; f < COLS_W / 16; ++f) wmma::fill_fragment(acc[f], 0.0f);
    const int row = threadIdx.x / ROW_THREADS, sub = threadIdx.x % ROW_THREADS;
    float m = -INFINITY, l = 0.0f;  // row's running max (base 2, scaled); this thread's share
                                    // of its sum of p

    for (int j = 0; j < tiles; ++j) {
        __pipeline_wait_prior(STAGES - 2);  // tile j's pieces have landed (this thread's)...
        __syncthreads();  // ... every thread's; and tile j - 1's stage, scores and p are read
        {
            const int next = j + STAGES - 1, st = next % STAGES;
            issue_block_tile<D>(kv[st][0], kv[st][1], k + head, v + head, start + next * BN,
                                stop, next < tiles);
        }
        const bf16(*ks)[LDT] = kv[j % STAGES][0];
        const bf16(*vs)[LDT] = kv[j % STAGES][1];
        const int n0 = start + j * BN;
#pragma unroll
        for (int jn = 0; jn < KEYS_W / 16; ++jn) {
            Acc c;
            wmma::fill_fragment(c, 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;
                load_fragment(kf, &ks[warp * KEYS_W + 16 * jn][16 * i], LDT);
                wmma::mma_sync(c, qf[i], kf, c);
            }
            wmma::store_matrix_sync(&ss[0][warp * KEYS_W + 16 * jn], c, LDS,
                                    wmma::mem_row_major);
        }
        __syncthreads();
        {
            // Columns sub, sub + ROW_THREADS, ...: a warp's lanes read consecutive floats.
            float x[COLS], tile_max = -INFINITY;
#pragma unroll
            for (int u = 0; u < COLS; ++u) {
                const int col = sub + u * ROW_THREADS;
                x[u] = n0 + col < stop ? ss[row][col] * scale_log2 : -INFINITY;
                tile_max = fmaxf(tile_max, x[u]);
            }
#pragma unroll
            for (int off = ROW_THREADS / 2; off > 0; off /= 2)
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, off));
            const float m_new = fmaxf(m, tile_max);  // finite: the tile's first key is < stop
            const float alpha = exp2_approx(m - m_new);  // 0 at the first tile (m = -inf)
            float sum = 0.0f;
#pragma unroll
            for (int u = 0; u < COLS; ++u) {
                const float p = exp2_approx(x[u] - m_new);  // 0 past stop
                sum += p;
                ps[row][sub + u * ROW_THREADS] = from_float<bf16>(p);
            }
            l = l * alpha + sum;
            m = m_new;
            for (int c = sub; c < 16; c += ROW_THREADS) as[row][c] = alpha;
        }
        __syncthreads();
        {
            Acc alpha;
            wmma::load_matrix_sync(alpha, &as[0][0], LDA, wmma::mem_row_major);
#pragma unroll
            for (int f = 0; f < COLS_W / 16; ++f)
#pragma unroll
                for (int e = 0; e < Acc::num_elements; ++e) acc[f].x[e] *= alpha.x[e];
        }
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            FragA pf;
            load_fragment(pf, &ps[0][16 * kk], LDP);
#pragma unroll
            for (int f = 0; f < COLS_W / 16; ++f) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vf;
                load_fragment(vf, &vs[16 * kk][warp * COLS_W + 16 * f], LDT);
                wmma::mma_sync(acc[f], pf, vf, acc[f]);
            }
        }
    }
    __pipeline_wait_prior(0);  // (only empty groups can be left: nothing lands after this)
#pragma unroll
    for (int off = ROW_THREADS / 2; off > 0; off /= 2)
        l += __shfl_xor_sync(0xffffffffu, l, off);  // the row's sum
    __syncthreads();  // every warp is done with the stage tiles
    float(*os)[LDO] = reinterpret_cast<float(*)[LDO]>(&kv[0][0][0][0]);
#pragma unroll
    for (int f = 0; f < COLS_W / 16; ++f)
        wmma::store_matrix_sync(&os[0][warp * COLS_W + 16 * f], acc[f], LDO,
                                wmma::mem_row_major);
    const long long rows = (long long)kv_head * group * splits + split;  // row (g 0, this split)
    if (sub == 0 && row < group) {
        part_m[rows + row * splits] = m;
        part_l[rows + row * splits] = l;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < group * D; i += THREADS)
        part_o[(rows + i / D * splits) * D + i % D] = os[i / D][i % D];
#if FUSED  // the KV head's last block combines its splits, then zeroes its count
    if (last_of_head(&done[kv_head], splits)) {
        combine_head<D>(part_o, part_m, part_l, o, kv_head, group, splits);
        if (threadIdx.x == 0) done[kv_head] = 0;
    }
#endif
}

#define FLASH_DECODE_BLOCK_KERNEL(D)                                                          \
    extern "C" __global__ void __launch_bounds__(THREADS) flash_decode_block_kernel_d##D(     \
        const bf16 *q, const bf16 *k, const bf16 *v, float *part_o, float *part_m,            \
        float *part_l, int s, int unit, int group, float scale_log2,                          \
        unsigned *done, bf16 *o)                                                              \
    {                                                                                         \
        flash_decode_block_split<D>(q, k, v, part_o, part_m, part_l, s, unit, group,          \
                                    scale_log2, done, o);                                     \
    }
FLASH_DECODE_BLOCK_KERNEL(64)
FLASH_DECODE_BLOCK_KERNEL(128)
