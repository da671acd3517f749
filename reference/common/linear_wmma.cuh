// The pipelined WMMA GEMM of the hidden references of lab14 (int8_matmul) and lab15
// (linear_gelu, mlp), in nn.Linear's layout: C = A B^T with A m x k and B n x k, both row-major
// (K contiguous), C m x n bfloat16, contiguous, each element finished by the lab's epilogue
// functor. Written only with what the labs teach: WMMA fragments (<mma.h>) fed from shared
// memory that cp.async (__pipeline_memcpy_async, <cuda_pipeline.h>) fills STAGES - 1 K tiles
// ahead. No wgmma, no TMA, no inline PTX but wmma_load.cuh's
// (the CPU backend runs this file too).
//
// Not a lab: each lab's launcher (reference/<lab>/*_cuda.py) puts wmma_load.cuh's text (the
// fragment loads, load_fragment) and this file's before its own .cu and compiles them as one
// source, so that the compile caches, keyed by the source
// text, see an edit here. lab10's reference (reference/lab10_matmul/matmul_fp16.cu) is the
// same pipeline for a k x n row-major B; its comments give the reasoning this file relies on.
//
// One block of WARPS_M x WARPS_N warps per BM x BN tile of A B^T, each warp owning a WM x WN
// piece of it: (WM / 16) x (WN / 16) accumulator fragments in registers. Per 16-deep slice of a
// K tile a warp loads WM / 16 matrix_a fragments and WN / 16 matrix_b fragments and does every
// product of the two.
//
// Where B's rows come from (the `rows` argument of gemm_rows; gemm takes one matrix):
//   - Rows: one matrix, row col0 + r in row r of the block's B tile: C's columns are B's rows.
//   - Interleaved: two matrices of the same n rows (lab15's w_gate and w_up), 16 rows of each in
//     turn: rows 32 j .. 32 j + 15 of the B tile are rows col0 + 16 j .. col0 + 16 j + 15 of the
//     first, rows 32 j + 16 .. 32 j + 31 the same rows of the second. A block's BN rows of B
//     give BN / 2 columns of C, both products of each; with WN a multiple of 32, a warp's
//     fragments 2 p and 2 p + 1 are the first and second products of the same 16 columns, in
//     accumulators of one type (the same register layout: element e of one and of the other
//     are the same element of C), and the epilogue functor takes them in pairs, element by
//     element in registers (`float operator()(Acc first, Acc second)`). One pass over A's K
//     tiles feeds both products: A is read once where two GEMMs would read it twice.
//
// Shared memory (dynamic): STAGES buffers of A's K tile (BM rows x BK) and B's (BN rows x BK).
// Both operands are K-contiguous, so both tiles are "rows along K" and one copy routine
// (TileCopy) fills either; a matrix_a fragment is row_major and a matrix_b fragment col_major
// (column j of B^T is row j of B), both read from the same kind of tile. How a row sits in
// the tile depends on the element type (KTile):
//   - 16-bit (bfloat16): row-major, each row padded by 8 elements (16 bytes), as lab10. A
//     16 x 16 fragment load reads 16 bytes from each of 8 rows at a time; rows 2 BK + 16 bytes
//     apart start those 8 pieces in 8 different groups of 4 banks (2 BK bytes apart, a multiple
//     of 128, they would share banks). Fragments start on multiples of 32 bytes (16 rows of
//     2 BK + 16 bytes; 16-deep slices 32 bytes apart).
//   - 8-bit (signed char): slice by slice, [BK / 16][ROWS][16 bytes], ldm 16. WMMA wants every
//     fragment pointer 32-byte aligned, and a 16-deep int8 slice is 16 bytes wide: in a
//     row-major tile every other slice's fragments would start 16 bytes off. Here a fragment
//     is 256 contiguous bytes (aligned), and a load's 8 rows of 16 bytes are 128 contiguous
//     bytes: no bank conflict without padding.
// Both layouts are linear in (row, 16-byte piece), so a thread's copies sit at compile-time
// offsets from its first one.
//
// Copies: Q threads side by side take Q consecutive 16-byte pieces of a row, the block
// THREADS / Q rows per pass; a thread keeps one column of pieces, from a pointer set once.
// bfloat16: Q = the pieces of a K tile's row, up to 8 (BK 32: a warp copies 8 rows x 64 bytes;
// BK 64 and more: 4 whole 128-byte lines). With Q = 2 (16 rows x 32 bytes a warp: a line per
// row) the same kernels ran 261 TFLOP/s at 4096^3 and 49 at m = 64 on an H100; whole lines,
// 357 and 76 (linear_gelu, 2026-12-06). int8 keeps Q = 2 (16 rows x 32 bytes), as lab14's
// reference was measured. A tile with fewer rows than THREADS / Q takes more threads a row. In
// either layout a warp's 512 bytes land in 4 shared-memory wavefronts, the fewest (padded:
// consecutive rows 2 BK + 16 bytes apart start in different groups of banks; sliced: a slice's
// rows are contiguous). Interleaved B: a pass is a multiple of 32 rows, so a thread's rows all
// come from one of the two matrices, half a pass apart in it: one pointer and one stride again.
//
// The K loop keeps STAGES - 1 tiles in flight and has one barrier per tile, placed before the
// last slice's products: past it every warp holds tile t's last fragments (tile t's buffer is
// free) and loads tile t + 1's first ones while those products run. Fragments go to two
// register sets in turn; where a thread may use 255 registers a warp loads slice s + 1 before
// multiplying slice s (PREFETCH), hiding the loads' latency:
//
//     issue tiles 0 .. STAGES - 2, one commit each; wait for tile 0; load its slice 0
//     for each tile t, for each slice s:
//         at the last slice: wait until tile t + 1 has landed; __syncthreads()
//         at slice 0: issue tile t + STAGES - 1 into the buffer of tile t - 1 (free since the
//             previous barrier); commit
//         load the next slice's fragments (tile t + 1's first after the last), multiply slice s
//
// Tiles past k are issued too, all zeros: the loop has no branch but its own and the commits
// stay uniform.
//
// Any m, n, k and row strides. Two instantiations of the copies (ASYNC):
//   - true: 16-byte cp.async pieces. Needs every piece wholly inside or outside the matrix and
//     16-byte aligned: k a multiple of 16 bytes' worth of elements, both row strides too, both
//     base pointers 16-byte aligned (the launcher checks; every perf shape is so). A piece past
//     m, n or k is a copy of no bytes that fills its 16 with zeros (its source the matrix's
//     start, never read).
//   - false: the same pieces gathered element by element with plain loads, zeros past m, n or
//     k, written to the same layout. For rows that are not 16-byte aligned (an odd k, a row
//     padded by an odd count); slow (each load waits), and correct at any shape. The pipeline
//     still orders the buffers: the one barrier per tile publishes these stores as it does the
//     copies (the commits and waits cover no copies).
//
// The epilogue goes through shared memory (a fragment's register layout is unspecified and
// each element needs its row and column): each warp stores a finished accumulator to a 16 x 16
// scratch tile of its own, each lane takes 8 consecutive elements of one row, calls the
// epilogue functor on each (`float operator()(Acc acc, int row, int col)`, only for elements
// inside C: a functor may read per-row or per-column vectors at row and col), rounds to
// bfloat16 and writes the 8 with one 16-byte store where n is a multiple of 8 and C 16-byte
// aligned, element by element otherwise (and at the right edge). Interleaved B: the pair's
// functor runs first, in registers, on every element of the two accumulators (no element's row
// or column is known there), its result kept in the first one's registers, and that fragment
// goes through the scratch tile as above, each value rounded as it is: one scratch round trip
// per fragment of C, not two.
//
// Tiles are numbered on a 1-D grid (no 65535 limit) in groups of group_m tile rows, column by
// column inside a group (the blocks running together share tiles of A and B in the L2).
// Offsets are 64-bit wherever a row number multiplies a stride.

#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>

namespace linear_wmma {

using namespace nvcuda;

// A shared K tile of ROWS rows x BK elements of T: where element (r, kk) sits (at), the ldm of
// its fragments, its size, and the accumulator WMMA pairs with T.
template <class T, int ROWS, int BK>
struct KTile;

template <int ROWS, int BK>
struct KTile<__nv_bfloat16, ROWS, BK> {
    using Acc = float;            // WMMA sums bfloat16 products in float
    using Acc4 = float4;          // four accumulator elements, one 16-byte shared load
    using Bits = unsigned short;  // an element as raw bits (the element-wise copies)
    static constexpr int PIECE = 8;          // elements per 16-byte piece
    static constexpr int COPY_Q = 8;         // pieces of a row copied side by side, at most
    static constexpr int LDM = BK + 8;       // row stride: padded by 16 bytes
    static constexpr int ELEMS = ROWS * LDM;  // elements per buffer
    __device__ __forceinline__ static int at(int r, int kk) { return r * LDM + kk; }
};

template <int ROWS, int BK>
struct KTile<signed char, ROWS, BK> {
    using Acc = int;  // exact: |sum| <= 2^14 k
    using Acc4 = int4;
    using Bits = signed char;
    static constexpr int PIECE = 16;
    static constexpr int COPY_Q = 2;  // pieces of a row copied side by side, at most
    static constexpr int LDM = 16;    // a slice's rows are 16 bytes apart
    static constexpr int ELEMS = ROWS * BK;
    __device__ __forceinline__ static int at(int r, int kk)
    {
        return kk / 16 * (ROWS * 16) + r * 16 + kk % 16;  // slice, row, byte
    }
};

// Dynamic shared memory of one block, in bytes: the launchers' `shared=` mirrors it.
template <class T, int BM, int BN, int BK, int STAGES>
constexpr int SMEM_BYTES =
    STAGES * (KTile<T, BM, BK>::ELEMS + KTile<T, BN, BK>::ELEMS) * (int)sizeof(T);

// Where the rows of B's K tiles come from (gemm_rows' `rows`): one matrix...
template <class T>
struct Rows {
    static constexpr bool PAIRED = false;  // one product per element of C
    const T *matrix;  // n x k, rows `stride` elements apart
    int n;            // its rows: C's columns
    int stride;
};

// ... or two of the same shape, 16 rows of each in turn (the header comment): C's n columns
// each get both products, handed to the epilogue in pairs (first, second).
template <class T>
struct Interleaved {
    static constexpr bool PAIRED = true;
    const T *first, *second;  // n x k each
    int n;                    // their rows: C's columns
    int stride_first, stride_second;
};

// One thread's share of filling a shared K tile from ROWS rows of a K-contiguous matrix
// (rows row0 .. row0 + ROWS - 1, those at or past `limit` read as zeros): the pieces at
// K-tile columns q PIECE + g Q PIECE (g = 0, 1, ...) of rows r, r + RPP, ...
template <class T, int ROWS, int BK, int THREADS, int MIN_RPP = 1>
struct TileCopy {
    using L = KTile<T, ROWS, BK>;
    static constexpr int PER_ROW = BK / L::PIECE;  // pieces in a row of a K tile
    // Pieces of a row side by side in a pass: the row's, up to COPY_Q and to as many as leave a
    // pass MIN_RPP rows (an interleaved B's 32); more where the block has more threads than
    // that many a row.
    static constexpr int CAP = L::COPY_Q < THREADS / MIN_RPP ? L::COPY_Q : THREADS / MIN_RPP;
    static constexpr int WIDE = PER_ROW < CAP ? PER_ROW : CAP;
    static constexpr int Q = THREADS / ROWS > WIDE ? THREADS / ROWS : WIDE;
    static constexpr int RPP = THREADS / Q;  // rows per pass of the block
    static_assert(BK % 16 == 0 && PER_ROW % Q == 0, "whole 16-deep slices, whole pieces");
    static_assert(ROWS % RPP == 0, "whole passes: each thread copies one column of pieces");

    const T *matrix;  // the matrix's start: the source of a zero fill, never read
    const T *src;     // this thread's first piece in K tile 0 (past the matrix: never read)
    long long pass;   // RPP rows, in elements
    int rows;         // pass p's row is inside the matrix where p RPP < rows
    int dst;          // the first piece's offset in a buffer
    int kq;           // its first element along K within a tile

    __device__ __forceinline__ TileCopy(const T *m, int row0, int limit, int stride)
    {
        const int q = threadIdx.x % Q, r = threadIdx.x / Q;
        matrix = m;
        kq = q * L::PIECE;
        src = m + (long long)(row0 + r) * stride + kq;  // 64-bit: row * stride
        pass = (long long)RPP * stride;
        rows = limit - row0 - r;  // rows of the matrix from this thread's first row on
        dst = L::at(r, kq);
    }

    // B's tile for C's columns col0 onwards, from one matrix: tile row r is its row col0 + r.
    __device__ __forceinline__ TileCopy(const Rows<T> &b, int col0)
        : TileCopy(b.matrix, col0, b.n, b.stride)
    {
    }

    // Interleaved: tile row r is row col0 + r / 32 * 16 + r % 16 of the first matrix (r / 16
    // even) or the second (odd). Rows RPP apart in the tile are RPP / 2 apart in that matrix.
    __device__ __forceinline__ TileCopy(const Interleaved<T> &b, int col0)
    {
        static_assert(RPP % 32 == 0, "a thread's rows all come from one of the two matrices");
        const int q = threadIdx.x % Q, r = threadIdx.x / Q;
        const bool second = r / 16 % 2 == 1;
        const T *m = second ? b.second : b.first;
        const int stride = second ? b.stride_second : b.stride_first;
        const int row = col0 + r / 32 * 16 + r % 16;  // this thread's first row of m
        matrix = m;
        kq = q * L::PIECE;
        src = m + (long long)row * stride + kq;
        pass = (long long)(RPP / 2) * stride;
        // p RPP / 2 < b.n - row, as p RPP < rows; capped at ROWS (p RPP < ROWS always) so that
        // twice it stays an int.
        rows = 2 * min(b.n - row, ROWS);
        dst = L::at(r, kq);
    }

    // This thread's pieces of the K tile at k0 into `buffer`.
    template <bool ASYNC>
    __device__ __forceinline__ void run(T *buffer, int k0, int k) const
    {
#pragma unroll
        for (int g = 0; g < PER_ROW / Q; ++g) {
            const int kk = k0 + kq + g * Q * L::PIECE;  // the piece's first element along K
#pragma unroll
            for (int p = 0; p < ROWS / RPP; ++p) {
                T *to = buffer + dst + L::at(p * RPP, g * Q * L::PIECE);  // compile-time offset
                const T *from = src + p * pass + k0 + g * Q * L::PIECE;
                const bool row_in = p * RPP < rows;
                if (ASYNC) {  // the launcher checked: the piece is wholly inside or outside
                    const bool inside = row_in && kk < k;
                    __pipeline_memcpy_async(to, inside ? from : matrix, 16, inside ? 0 : 16);
                } else {
                    using Bits = typename L::Bits;
                    Bits *t = reinterpret_cast<Bits *>(to);
                    const Bits *f = reinterpret_cast<const Bits *>(from);
#pragma unroll
                    for (int e = 0; e < L::PIECE; ++e) t[e] = row_in && kk + e < k ? f[e] : Bits(0);
                }
            }
        }
    }
};

// Two floats rounded to a pair of bfloat16s, as the 32 bits of a uint4's component.
__device__ __forceinline__ unsigned pack_bf16(float x, float y)
{
    __nv_bfloat162 pair = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<unsigned *>(&pair);
}

// C = epilogue(A B^T) for the tile of this block, B's rows from `rows` (Rows or Interleaved;
// C is m x rows.n either way). smem: SMEM_BYTES<T, BM, BN, BK, STAGES> of dynamic shared
// memory, 128-byte aligned. stride_am: elements between rows of A.
template <class T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS,
          bool ASYNC, class Source, class Epilogue>
__device__ __forceinline__ void gemm_rows(unsigned char *smem, const T *__restrict__ a,
                                          const Source &rows, __nv_bfloat16 *__restrict__ c,
                                          int m, int k, int stride_am, int group_m,
                                          const Epilogue &epilogue)
{
    using LA = KTile<T, BM, BK>;
    using LB = KTile<T, BN, BK>;
    using Acc = typename LA::Acc;
    using Acc4 = typename LA::Acc4;
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // a warp's piece of the tile
    constexpr int FM = WM / 16, FN = WN / 16;            // its fragments
    constexpr int SLICES = BK / 16;                      // 16-deep slices of a K tile
    // Fragments of the next slice loaded before this slice's products need a second register
    // set (32 registers at 64 x 64 in 16 bits): affordable where a thread may use 255; within
    // 128 (8 warps, 2 blocks per SM) they are loaded after the products instead.
    constexpr bool PREFETCH = 65536 / (THREADS * MIN_BLOCKS) >= 255;
    static_assert(WM % 16 == 0 && WN % 16 == 0, "a warp's piece is whole fragments");
    static_assert(SLICES % 2 == 0, "slice 0 of every tile is in register set 0");
    static_assert(SMEM_BYTES<T, BM, BN, BK, STAGES> >= THREADS / 32 * 16 * 16 * 4,
                  "the epilogue's scratch tiles fit in the pipeline's buffers");
    constexpr bool PAIRED = Source::PAIRED;
    constexpr int CN = PAIRED ? BN / 2 : BN;  // columns of C per tile
    static_assert(!PAIRED || WN % 32 == 0, "a warp's fragments come in whole pairs");
    const int n = rows.n;

    T *as = reinterpret_cast<T *>(smem);  // [STAGES][LA::ELEMS]
    T *bs = as + STAGES * LA::ELEMS;      // [STAGES][LB::ELEMS]

    const int tiles_m = (m + BM - 1) / BM, tiles_n = (n + CN - 1) / CN;
    const int per_group = group_m * tiles_n, first_m = blockIdx.x / per_group * group_m;
    const int group_rows = min(tiles_m - first_m, group_m);  // the last group may be short
    const int row0 = (first_m + blockIdx.x % per_group % group_rows) * BM;
    const int col0 = blockIdx.x % per_group / group_rows * CN;  // C's first column
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wr = warp / WARPS_N * WM, wc = warp % WARPS_N * WN;

    const TileCopy<T, BM, BK, THREADS> copy_a(a, row0, m, stride_am);
    const TileCopy<T, BN, BK, THREADS, Source::PAIRED ? 32 : 1> copy_b(rows, col0);
    auto issue = [&](int stage, int k0) {
        copy_a.template run<ASYNC>(as + stage * LA::ELEMS, k0, k);
        copy_b.template run<ASYNC>(bs + stage * LB::ELEMS, k0, k);
    };

    wmma::fragment<wmma::accumulator, 16, 16, 16, Acc> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], Acc(0));

    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2][FM];
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb[2][FN];
    auto load = [&](int set, int stage, int kk) {  // the fragments of slice kk of a buffer
        const T *sa = as + stage * LA::ELEMS, *sb = bs + stage * LB::ELEMS;
#pragma unroll
        for (int i = 0; i < FM; ++i)
            load_fragment(fa[set][i], sa + LA::at(wr + i * 16, kk), LA::LDM);
#pragma unroll
        for (int j = 0; j < FN; ++j)
            load_fragment(fb[set][j], sb + LB::at(wc + j * 16, kk), LB::LDM);
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

    if constexpr (PAIRED) {  // fragment 2 j becomes epilogue(fragment 2 j, fragment 2 j + 1)
#pragma unroll
        for (int i = 0; i < FM; ++i)
#pragma unroll
            for (int j = 0; j < FN; j += 2)
#pragma unroll
                for (int e = 0; e < acc[i][j].num_elements; ++e)
                    acc[i][j].x[e] = epilogue(acc[i][j].x[e], acc[i][j + 1].x[e]);
    }
    // An element of C from its accumulator (after the pair's functor where B is Interleaved).
    auto finish = [&](Acc v, int row, int col) -> float {
        if constexpr (PAIRED)
            return v;
        else
            return epilogue(v, row, col);
    };

    Acc *scratch = reinterpret_cast<Acc *>(smem) + warp * 16 * 16;
    // 16-byte stores: every row of C starts on a 16-byte boundary, and 8 columns from a
    // multiple of 8 end inside C or at its right edge.
    const bool wide = n % 8 == 0 && reinterpret_cast<size_t>(c) % 16 == 0;
    const int r = lane / 2, h = lane % 2 * 8;  // this lane's row of a fragment, columns h .. h + 7
#pragma unroll
    for (int i = 0; i < FM; ++i) {
#pragma unroll
        for (int j = 0; j < FN; j += PAIRED ? 2 : 1) {
            // Interleaved: fragment j = 2 p holds the tile's columns wc / 2 + 16 p onwards.
            const int frow = row0 + wr + i * 16;
            const int fcol = PAIRED ? col0 + wc / 2 + j / 2 * 16 : col0 + wc + j * 16;
            if (frow >= m || fcol >= n) continue;  // a fragment past C (the whole warp skips it)
            wmma::store_matrix_sync(scratch, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();  // the lanes read what other lanes stored
            const Acc4 lo = *reinterpret_cast<const Acc4 *>(scratch + r * 16 + h);
            const Acc4 hi = *reinterpret_cast<const Acc4 *>(scratch + r * 16 + h + 4);
            const Acc v[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
            const int row = frow + r, col = fcol + h;
            if (row < m) {
                __nv_bfloat16 *out = c + (long long)row * n + fcol;  // the fragment's row
                if (wide) {  // n % 8 == 0: col < n puts all 8 inside
                    if (col < n) {
                        float f[8];
#pragma unroll
                        for (int q = 0; q < 8; ++q) f[q] = finish(v[q], row, col + q);
                        // 8 values, each rounded once; indexed as uint4s (nvcc 13 split
                        // `*(uint4 *)(out + h)` into four 4-byte stores).
                        reinterpret_cast<uint4 *>(out)[lane % 2] =
                            make_uint4(pack_bf16(f[0], f[1]), pack_bf16(f[2], f[3]),
                                       pack_bf16(f[4], f[5]), pack_bf16(f[6], f[7]));
                    }
                } else {
#pragma unroll
                    for (int q = 0; q < 8; ++q)
                        if (col + q < n)
                            out[h + q] = __float2bfloat16_rn(finish(v[q], row, col + q));
                }
            }
            __syncwarp();  // read before the next fragment overwrites the scratch tile
        }
    }
}

// C = epilogue(A B^T) with B one matrix, n x k, rows stride_bn elements apart.
template <class T, int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, int MIN_BLOCKS,
          bool ASYNC, class Epilogue>
__device__ __forceinline__ void gemm(unsigned char *smem, const T *__restrict__ a,
                                     const T *__restrict__ b, __nv_bfloat16 *__restrict__ c,
                                     int m, int n, int k, int stride_am, int stride_bn,
                                     int group_m, const Epilogue &epilogue)
{
    gemm_rows<T, BM, BN, BK, WARPS_M, WARPS_N, STAGES, MIN_BLOCKS, ASYNC>(
        smem, a, Rows<T>{b, n, stride_bn}, c, m, k, stride_am, group_m, epilogue);
}

}  // namespace linear_wmma
