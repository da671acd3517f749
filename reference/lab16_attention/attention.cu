// Reference CUDA attention (FlashAttention's forward pass) for lab16's `attention`, WMMA only.
// Compiled after reference/common/wmma_load.cuh (its load_fragment: bfloat16 fragments loaded
// with the shared state space on the GPU) and fragments.cuh (the tiles' padding PAD_T and PAD_F,
// issue_piece, from_float and to_float).
//
// One block per BM = 16 MT WARPS queries of one head; each warp owns MT tiles of 16 queries,
// their q fragments held in registers for the whole loop. K and V stream through shared memory
// BN keys at a time, double-buffered: cp.async copies tile t + 1 while the warps multiply tile
// t. With MT = 2 every K and V fragment a warp loads from shared memory feeds two products, one
// per query tile: half the fragment traffic per FLOP, which bounds MT = 1 (a warp reads the
// whole K and V tiles for 16 queries). Causal blocks stop at the diagonal.
//
// At d 128, MT = 2 does not fit 255 registers with q's fragments held (64 registers of
// bfloat16, beside the 2 x 8 accumulator fragments' 128): there (QS) the q tile keeps its own
// shared memory for the whole loop, and each K/V tile the warp loads q's fragments again, 16
// columns (MT fragments) at a time, against the BN / 16 K fragments of those columns. With BN
// 32 the score and probability fragments take half of 64 keys' registers.
// A warp then loads q, K and V fragments, 3 x 8 KiB, for 32 queries x 32 keys (QS, BN 32), where
// MT = 1 loads K and V, 2 x 16 KiB, for 16 queries x 64 keys: the same products, 3/4 of the
// traffic.
//
// The scores, the online softmax (float32, base 2) and the probabilities stay in registers, as
// accumulator fragments, and so does the 16 x D output accumulator; only each row's statistics
// pass through shared memory. WMMA leaves a fragment's element -> (row, column) map
// unspecified, but it is one map for every accumulator fragment of one shape and type in one
// kernel (mma_sync and the loads and stores agree on it), so the warp learns it once, loading a
// 16 x 16 tile of element numbers (at[e] = 16 row + column). Per K/V tile and 16-query tile:
// - each lane folds its BN / 16 score fragments into one partial max per element, writes those
//   to a 16 x 16 exchange tile (each position held by one lane), and lanes 2r, 2r + 1 reduce
//   row r: the new max and alpha = exp2(m_old - m_new) go to shared memory, 2 x 16 floats,
//   read back per element to rescale the accumulator;
// - p = exp2(x - max) in place; the row sums l stay per element (rescaled by alpha like the
//   accumulator) and are reduced once, after the loop, through the exchange tile;
// Where the map is mma.sync's (rows_in_quads, fragments.cuh: on the course GPUs), each row's 16
// columns of a fragment lie in one quad of lanes, and the exchange tile gives way to shuffles:
// a lane folds its elements of rows g and g + 8 into one max each, two xor shuffles make them
// the rows' maxima in all four lanes, and alpha, m and l stay in registers, per row; the scores
// stay unscaled, p = exp2(x scale_log2 - m) one FFMA and one MUFU (QUAD below).
// - p becomes the matrix_a fragments of p . v without shared memory where a matrix_a fragment
//   of T holds, lane by lane, the same elements as an accumulator fragment (checked at run time
//   by loading a tile of known values into both: true for bfloat16 on an H100 and on the CPU
//   backend, not for float16 on the CPU backend), else through the score and probability tiles.
// At the end the accumulator passes through the score tile, BN columns at a time, to be
// divided by l and stored.
//
// Work: 4 s^2 d per head (full), 4 d s (s + 1) / 2 (causal). Traffic: q and o once, k and v once
// per query tile (from L2 mostly).
//
// Causal heads: blocks start in the grid's order (query tile fastest, then head), and a causal
// block's work grows with its query tile; a head's tiles run last first, so that the grid ends
// with one-tile blocks, not with the last head's heaviest block running alone.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

// Two floats rounded to T (a in the low half), as the 32 bits of a uint4's component.
template <typename T> __device__ __forceinline__ unsigned pack(float a, float b);
template <> __device__ __forceinline__ unsigned pack<__nv_bfloat16>(float a, float b)
{
    __nv_bfloat162 pair = __floats2bfloat162_rn(a, b);
    return *reinterpret_cast<unsigned *>(&pair);
}
template <> __device__ __forceinline__ unsigned pack<__half>(float a, float b)
{
    __half2 pair = __floats2half2_rn(a, b);
    return *reinterpret_cast<unsigned *>(&pair);
}

// This thread's cp.async copies of rows row0 .. row0 + ROWS - 1 of a head into tile, one piece
// an iteration, zeros past row s (issue_piece): the q tile, and a head's last K/V tile. Not
// unrolled: unrolled, ptxas keeps every copy's address in registers across the K/V loop, where
// the accumulators leave none to spare.
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void issue_rows(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                           int row0, int s)
{
    constexpr int PIECES = ROWS * D / 8;
#pragma unroll 1
    for (int p = threadIdx.x; p < PIECES; p += THREADS)
        issue_piece<T, D>(tile, head, row0, s, p);
}

// The same for ROWS rows that all lie below s (every K/V tile but a head's last): the thread's
// pieces are one column of 16 bytes in every (THREADS / (D / 8))-th row, fixed offsets from one
// source and one destination address, so that the copies of a tile cost an add or two each,
// where issue_rows' loop spends about 35 instructions a piece on the row, the column and the
// bounds. ptxas (nvcc 13, sm_90), d 128, 2 tiles a warp: the K/V loop's copies 8 LDGSTS and 8
// adds, from 2 loops of 4 iterations.
template <typename T, int D, int ROWS, int THREADS>
__device__ __forceinline__ void issue_whole(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                            int row0)
{
    constexpr int PER_ROW = D / 8, STEP = THREADS / PER_ROW;  // pieces a row, rows a pass
    static_assert(THREADS % PER_ROW == 0 && ROWS % STEP == 0, "whole passes");
    const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW * 8;
    const T *src = head + (long long)(row0 + r) * D + c;
#pragma unroll
    for (int i = 0; i < ROWS / STEP; ++i)
        __pipeline_memcpy_async(&tile[r + i * STEP][c], src + i * STEP * D, 16);
}

// N accumulator floats of one row (acc, 16-byte aligned) over l, rounded to T, to out: 8 a
// 16-byte store.
template <typename T, int N>
__device__ __forceinline__ void store_row(T *out, const float *acc, float inv_l)
{
    const float4 *a4 = reinterpret_cast<const float4 *>(acc);
    uint4 *out8 = reinterpret_cast<uint4 *>(out);
#pragma unroll
    for (int c = 0; c < N / 8; ++c) {
        const float4 a = a4[2 * c], b = a4[2 * c + 1];
        out8[c] = make_uint4(pack<T>(a.x * inv_l, a.y * inv_l), pack<T>(a.z * inv_l, a.w * inv_l),
                             pack<T>(b.x * inv_l, b.y * inv_l), pack<T>(b.z * inv_l, b.w * inv_l));
    }
}

// Shared memory: 2 stages x {BN keys, BN values} of T, the q tile (BM rows of T: with QS its own,
// kept for the whole loop; else it starts at stage 1's and runs past the stages where BM > 2 BN,
// read once before the loop), then per warp 16 MT x (BN + PAD_F) float scores (the exchange
// tile, and the scores where p cannot stay in registers), 16 MT x (BN + PAD_T) T probabilities,
// and 2 x 16 MT float rescale factors and maxima. smem_bytes in attention_cuda.py.
//
// QUAD: the softmax through shuffles, which needs mma.sync's map; the tile returns false, having
// done nothing, where quad is 0 or the map learnt is another (then the caller runs QUAD false).
template <typename T, int D, int WARPS, int MT, int BN, bool QS, bool QUAD>
__device__ __forceinline__ bool attention_tile(const T *__restrict__ q, const T *__restrict__ k,
                                               const T *__restrict__ v, T *__restrict__ o,
                                               int s, float scale_log2, int causal, int quad,
                                               float slack)
{
    constexpr int THREADS = WARPS * 32, BM = 16 * WARPS * MT, WM = 16 * MT;
    constexpr int LDT = D + PAD_T, LDS = BN + PAD_F, LDP = BN + PAD_T;
    // Rows of LDT T: the stages, 4 BN; the q tile from Q0 on; the per-warp tiles after both.
    constexpr int Q0 = QS ? 4 * BN : 2 * BN;
    constexpr int ROWS = Q0 + BM > 4 * BN ? Q0 + BM : 4 * BN;
    static_assert(BN % 16 == 0 && BN >= 16, "whole 16 x 16 fragments; a 16-wide exchange tile");
    static_assert(D % BN == 0, "o leaves through the score tile, BN columns a pass");
    extern __shared__ __align__(128) unsigned char smem[];
    T(*kv)[2][BN][LDT] = reinterpret_cast<T(*)[2][BN][LDT]>(smem);  // [stage][k or v][key][:]
    T(*qs)[LDT] = reinterpret_cast<T(*)[LDT]>(smem) + Q0;            // [query][:]
    float(*ss)[WM][LDS] =
        reinterpret_cast<float(*)[WM][LDS]>(reinterpret_cast<T(*)[LDT]>(smem) + ROWS);
    T(*ps)[WM][LDP] = reinterpret_cast<T(*)[WM][LDP]>(ss + WARPS);
    float(*st)[2][WM] = reinterpret_cast<float(*)[2][WM]>(ps + WARPS);  // [warp][alpha, max][row]
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major>;
    using FragK = wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major>;
    constexpr int E = Acc::num_elements;

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    // Causal heads run their last query tile first (the heaviest: see the header).
    const int row0 = (causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x) * BM;
    const long long head = (long long)blockIdx.y * s * D;
    q += head;
    k += head;
    v += head;
    o += head;
    const int end = causal ? min(s, row0 + BM) : s;
    const int tiles = (end + BN - 1) / BN;

    // The maps (fragments.cuh), learnt in the warp's score and probability tiles.
    int at[E];
    const bool direct = learn_maps<T, E>(at, &ss[warp][0][0], LDS, &ps[warp][0][0], LDP);
    if constexpr (QUAD) {
        if (!quad || !rows_in_quads(at)) return false;  // uniform in the block
    }
    issue_rows<T, D, BN, THREADS>(kv[0][0], k, 0, s);
    issue_rows<T, D, BN, THREADS>(kv[0][1], v, 0, s);
    __pipeline_commit();
    issue_rows<T, D, BM, THREADS>(qs, q + (long long)row0 * D, 0, s - row0);
    __pipeline_commit();

    Acc acc[MT][D / 16];
    float l[MT][E];  // per element: row at[e] / 16's sum of p over this lane's columns
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
        for (int j = 0; j < D / 16; ++j) wmma::fill_fragment(acc[mt][j], 0.0f);
#pragma unroll
        for (int e = 0; e < E; ++e) l[mt][e] = 0.0f;
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    // Without QS, this warp's q fragments in registers for the whole loop (qs is overwritten by
    // K/V tile 1); with QS, loaded from qs again for each K/V tile (qf: one fragment, unused).
    FragA qf[QS ? 1 : MT][QS ? 1 : D / 16];
    if constexpr (!QS) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int i = 0; i < D / 16; ++i)
                load_fragment(qf[mt][i], &qs[WM * warp + 16 * mt][16 * i], LDT);
    }

    const int r = lane / 2, half = lane % 2;  // lanes 2r, 2r + 1 own row r's max
    float m[MT];
    float mq[MT][2], lq[MT][2];  // QUAD: rows g and g + 8's max (scaled) and partial sum
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
        m[mt] = -INFINITY;
        mq[mt][0] = mq[mt][1] = -INFINITY;
        lq[mt][0] = lq[mt][1] = 0.0f;
    }
    for (int t = 0; t < tiles; ++t) {
        const int n0 = t * BN, cur = t % 2;
        __syncthreads();
        if (n0 + 2 * BN <= s && t + 1 < tiles) {  // tile t + 1, whole
            issue_whole<T, D, BN, THREADS>(kv[1 - cur][0], k, n0 + BN);
            issue_whole<T, D, BN, THREADS>(kv[1 - cur][1], v, n0 + BN);
        } else if (t + 1 < tiles) {  // a head's last tile, past s
            issue_rows<T, D, BN, THREADS>(kv[1 - cur][0], k, n0 + BN, s);
            issue_rows<T, D, BN, THREADS>(kv[1 - cur][1], v, n0 + BN, s);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const T(*ks)[LDT] = kv[cur][0];
        const T(*vs)[LDT] = kv[cur][1];

        Acc c[MT][BN / 16];
        if constexpr (QS) {  // 16 columns of q at a time (MT fragments), against every key
#pragma unroll
            for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) wmma::fill_fragment(c[mt][j], 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                FragA qi[MT];
#pragma unroll
                for (int mt = 0; mt < MT; ++mt)
                    load_fragment(qi[mt], &qs[WM * warp + 16 * mt][16 * i], LDT);
#pragma unroll
                for (int j = 0; j < BN / 16; ++j) {
                    FragK kf;
                    load_fragment(kf, &ks[16 * j][16 * i], LDT);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
                        wmma::mma_sync(c[mt][j], qi[mt], kf, c[mt][j]);
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < BN / 16; ++j) {
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) wmma::fill_fragment(c[mt][j], 0.0f);
#pragma unroll
                for (int i = 0; i < D / 16; ++i) {
                    FragK kf;
                    load_fragment(kf, &ks[16 * j][16 * i], LDT);
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt)
                        wmma::mma_sync(c[mt][j], qf[mt][i], kf, c[mt][j]);
                }
            }
        }
        const bool masked = n0 + BN > s || (causal && n0 + BN > row0);
        FragA pf[MT][BN / 16];
        if constexpr (QUAD) {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                const int row_t = row0 + WM * warp + 16 * mt;  // this query tile's first row
                float mx[2] = {-INFINITY, -INFINITY};          // rows g, g + 8: unscaled
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const int key = n0 + 16 * j + at[e] % 16;
                        if (masked && (key >= s || (causal && key > row_t + at[e] / 16)))
                            c[mt][j].x[e] = -INFINITY;
                        mx[e / 2 % 2] = fmaxf(mx[e / 2 % 2], c[mt][j].x[e]);
                    }
                float m_new[2];
                bool moves = false;
#pragma unroll
                for (int h = 0; h < 2; ++h) {  // the quad's max; tile 0 leaves every m finite
                    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
                    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
                    m_new[h] = fmaxf(mq[mt][h], mx[h] * scale_log2);
                    moves |= m_new[h] > mq[mt][h] + slack;  // always at tile 0 (m = -inf)
                }
                // The running max moves, and the accumulator is rescaled, only where a row of
                // the warp's tile passes its max by more than slack; elsewhere the max stays,
                // p = exp2(x - m) <= 2^slack, and p . v, l and the final acc / l are the same
                // sums in float32 (the rounding of p to T is relative: the same at any size).
                if (__any_sync(0xffffffffu, moves)) {
                    float alpha[2];
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        alpha[h] = exp2_approx(mq[mt][h] - m_new[h]);  // 0 at tile 0
                        mq[mt][h] = m_new[h];
                        lq[mt][h] *= alpha[h];
                    }
#pragma unroll
                    for (int j = 0; j < D / 16; ++j)
#pragma unroll
                        for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e / 2 % 2];
                } else {
                    m_new[0] = mq[mt][0];
                    m_new[1] = mq[mt][1];
                }
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const float p =
                            exp2_approx(fmaf(c[mt][j].x[e], scale_log2, -m_new[e / 2 % 2]));
                        lq[mt][e / 2 % 2] += p;
                        c[mt][j].x[e] = p;
                    }
            }
        } else {
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {  // scaled, masked scores; each element's max
                const int row_t = row0 + WM * warp + 16 * mt;  // this query tile's first row
                float pmax[E];
#pragma unroll
                for (int e = 0; e < E; ++e) pmax[e] = -INFINITY;
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        float x = c[mt][j].x[e] * scale_log2;
                        const int key = n0 + 16 * j + at[e] % 16;
                        if (masked && (key >= s || (causal && key > row_t + at[e] / 16)))
                            x = -INFINITY;
                        c[mt][j].x[e] = x;
                        pmax[e] = fmaxf(pmax[e], x);
                    }
#pragma unroll
                for (int e = 0; e < E; ++e) ss[warp][16 * mt + at[e] / 16][at[e] % 16] = pmax[e];
            }
            __syncwarp();
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {  // row r: its 16 partial maxima, 8 a lane
                const float4 *x4 =
                    reinterpret_cast<const float4 *>(&ss[warp][16 * mt + r][8 * half]);
                const float4 a = x4[0], b = x4[1];
                float tile_max = fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)),
                                       fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
                const float m_new = fmaxf(m[mt], tile_max);
                if (half == 0) {
                    st[warp][0][16 * mt + r] = exp2_approx(m[mt] - m_new);
                    st[warp][1][16 * mt + r] = m_new;
                }
                m[mt] = m_new;
            }
            __syncwarp();
#pragma unroll
            for (int mt = 0; mt < MT; ++mt) {
                float alpha[E], m_e[E];
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    alpha[e] = st[warp][0][16 * mt + at[e] / 16];
                    m_e[e] = st[warp][1][16 * mt + at[e] / 16];
                    l[mt][e] *= alpha[e];
                }
#pragma unroll
                for (int j = 0; j < D / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e];
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const float p = exp2_approx(c[mt][j].x[e] - m_e[e]);
                        l[mt][e] += p;
                        c[mt][j].x[e] = p;
                    }
            }
        }
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            if (direct) {
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
#pragma unroll
                    for (int e = 0; e < E; ++e) pf[mt][j].x[e] = from_float<T>(c[mt][j].x[e]);
            } else {  // through the score tile (float) and the probability tile (T)
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
                    wmma::store_matrix_sync(&ss[warp][16 * mt][16 * j], c[mt][j], LDS,
                                            wmma::mem_row_major);
                __syncwarp();
                for (int i = lane; i < 16 * BN; i += 32)
                    ps[warp][16 * mt + i / BN][i % BN] =
                        from_float<T>(ss[warp][16 * mt + i / BN][i % BN]);
                __syncwarp();
#pragma unroll
                for (int j = 0; j < BN / 16; ++j)
                    load_fragment(pf[mt][j], &ps[warp][16 * mt][16 * j], LDP);
            }
        }
#pragma unroll
        for (int j = 0; j < D / 16; ++j)
#pragma unroll
            for (int i = 0; i < BN / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> vf;
                load_fragment(vf, &vs[16 * i][16 * j], LDT);
#pragma unroll
                for (int mt = 0; mt < MT; ++mt)
                    wmma::mma_sync(acc[mt][j], pf[mt][i], vf, acc[mt][j]);
            }
        __syncwarp();
    }

    // Each row's l, to lanes 2r, 2r + 1 (row r): QUAD, the quad's sums through st; else the
    // per-element sums through the exchange tile.
    float l_row[MT];
    if constexpr (QUAD) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                float sum = lq[mt][h];
                sum += __shfl_xor_sync(0xffffffffu, sum, 1);
                sum += __shfl_xor_sync(0xffffffffu, sum, 2);
                if (lane % 4 == 0) st[warp][0][16 * mt + lane / 4 + 8 * h] = sum;
            }
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) l_row[mt] = st[warp][0][16 * mt + r];
    } else {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int e = 0; e < E; ++e) ss[warp][16 * mt + at[e] / 16][at[e] % 16] = l[mt][e];
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const float4 *x4 =
                reinterpret_cast<const float4 *>(&ss[warp][16 * mt + r][8 * half]);
            const float4 a = x4[0], b = x4[1];
            const float sum = (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
            l_row[mt] = sum + __shfl_xor_sync(0xffffffffu, sum, 1);
        }
    }
    __syncwarp();
    const int row_w = row0 + WM * warp + r;
#pragma unroll
    for (int c0 = 0; c0 < D; c0 += BN) {  // o = acc / l, BN columns a pass through the score tile
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int j = 0; j < BN / 16; ++j)
                wmma::store_matrix_sync(&ss[warp][16 * mt][16 * j], acc[mt][c0 / 16 + j], LDS,
                                        wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const int row = row_w + 16 * mt;
            if (row < s)
                store_row<T, BN / 2>(o + (long long)row * D + c0 + half * (BN / 2),
                                     &ss[warp][16 * mt + r][half * (BN / 2)], 1.0f / l_row[mt]);
        }
        __syncwarp();
    }
    return true;
}

// attention_kernel_<dtype>_d<D>_w<WARPS>_t<MT>[_n32_qs]: _t1 one 16-query tile a warp, _t2 two
// (4 warps); _n32_qs 32 keys per K/V tile (64 elsewhere) and q's fragments loaded from the q
// tile for each K/V tile (QS) instead of held in registers. Every combination the launcher may
// pick: 2 tiles at d 64 hold q in registers (q passes through stage 1, 2 BN rows); at d 128
// they take _n32_qs (q in registers, or 64 keys, spill there).
// quad: 1 lets the tile take the shuffles where the map allows (attention_cuda.py's QUAD).
#define ATTENTION_KERNEL(NAME, T, D, WARPS, MT, BN, QS)                                        \
    extern "C" __global__ void __launch_bounds__(WARPS * 32)                                  \
        NAME(const T *q, const T *k, const T *v, T *o, int s, float scale_log2, int causal,  \
             int quad, float slack)                                                           \
    {                                                                                         \
        if (!attention_tile<T, D, WARPS, MT, BN, QS, true>(q, k, v, o, s, scale_log2, causal, \
                                                           quad, slack))                      \
            attention_tile<T, D, WARPS, MT, BN, QS, false>(q, k, v, o, s, scale_log2, causal, \
                                                           0, slack);                         \
    }
ATTENTION_KERNEL(attention_kernel_bf16_d64_w4_t1, __nv_bfloat16, 64, 4, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_bf16_d64_w8_t1, __nv_bfloat16, 64, 8, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_bf16_d128_w4_t1, __nv_bfloat16, 128, 4, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_bf16_d128_w8_t1, __nv_bfloat16, 128, 8, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_bf16_d64_w4_t2, __nv_bfloat16, 64, 4, 2, 64, false)
ATTENTION_KERNEL(attention_kernel_bf16_d128_w4_t2_n32_qs, __nv_bfloat16, 128, 4, 2, 32, true)
ATTENTION_KERNEL(attention_kernel_f16_d64_w4_t1, __half, 64, 4, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_f16_d64_w8_t1, __half, 64, 8, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_f16_d128_w4_t1, __half, 128, 4, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_f16_d128_w8_t1, __half, 128, 8, 1, 64, false)
ATTENTION_KERNEL(attention_kernel_f16_d64_w4_t2, __half, 64, 4, 2, 64, false)
ATTENTION_KERNEL(attention_kernel_f16_d128_w4_t2_n32_qs, __half, 128, 4, 2, 32, true)
