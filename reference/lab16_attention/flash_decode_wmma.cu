// Reference CUDA flash-decoding for lab16's `flash_decode`, bfloat16, on the tensor cores:
// flash_decode_cuda.py's split pass, WMMA and cp.async only, a pipeline a warp. Compiled after
// reference/common/wmma_load.cuh (load_fragment), fragments.cuh (PAD_T, PAD_F, issue_piece,
// from_float, learn_maps, exp2_approx) and flash_decode_split.cuh (WARPS, BN, STAGES, FUSED,
// TAIL; last_of_head, combine_head); the combine pass is flash_decode_combine.cu's.
//
// Split pass: one block of WARPS warps per (split, KV head, sequence), grid (splits, hkv, b).
// The group's G query heads are one 16 x D matrix_a
// operand, rows G .. 15 zero, loaded once into D / 16 fragments. The split's keys are tiles of
// BN; warp w takes tiles w, w + WARPS, w + 2 WARPS, ... and runs its own pipeline: STAGES shared
// K and V tiles of its own, filled by its lanes with cp.async STAGES - 1 tiles ahead, so that
// only __syncwarp orders them and a block keeps WARPS (STAGES - 1) tiles in flight (128 KiB at
// D = 128, 4 warps, BN 32, 3 stages). Rows past the split's end are zero-filled by the copies.
// With CLAIM > 0 a block's keys are not fixed: the KV head's warps take its keys in units of
// CLAIM tiles, each warp's first unit fixed by its place, the rest dealt in turn from a count
// per head (struct Claims), so that warps on SMs served faster take more units; a split's
// partials are then those of whatever keys its warps took, merged as before.
// Per tile:
// - the 16 x BN scores q . k^T in accumulator fragments (keys past the end set to -inf through
//   shared memory, in the one tile of a split that has them);
// - the online softmax in float32, base 2, on the fragments' elements. WMMA leaves which
//   (row, column) an element holds unspecified, so the row statistics go through a per-warp
//   exchange tile stored and loaded as accumulators (mma_sync, load and store agree on the
//   map): each element's max over the tile's fragments is stored, lanes 2r and 2r + 1 reduce
//   row r to its new max and alpha = exp2(m_old - m_new), write them across row r, and the
//   tile loaded back gives every element its row's;
// - p, rounded to bfloat16, becomes p . v's matrix_a fragments in registers where a matrix_a
//   fragment holds the accumulator's elements (learn_maps checks at run time: true on an H100
//   and on the CPU backend), else through shared memory; p . v into 16 x D accumulators.
// Rows G .. 15 compute on zeros (scores 0) and are never written. After the loop each warp
// leaves its accumulators (in its own stage tiles), its rows' maxima and sums in shared memory,
// and the block's threads merge the warps exactly, each rescaled by exp2(m_w - m) to the common
// max, into the split's float32 partials of its G real rows (the layout the combine reads).
//
// Why: a split pass on the CUDA cores computes each score as a dot product, summed across lanes
// by shuffles, and rescales per-lane accumulators per query head; here q . k^T and
// p . v are mma_sync (at D = 128, 2 HMMA m16n8k16 a key, on 16 rows of which G are real) and
// the softmax costs a few operations per accumulator element, 8 a lane per 16 keys. What is
// left to bound it is the copy: cp.async keeps the bytes in flight that a memory-bound kernel
// needs without holding them in registers. ptxas (nvcc 13, sm_90, 8 warps, BN 16, 2 stages):
// 162 registers at D = 128, 123 at D = 64 (170 and 127 with FUSED, TAIL and VEC 4), no spill.
//
// Traffic: k and v once; q once per split (from L2 after the first); the partials, b hq splits
// (D + 2) floats, written and read once. Target (lab.toml): 0.85 of the copy roof at the perf
// shapes; measured figures in flash_decode_cuda.py.
#ifndef CLAIM
#define CLAIM 0  // > 0: the warps of a KV head take its keys in units of CLAIM tiles, in turn
#endif
#ifndef HEADS_FIRST
#define HEADS_FIRST 0  // 1: grid (hkv, splits, b), a KV head's blocks apart in launch order
#endif
#ifndef P_IN_REGISTERS
#define P_IN_REGISTERS 1  // 0: p always through shared memory, as where the maps differ
#endif

// This warp's cp.async copies of keys n0 .. n0 + BN - 1 of a KV head (k_head, v_head: its first
// row) into one stage's K and V tiles, zeros past stop; one commit group, empty where the warp
// has no such tile (tile false), so that every lane counts the groups alike. A lane copies the
// same 16 bytes of every (32 / (D / 8))-th row: in a whole tile, fixed offsets from two
// addresses; the split's last tile, which may pass stop, piece by piece (issue_piece).
template <int D>
__device__ __forceinline__ void issue_tile(bf16 (*tile_k)[D + PAD_T], bf16 (*tile_v)[D + PAD_T],
                                           const bf16 *__restrict__ k_head,
                                           const bf16 *__restrict__ v_head, int n0, int stop,
                                           bool tile)
{
    constexpr int ROWS = 32 / (D / 8);  // rows per pass of the warp
    const int lane = threadIdx.x % 32, r = lane / (D / 8), c = lane % (D / 8) * 8;
    if (tile && n0 + BN <= stop) {
        const long long from = (long long)(n0 + r) * D + c;
#pragma unroll
        for (int i = 0; i < BN / ROWS; ++i) {
            __pipeline_memcpy_async(&tile_k[r + i * ROWS][c], k_head + from + i * ROWS * D, 16);
            __pipeline_memcpy_async(&tile_v[r + i * ROWS][c], v_head + from + i * ROWS * D, 16);
        }
    } else if (tile) {
        for (int p = lane; p < BN * D / 8; p += 32) {
            issue_piece<bf16, D>(tile_k, k_head, n0, stop, p);
            issue_piece<bf16, D>(tile_v, v_head, n0, stop, p);
        }
    }
    __pipeline_commit();
}

#if CLAIM
// The tiles a warp takes under CLAIM: units of CLAIM tiles of BN keys, a KV head's units dealt
// out in turn from its count `next`. A warp's first unit is fixed (its place among the head's
// warps); it claims the unit after it as it starts one, so that the count's round trip is
// hidden behind CLAIM tiles of work. Uniform across the warp; `raw` lives in lane 0.
struct Claims {
    unsigned *next;
    int units, warps, s, unit, tile;  // the head's units; its warps; keys; the unit; its tile
    unsigned raw;

    __device__ __forceinline__ Claims(unsigned *next_, int s_, int first, int warps_)
        : next(next_), units((s_ + CLAIM * BN - 1) / (CLAIM * BN)), warps(warps_), s(s_),
          unit(first), tile(0), raw(0)
    {
        if (threadIdx.x % 32 == 0 && unit < units) raw = atomicAdd(next, 1u);
    }

    // The first key of the warp's next tile, or -1 past its last. The claim is read only when
    // the tile after a unit's last is asked for, a tile's work after it was made.
    __device__ __forceinline__ int take()
    {
        if (tile == CLAIM && unit < units) {
            tile = 0;
            unit = warps + (int)__shfl_sync(0xffffffffu, raw, 0);
            if (threadIdx.x % 32 == 0 && unit < units) raw = atomicAdd(next, 1u);
        }
        if (unit >= units) return -1;
        const int n0 = (unit * CLAIM + tile) * BN;
        if (n0 >= s) {  // the last unit's tiles past s: no unit comes after it
            unit = units;
            return -1;
        }
        ++tile;
        return n0;
    }
};
#endif

// Shared memory (dynamic, flash_decode_cuda.py's wmma_smem_bytes): q's 16 x (D + PAD_T) tile,
// then per warp STAGES x {K, V} tiles of BN x (D + PAD_T) and a 16 x (max(BN, 32) + PAD_F)
// float tile, the exchange tile: the maps, the rows' maxima, alpha and max, sums; the scores of
// a masked tile; p where it cannot stay in registers, as floats, then in place as 16-bit
// values (2 LDS a row); after the loop, in its padding columns SC and SC + 1, each row's sum
// and max of the warp. Nothing else: 8 warps of 3 stages of 16 keys fit at D = 128.
template <int D>
__device__ __forceinline__ void flash_decode_wmma_split(const bf16 *__restrict__ q,
                                                        const bf16 *__restrict__ k,
                                                        const bf16 *__restrict__ v,
                                                        float *__restrict__ part_o,
                                                        float *__restrict__ part_m,
                                                        float *__restrict__ part_l, int s,
                                                        int unit, int group,
                                                        float scale_log2,
                                                        unsigned *__restrict__ done,
                                                        bf16 *__restrict__ o)
{
    constexpr int SC = BN > 32 ? BN : 32, LDT = D + PAD_T, LDS = SC + PAD_F, LDP = 2 * LDS;
    constexpr int LDO = D + PAD_F;
    static_assert(PAD_F >= 2, "the rows' sums and maxima in the exchange tile's padding");
    static_assert(BN % 16 == 0, "tiles of whole fragments");
    static_assert(16 * LDO * 4 <= STAGES * 2 * BN * LDT * 2,
                  "a warp's accumulators leave through its stage tiles");
    using Acc = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
    using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
    constexpr int E = Acc::num_elements;
    extern __shared__ __align__(128) unsigned char smem[];
    bf16(*qs)[LDT] = reinterpret_cast<bf16(*)[LDT]>(smem);
    bf16(*kv)[STAGES][2][BN][LDT] = reinterpret_cast<bf16(*)[STAGES][2][BN][LDT]>(qs + 16);
    float(*ss)[16][LDS] = reinterpret_cast<float(*)[16][LDS]>(kv + WARPS);  // [warp][row][:]

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#if HEADS_FIRST
    const int split = blockIdx.y, splits = gridDim.y;
    const int kv_head = blockIdx.z * gridDim.x + blockIdx.x;
#else
    const int split = blockIdx.x, splits = gridDim.x;
    const int kv_head = blockIdx.z * gridDim.y + blockIdx.y;
#endif
    const bf16 *k_head = k + (long long)kv_head * s * D, *v_head = v + (long long)kv_head * s * D;
#if CLAIM
    const int heads = gridDim.x * gridDim.y * gridDim.z / splits;  // (KV head, sequence) pairs
    const int stop = s;
    Claims claims(done + heads + kv_head, s, split * WARPS + warp, splits * WARPS);
    int ring = -1;  // lane st: the first key of the tile in stage st, -1 for none
#else
    const int start = split_start(split, splits, s, unit);  // the split's keys
    const int stop = split_start(split + 1, splits, s, unit);
    const int tiles = (stop - start + BN - 1) / BN;  // the split's; tile i at start + i BN
    const int mine = warp < tiles ? (tiles - 1 - warp) / WARPS + 1 : 0;  // i = warp + j WARPS
#endif

    // q's group (rows g < G of the tile, zeros below: issue_piece's fill past row `group`),
    // then this warp's first STAGES - 1 tiles.
    for (int p = threadIdx.x; p < 16 * D / 8; p += THREADS)
        issue_piece<bf16, D>(qs, q + (long long)kv_head * group * D, 0, group, p);
    __pipeline_commit();
#pragma unroll
    for (int j = 0; j < STAGES - 1; ++j) {
#if CLAIM
        const int n = claims.take();
        issue_tile<D>(kv[warp][j][0], kv[warp][j][1], k_head, v_head, n, stop, n >= 0);
        if (lane == j) ring = n;
#else
        issue_tile<D>(kv[warp][j][0], kv[warp][j][1], k_head, v_head,
                      start + (warp + j * WARPS) * BN, stop, j < mine);
#endif
    }

    // Only whether p can stay in registers: each row's statistics reach the elements of its
    // row through the exchange tile, stored and loaded as accumulators, which needs no map.
    int at[E];  // (the 16-bit tile: columns 16 .. 23 of the float one)
    const bool direct = learn_maps<bf16, E>(at, &ss[warp][0][0], LDS,
                                            reinterpret_cast<bf16 *>(&ss[warp][0][16]), LDP) &&
                        P_IN_REGISTERS;
    __pipeline_wait_prior(STAGES - 1);  // q's pieces (the oldest group) have landed...
    __syncthreads();                    // ... every thread's
    FragA qf[D / 16];
#pragma unroll
    for (int i = 0; i < D / 16; ++i) load_fragment(qf[i], &qs[0][16 * i], LDT);

    Acc acc[D / 16];
#pragma unroll
    for (int i = 0; i < D / 16; ++i) wmma::fill_fragment(acc[i], 0.0f);
    float l[E];  // per element: its row's sum of p over the element's columns
#pragma unroll
    for (int e = 0; e < E; ++e) l[e] = 0.0f;
    const int r = lane / 2, half = lane % 2;  // lanes 2r, 2r + 1 own row r's max
    float m = -INFINITY;                       // row r's, base 2, scaled

    int use = 0, load = STAGES - 1;  // the stages of tile j and of tile j + STAGES - 1
#if CLAIM
    for (;;) {
        const int n0 = __shfl_sync(0xffffffffu, ring, use);
        if (n0 < 0) break;
        {
            const int n = claims.take();
            issue_tile<D>(kv[warp][load][0], kv[warp][load][1], k_head, v_head, n, stop, n >= 0);
            if (lane == load) ring = n;
        }
#else
    for (int j = 0; j < mine; ++j) {
        // Tile j + STAGES - 1 into the stage that tile j - 1 used (read before the __syncwarp
        // that ended the last iteration).
        issue_tile<D>(kv[warp][load][0], kv[warp][load][1], k_head, v_head,
                      start + (warp + (j + STAGES - 1) * WARPS) * BN, stop,
                      j + STAGES - 1 < mine);
#endif
        load = load + 1 == STAGES ? 0 : load + 1;
        __pipeline_wait_prior(STAGES - 1);  // tile j's pieces have landed (this lane's)...
        __syncwarp();                       // ... every lane's
        const bf16(*ks)[LDT] = kv[warp][use][0];
        const bf16(*vs)[LDT] = kv[warp][use][1];
        use = use + 1 == STAGES ? 0 : use + 1;
#if !CLAIM
        const int n0 = start + (warp + j * WARPS) * BN;
#endif

        Acc c[BN / 16];  // raw scores q . k^T, 16 keys a fragment
#pragma unroll
        for (int jn = 0; jn < BN / 16; ++jn) {
            wmma::fill_fragment(c[jn], 0.0f);
#pragma unroll
            for (int i = 0; i < D / 16; ++i) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major> kf;
                load_fragment(kf, &ks[16 * jn][16 * i], LDT);
                wmma::mma_sync(c[jn], qf[i], kf, c[jn]);
            }
        }
        if (n0 + BN > stop) {  // keys past stop (their rows zeros): -inf, through the tile
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::store_matrix_sync(&ss[warp][0][16 * jn], c[jn], LDS, wmma::mem_row_major);
            __syncwarp();
            for (int i = lane; i < 16 * BN; i += 32)
                if (n0 + i % BN >= stop) ss[warp][i / BN][i % BN] = -INFINITY;
            __syncwarp();
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::load_matrix_sync(c[jn], &ss[warp][0][16 * jn], LDS, wmma::mem_row_major);
            __syncwarp();
        }
        // Each element's max over the tile's fragments, through the exchange tile to lanes 2r,
        // 2r + 1 (8 columns each): row r's max, its new running max and alpha = exp2(m_old -
        // m_new) back into the tile, alpha in columns 0-15 (over the maxima just read, by the
        // lanes that read them), the max in 16-31; loaded as accumulators, each element gets
        // its row's.
        {
            Acc pmax;
#pragma unroll
            for (int e = 0; e < E; ++e) {
                pmax.x[e] = c[0].x[e];
#pragma unroll
                for (int jn = 1; jn < BN / 16; ++jn) pmax.x[e] = fmaxf(pmax.x[e], c[jn].x[e]);
            }
            wmma::store_matrix_sync(&ss[warp][0][0], pmax, LDS, wmma::mem_row_major);
        }
        __syncwarp();
        {
            float4 *x4 = reinterpret_cast<float4 *>(&ss[warp][r][8 * half]);
            const float4 a = x4[0], b = x4[1];
            float tile_max = fmaxf(fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)),
                                   fmaxf(fmaxf(b.x, b.y), fmaxf(b.z, b.w)));
            tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
            // Finite: the tile's first key is before stop. scale_log2 > 0: the max of the
            // scaled scores is the scaled max.
            const float m_new = fmaxf(m, tile_max * scale_log2);
            const float alpha = exp2_approx(m - m_new);  // 0 at the first tile (m = -inf)
            x4[0] = x4[1] = make_float4(alpha, alpha, alpha, alpha);
            x4[4] = x4[5] = make_float4(m_new, m_new, m_new, m_new);  // columns 16 + 8 half ..
            m = m_new;
        }
        __syncwarp();
        Acc alpha, m_row;
        wmma::load_matrix_sync(alpha, &ss[warp][0][0], LDS, wmma::mem_row_major);
        wmma::load_matrix_sync(m_row, &ss[warp][0][16], LDS, wmma::mem_row_major);
        // Rescale by alpha; p = exp2(x scale - m) in place (0 past stop), summed per element.
#pragma unroll
        for (int e = 0; e < E; ++e) {
            l[e] *= alpha.x[e];
#pragma unroll
            for (int i = 0; i < D / 16; ++i) acc[i].x[e] *= alpha.x[e];
        }
#pragma unroll
        for (int jn = 0; jn < BN / 16; ++jn)
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const float p = exp2_approx(fmaf(c[jn].x[e], scale_log2, -m_row.x[e]));
                l[e] += p;
                c[jn].x[e] = p;
            }
        FragA pf[BN / 16];
        if (direct) {
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
#pragma unroll
                for (int e = 0; e < E; ++e) pf[jn].x[e] = from_float<bf16>(c[jn].x[e]);
        } else {  // through the exchange tile: floats, then 16-bit values in place
            bf16 *ps = reinterpret_cast<bf16 *>(&ss[warp][0][0]);  // row i at ps + i LDP
            __syncwarp();  // every lane has loaded alpha and the max
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn)
                wmma::store_matrix_sync(&ss[warp][0][16 * jn], c[jn], LDS, wmma::mem_row_major);
            __syncwarp();
            float x[16 * BN / 32];  // every value read before any is written over
#pragma unroll
            for (int u = 0; u < 16 * BN / 32; ++u)
                x[u] = ss[warp][(lane + 32 * u) / BN][(lane + 32 * u) % BN];
            __syncwarp();
#pragma unroll
            for (int u = 0; u < 16 * BN / 32; ++u)
                ps[(lane + 32 * u) / BN * LDP + (lane + 32 * u) % BN] = from_float<bf16>(x[u]);
            __syncwarp();
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn) load_fragment(pf[jn], ps + 16 * jn, LDP);
        }
#pragma unroll
        for (int i = 0; i < D / 16; ++i)
#pragma unroll
            for (int jn = 0; jn < BN / 16; ++jn) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> vf;
                load_fragment(vf, &vs[16 * jn][16 * i], LDT);
                wmma::mma_sync(acc[i], pf[jn], vf, acc[i]);
            }
        __syncwarp();  // the stage and the warp's tiles are read before they are written again
    }
    __pipeline_wait_prior(0);  // (only empty groups can be left: nothing lands after this)

    // The warp's row sums through the exchange tile; row r's sum and max to its padding
    // columns SC, SC + 1 (a warp without a tile leaves 0 and -inf: weight 0 below); its
    // accumulators to its own stage tiles.
    {
        Acc sums;
#pragma unroll
        for (int e = 0; e < E; ++e) sums.x[e] = l[e];
        wmma::store_matrix_sync(&ss[warp][0][0], sums, LDS, wmma::mem_row_major);
    }
    __syncwarp();
    {
        const float4 *x4 = reinterpret_cast<const float4 *>(&ss[warp][r][8 * half]);
        const float4 a = x4[0], b = x4[1];
        float sum = (a.x + a.y) + (a.z + a.w) + (b.x + b.y) + (b.z + b.w);
        sum += __shfl_xor_sync(0xffffffffu, sum, 1);
        if (half == 0) {
            ss[warp][r][SC] = sum;
            ss[warp][r][SC + 1] = m;
        }
    }
    float(*os)[LDO] = reinterpret_cast<float(*)[LDO]>(&kv[warp][0][0][0][0]);
#pragma unroll
    for (int i = 0; i < D / 16; ++i)
        wmma::store_matrix_sync(&os[0][16 * i], acc[i], LDO, wmma::mem_row_major);
    __syncthreads();

    // The warps merged per (real row, column), each rescaled to the common max; the max is
    // finite where the block has keys (warp 0 has its first tile), and where it has none
    // (CLAIM: units all taken) every weight is 0.
#if TAIL
    // First one thread per row: the common max, each warp's weight exp2(m_w - max) (to the
    // exchange tile's column SC + 2) and the split's sum; then every element at once.
    if (threadIdx.x < group) {
        const int g = threadIdx.x;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) mx = fmaxf(mx, ss[w][g][SC + 1]);
        float sum_l = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const float wt = mx == -INFINITY ? 0.0f : exp2f(ss[w][g][SC + 1] - mx);
            ss[w][g][SC + 2] = wt;
            sum_l += wt * ss[w][g][SC];
        }
        const long long row = (long long)(kv_head * group + g) * splits + split;
        part_m[row] = mx;
        part_l[row] = sum_l;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < group * D; i += THREADS) {
        const int g = i / D, col = i % D;
        float sum_o = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w)
            sum_o += ss[w][g][SC + 2] *
                     reinterpret_cast<const float(*)[LDO]>(&kv[w][0][0][0][0])[g][col];
        const long long row = (long long)(kv_head * group + g) * splits + split;
        part_o[row * D + col] = sum_o;
    }
#else
    for (int i = threadIdx.x; i < group * D; i += THREADS) {
        const int g = i / D, col = i % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) mx = fmaxf(mx, ss[w][g][SC + 1]);
        float sum_l = 0.0f, sum_o = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const float wt = mx == -INFINITY ? 0.0f : exp2f(ss[w][g][SC + 1] - mx);
            sum_l += wt * ss[w][g][SC];
            sum_o += wt * reinterpret_cast<const float(*)[LDO]>(&kv[w][0][0][0][0])[g][col];
        }
        const long long row = (long long)(kv_head * group + g) * splits + split;
        part_o[row * D + col] = sum_o;
        if (col == 0) {
            part_m[row] = mx;
            part_l[row] = sum_l;
        }
    }
#endif
#if FUSED || CLAIM
    if (!last_of_head(&done[kv_head], splits))
        return;
#if CLAIM  // every block's warps have had their last claim: the head's count of units to 0
    if (threadIdx.x == 0)
        done[heads + kv_head] = 0;
#endif
#endif
#if FUSED
    combine_head<D>(part_o, part_m, part_l, o, kv_head, group, splits);
#endif
#if FUSED || CLAIM
    if (threadIdx.x == 0)
        done[kv_head] = 0;
#endif
}

#define FLASH_DECODE_WMMA_KERNEL(D)                                                           \
    extern "C" __global__ void __launch_bounds__(THREADS) flash_decode_wmma_kernel_d##D(      \
        const bf16 *q, const bf16 *k, const bf16 *v, float *part_o, float *part_m,            \
        float *part_l, int s, int unit, int group, float scale_log2,                          \
        unsigned *done, bf16 *o)                                                              \
    {                                                                                         \
        flash_decode_wmma_split<D>(q, k, v, part_o, part_m, part_l, s, unit, group,           \
                                   scale_log2, done, o);                                      \
    }
FLASH_DECODE_WMMA_KERNEL(64)
FLASH_DECODE_WMMA_KERNEL(128)
