// Reference CUDA flash-decoding for lab16's `flash_decode`, the split pass with one pipeline a
// block (flash_decode_cuda.py's BLOCK_TILES): compiled after fragments.cuh (issue_piece,
// load_fragment, from_float, exp2_approx) and flash_decode_split.cuh (WARPS, BN, STAGES, FUSED;
// last_of_head, combine_head).
//
// One block of WARPS warps per (split, KV head, sequence), grid (splits, hkv, b), as in
// flash_decode_wmma.cu; but where each warp there streams its own 16-key tiles and merges with
// the others at the end, here the block's threads fill one BN-key K/V tile together (cp.async,
// STAGES - 1 tiles in flight: 64 KiB at D = 128, BN 64, 3 stages) and its warps share each tile:
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
//
// ptxas (nvcc 13, sm_90, 4 warps, BN 64, 3 stages, FUSED, VEC 4, ACQ_REL): 128 registers
// at D = 128, 80 at D = 64, no spill. Measured figures: flash_decode_cuda.py.

// A K or V tile in shared memory: BN rows of D elements, no padding, its 16-byte chunks swizzled:
// chunk c of row r at chunk c ^ (r % 8). Each 128-byte line of a row is then one 128-byte line
// of the cache's rows, as the copies read them (rows padded by 16 bytes, to keep fragment loads
// free of bank conflicts, took each line in pieces: on an H100, 3.6 M L2 requests for the
// 134 MB at b = 1 against 1.6 M, and 34% of the sectors read twice); and the 8 rows of an 8 x 8
// matrix that a fragment load reads (a chunk each) lie in 8 different bank groups.
template <int D>
__device__ __forceinline__ int swizzled(int r, int c)  // element (r, c) of a tile: its offset
{
    return r * D + ((c / 8) ^ (r % 8)) * 8 + c % 8;
}

// The block's cp.async copies of keys n0 .. n0 + BN - 1 of a KV head (k_head, v_head: its first
// row) into one stage's K and V tiles (swizzled), zeros past stop; one commit group, empty where
// `tile` is false, so that every thread counts the groups alike. Thread t copies chunk t % (D /
// 8) of every (THREADS / (D / 8))-th row.
template <int D>
__device__ __forceinline__ void issue_block_tile(bf16 *tile_k, bf16 *tile_v,
                                                 const bf16 *__restrict__ k_head,
                                                 const bf16 *__restrict__ v_head, int n0,
                                                 int stop, bool tile)
{
    constexpr int ROWS = THREADS / (D / 8);  // rows per pass of the block
    static_assert(BN % ROWS == 0, "whole passes of the block over a tile");
    static_assert(D / 8 >= 8, "a row of at least 8 chunks, for the swizzle");
    if (tile && n0 + BN <= stop) {
        const int r = threadIdx.x / (D / 8), c = threadIdx.x % (D / 8) * 8;
        const long long from = (long long)(n0 + r) * D + c;
#pragma unroll
        for (int i = 0; i < BN / ROWS; ++i) {
            const int to = swizzled<D>(r + i * ROWS, c);
            __pipeline_memcpy_async(tile_k + to, k_head + from + i * ROWS * D, 16);
            __pipeline_memcpy_async(tile_v + to, v_head + from + i * ROWS * D, 16);
        }
    } else if (tile) {
        for (int p = threadIdx.x; p < BN * D / 8; p += THREADS) {
            issue_piece_at<bf16, D>([tile_k](int r, int c) { return tile_k + swizzled<D>(r, c); },
                                    k_head, n0, stop, p);
            issue_piece_at<bf16, D>([tile_v](int r, int c) { return tile_v + swizzled<D>(r, c); },
                                    v_head, n0, stop, p);
        }
    }
    __pipeline_commit();
}

// Where a 16 x 16 matrix_b fragment loaded with Layout takes its elements from (col_major: row n,
// column k of the tile in memory; row_major: row k, column n), learnt by the warp as learn_maps
// learns an accumulator's, from a tile of element numbers (`scratch`, ld elements a row) loaded
// as that fragment. On a GPU the loads are ldmatrix (load_b): the map must be its, four 8 x 8
// matrices, one a register, lane 4 g + t holding row g, columns 2t and 2t + 1 of its matrix
// (TRANS, for row_major: rows 2t and 2t + 1, column g), as it is on an H100 (nvcc 13); a GPU
// where it is not stops the kernel (__trap) rather than load wrong elements. `at` is then this
// lane's row and column of the tile for ldmatrix (row l % 8 of matrix l / 8); on the CPU
// backend, which runs no PTX, at[e] = 16 row + column of element e, loaded one by one.
template <class Layout, bool TRANS>
__device__ __forceinline__ void learn_b(int (&at)[8], bf16 *scratch, unsigned ld)
{
    using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, Layout>;
    static_assert(FragB::num_elements == 8, "8 elements a lane");
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    for (int i = lane; i < 16 * 16; i += 32) scratch[i / 16 * ld + i % 16] = from_float<bf16>(i);
    __syncwarp();
    FragB f;
    load_fragment(f, scratch, ld);
    __syncwarp();
#pragma unroll
    for (int e = 0; e < 8; ++e) at[e] = (int)to_float(f.x[e]);
#if defined(__CUDA_ARCH__)
    bool same = true;
    int mine = 0;  // the first element of matrix lane / 8
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        const int first = __shfl_sync(0xffffffffu, at[e - e % 2], 0);  // (0, 0) of matrix e / 2
        const int r = TRANS ? 2 * t + e % 2 : g, c = TRANS ? g : 2 * t + e % 2;
        same = same && at[e] == first + 16 * r + c && first / 16 % 8 == 0 && first % 8 == 0;
        mine = lane / 8 == e / 2 ? first : mine;
    }
    if (!__all_sync(0xffffffffu, same))
        __trap();
    at[0] = mine / 16 + lane % 8;
    at[1] = mine % 16;
#endif
}

// The matrix_b fragment of rows row0 .. row0 + 15, columns col0 .. col0 + 15 (multiples of 16)
// of a swizzled tile, by learn_b's `at` for Layout: one ldmatrix (.trans with TRANS) on a GPU,
// element by element on the CPU backend.
template <int D, bool TRANS, class Layout>
__device__ __forceinline__ void load_b(wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, Layout> &f,
                                       const bf16 *tile, int row0, int col0, const int (&at)[8])
{
#if defined(__CUDA_ARCH__)
    const bf16 *row = tile + swizzled<D>(row0 + at[0], col0 + at[1]);  // this lane's
    const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(row));
    unsigned *x = reinterpret_cast<unsigned *>(&f);  // the fragment's 4 registers
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(a));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]) : "r"(a));
#else
#pragma unroll
    for (int e = 0; e < 8; ++e) f.x[e] = tile[swizzled<D>(row0 + at[e] / 16, col0 + at[e] % 16)];
#endif
}

// Shared memory (dynamic, flash_decode_cuda.py's block_smem_bytes): q's 16 x (D + PAD_T) tile;
// STAGES x {K, V} tiles of BN x D, swizzled; the scores, 16 x (BN + PAD_F) floats (each warp's
// scratch tile for learn_b before the loop); p, 16 x (BN + PAD_T) bfloat16; alpha, 16 x (16 +
// PAD_F) floats. After the loop the partial output, 16 x (D + PAD_F) floats, in the stage tiles.
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
    constexpr int LDQ = D + PAD_T, LDS = BN + PAD_F, LDP = BN + PAD_T;
    constexpr int LDA = 16 + PAD_F;
    constexpr int LDO = D + PAD_F;
    constexpr int ROW_THREADS = THREADS / 16, COLS = BN / ROW_THREADS;  // the softmax's
    constexpr int KEYS_W = BN / WARPS, COLS_W = D / WARPS;  // a warp's keys, output columns
    static_assert(KEYS_W % 16 == 0 && COLS_W % 16 == 0, "whole fragments a warp");
    static_assert(ROW_THREADS <= 32 && BN % ROW_THREADS == 0, "a row's threads in one warp");
    static_assert(STAGES >= 2, "a tile in flight while one is used");
    static_assert(16 * LDS * 4 >= WARPS * 16 * 16 * 2, "each warp's scratch tile in the scores'");
    static_assert(16 * LDO * 4 <= STAGES * 2 * BN * D * 2,
                  "the partial output leaves through the stage tiles");
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
    extern __shared__ __align__(128) unsigned char smem[];
    bf16(*qs)[LDQ] = reinterpret_cast<bf16(*)[LDQ]>(smem);
    bf16(*kv)[2][BN * D] = reinterpret_cast<bf16(*)[2][BN * D]>(qs + 16);  // swizzled
    float(*ss)[LDS] = reinterpret_cast<float(*)[LDS]>(kv + STAGES);
    bf16(*ps)[LDP] = reinterpret_cast<bf16(*)[LDP]>(ss + 16);
    float(*as)[LDA] = reinterpret_cast<float(*)[LDA]>(ps + 16);

    const int warp = threadIdx.x / 32;
    const int split = blockIdx.x, splits = gridDim.x;
    const int kv_head = blockIdx.z * gridDim.y + blockIdx.y;
    const long long head = (long long)kv_head * s * D;  // the KV head's first row, k and v
    const int start = split_start(split, splits, s, unit);  // the split's keys
    const int stop = split_start(split + 1, splits, s, unit);
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
    for (int i = 0; i < D / 16; ++i) load_fragment(qf[i], &qs[0][16 * i], LDQ);
    Acc acc[COLS_W / 16];
#pragma unroll
    for (int f = 0; f < COLS_W / 16; ++f) wmma::fill_fragment(acc[f], 0.0f);
    // The fragment maps of K's loads (col_major) and V's (row_major), each warp in its own
    // corner of the scores' tile (free until the loop's first __syncthreads).
    int at_k[8], at_v[8];
    bf16 *scratch = reinterpret_cast<bf16 *>(&ss[0][0]) + warp * 16 * 16;
    learn_b<wmma::col_major, false>(at_k, scratch, 16);
    learn_b<wmma::row_major, true>(at_v, scratch, 16);
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
        const bf16 *ks = kv[j % STAGES][0], *vs = kv[j % STAGES][1];
        const int n0 = start + j * BN;
#pragma unroll
        for (int jn = 0; jn < KEYS_W / 16; ++jn) {
            Acc c;
            wmma::fill_fragment(c, 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;
                load_b<D, false>(kf, ks, warp * KEYS_W + 16 * jn, 16 * i, at_k);
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
                load_b<D, true>(vf, vs, 16 * kk, warp * COLS_W + 16 * f, at_v);
                wmma::mma_sync(acc[f], pf, vf, acc[f]);
            }
        }
    }
    __pipeline_wait_prior(0);  // (only empty groups can be left: nothing lands after this)
#pragma unroll
    for (int off = ROW_THREADS / 2; off > 0; off /= 2)
        l += __shfl_xor_sync(0xffffffffu, l, off);  // the row's sum
    __syncthreads();  // every warp is done with the stage tiles
    float(*os)[LDO] = reinterpret_cast<float(*)[LDO]>(&kv[0][0][0]);
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
#if VEC == 4  // in 16-byte pieces, as the combine reads them
    for (int i = 4 * threadIdx.x; i < group * D; i += 4 * THREADS)
        *reinterpret_cast<float4 *>(part_o + (rows + i / D * splits) * D + i % D) =
            *reinterpret_cast<const float4 *>(&os[i / D][i % D]);
#else
    for (int i = threadIdx.x; i < group * D; i += THREADS)
        part_o[(rows + i / D * splits) * D + i % D] = os[i / D][i % D];
#endif
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
