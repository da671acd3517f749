// What lab16's two WMMA references share (attention.cu, flash_decode_wmma.cu): the shared tiles'
// row padding, the cp.async copy of a 16-byte piece of K or V with its zero fill past the end,
// float <-> 16-bit conversions, exp2 as one instruction, and learn_maps: the element -> (row,
// column) map of an accumulator fragment learnt at run time, with the check whether p can pass
// from accumulators to matrix_a fragments in registers, and rows_in_quads: whether the map is
// mma.sync's, where a row's elements lie in one quad of lanes.
//
// Not a lab: attention_cuda.py and flash_decode_cuda.py put this file's text after
// reference/common/wmma_load.cuh's (load_fragment) and before their .cu, one source, so that a
// compile cache keyed by the text sees an edit here.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#define PAD_T 8   // 16-bit elements (16 bytes) added to each row of a shared K, V or P tile
#define PAD_F 4   // floats (16 bytes) added to each row of a shared float tile

// Piece p (16 bytes) of rows row0 .. of a head (s x D) by cp.async to at(r, c), the place of
// row r, column c of a shared tile, zero-filled past row s (a copy of 0 bytes that fills 16;
// its source is never read).
template <typename T, int D, class At>
__device__ __forceinline__ void issue_piece_at(At at, const T *__restrict__ head, int row0, int s,
                                               int p)
{
    const int r = p / (D / 8), c = p % (D / 8) * 8;
    const bool inside = row0 + r < s;
    __pipeline_memcpy_async(at(r, c), inside ? head + (long long)(row0 + r) * D + c : head, 16,
                            inside ? 0 : 16);
}

// The same into a tile of rows padded by PAD_T.
template <typename T, int D>
__device__ __forceinline__ void issue_piece(T (*tile)[D + PAD_T], const T *__restrict__ head,
                                            int row0, int s, int p)
{
    issue_piece_at<T, D>([tile](int r, int c) { return &tile[r][c]; }, head, row0, s, p);
}

// One float rounded to T, and back.
template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ __nv_bfloat16 from_float(float x)
{
    return __float2bfloat16(x);
}
template <> __device__ __forceinline__ __half from_float(float x) { return __float2half(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

// 2^x as one MUFU.EX2 on the GPU (ex2.approx.ftz: 2^-22 relative error, 0 for x = -inf or below
// -126). exp2f is the same instruction between FSETP.GEU x, -126 and two FMULs that keep a
// denormal result: 3 of every 4 instructions of an exponential, which the softmax rounds to
// 16 bits anyway. The CPU backend runs no PTX: exp2f there.
__device__ __forceinline__ float exp2_approx(float x)
{
#if defined(__CUDA_ARCH__)
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return exp2f(x);
#endif
}

// The maps, learnt by the whole warp. WMMA leaves a fragment's element -> (row, column) map
// unspecified, but it is one map for every 16 x 16 float accumulator fragment of one kernel
// (mma_sync and the loads and stores agree on it): at[e] = 16 row + column of element e, read
// from a 16 x 16 tile of element numbers (f_tile, ldf floats a row) loaded as an accumulator.
// Returns whether a row-major matrix_a fragment of T holds, lane by lane, the same elements
// (the same numbers, exact in T up to 256, through t_tile, ldt elements a row): then p goes
// from the accumulators to p . v's matrix_a fragments in registers. True for bfloat16 on an
// H100 and on the CPU backend, not for float16 on the CPU backend. Both tiles are free again
// when it returns.
template <typename T, int E>
__device__ __forceinline__ bool learn_maps(int (&at)[E], float *f_tile, unsigned ldf, T *t_tile,
                                           unsigned ldt)
{
    using Acc = nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float>;
    using FragA = nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, T,
                                         nvcuda::wmma::row_major>;
    static_assert(Acc::num_elements == E, "at[]: one entry per accumulator element");
    const int lane = threadIdx.x % 32;
    for (int i = lane; i < 16 * 16; i += 32) {
        f_tile[i / 16 * ldf + i % 16] = (float)i;
        t_tile[i / 16 * ldt + i % 16] = from_float<T>((float)i);
    }
    __syncwarp();
    {
        Acc map;
        nvcuda::wmma::load_matrix_sync(map, f_tile, ldf, nvcuda::wmma::mem_row_major);
#pragma unroll
        for (int e = 0; e < E; ++e) at[e] = (int)map.x[e];
    }
    bool same = false;
    if constexpr (FragA::num_elements == E) {
        FragA a;
        load_fragment(a, t_tile, ldt);
        same = true;
#pragma unroll
        for (int e = 0; e < E; ++e) same = same && (int)to_float(a.x[e]) == at[e];
    }
    const bool direct = __all_sync(0xffffffffu, same);
    __syncwarp();
    return direct;
}

// Whether the learnt map (at, as learn_maps returns it) is mma.sync's m16n8k16 accumulator
// layout, twice across: lane 4 g + t holds rows g (elements 0, 1, 4, 5) and g + 8 (2, 3, 6, 7).
// Then a row's 16 columns lie in one quad of lanes (4 each), and its max and sum take two
// shuffles (xor 1, 2) where the exchange tile takes shared-memory stores and loads. True on an
// H100 and an H200 (nvcc 13); on the CPU backend only where it emulates that layout
// (TCLAB_WMMA_MMA_LAYOUT, mma.h).
template <int E>
__device__ __forceinline__ bool rows_in_quads(const int (&at)[E])
{
    const int g = threadIdx.x % 32 / 4;
    bool same = E == 8;
#pragma unroll
    for (int e = 0; e < E; ++e) same = same && at[e] / 16 == g + 8 * (e / 2 % 2);
    return __all_sync(0xffffffffu, same);
}
