// What lab16's two CUDA flash-decoding split passes share (flash_decode_wmma.cu, a pipeline a
// warp; flash_decode_block.cu, one a block): their compile options, the count that finds a KV
// head's last block, and the fused combine that block runs. Not a kernel: flash_decode_cuda.py
// puts this text after fragments.cuh's and before the split pass's, one source.
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
#include <mma.h>
using namespace nvcuda;

#ifndef WARPS
#define WARPS 4   // warps per split-pass block (flash_decode_cuda.py passes -DWARPS=)
#endif
#ifndef BN
#define BN 32     // keys per K/V tile (-DBN=): a multiple of 16
#endif
#ifndef STAGES
#define STAGES 3  // K/V tiles per pipeline in shared memory, STAGES - 1 in flight (-DSTAGES=)
#endif
#ifndef FUSED
#define FUSED 0   // 1: the last block of a KV head combines its splits (-DFUSED=)
#endif
#ifndef CHUNK
#define CHUNK 16  // splits whose partials the fused combine loads at once (-DCHUNK=)
#endif
#ifndef TAIL
#define TAIL 0  // 1: flash_decode_wmma.cu's merge of the warps, the shorter tail (TAIL there)
#endif
#ifndef VEC
#define VEC 1  // adjacent elements a thread of the fused combine: 1, or 4 in 16-byte loads (-DVEC=)
#endif
#ifndef ACQ_REL
#define ACQ_REL 0  // 1: the count an acquire-release atomic, no fences (last_of_head)
#endif
#define THREADS (WARPS * 32)

using bf16 = __nv_bfloat16;

// The first key of split `split` of `splits` (stop: the first key past it): s in units of `unit`
// keys, dealt out evenly (no two splits' sizes more than a unit apart, none empty: the launcher
// plans at most as many splits as units).
__device__ __forceinline__ int split_start(int split, int splits, int s, int unit)
{
    const long long units = (s + unit - 1) / unit;
    return min((int)(split * units / splits) * unit, s);
}

// Whether this block is the last of its KV head to finish (FUSED, CLAIM): each block counts
// itself in `count` after its partials are visible (the fence), and the one that counts last
// (the count's old value splits - 1) goes on to combine the head's splits, then resets the
// count for the next call. Uniform across the block. With ACQ_REL (on a GPU) no fence: thread 0
// takes the count by an acquire-release atomic at GPU scope after a barrier, the release
// cumulative over the block's partials (ordered before it by the barrier), the acquire ordering
// the other blocks' before this block's reads (after the next barrier); else every thread
// fences before the count, and the last block again after it.
__device__ __forceinline__ bool last_of_head(unsigned *count, int splits)
{
    __shared__ bool last;
#if ACQ_REL && defined(__CUDA_ARCH__)
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned old;
        asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;"
                     : "=r"(old) : "l"(count) : "memory");
        last = old == (unsigned)splits - 1;
    }
    __syncthreads();
#else
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(count, 1u) == (unsigned)splits - 1;
    __syncthreads();
    if (last)
        __threadfence();
#endif
    return last;
}

// The fused combine, as flash_decode_combine.cu's, by the KV head's last block (last_of_head):
// o of the group's query heads from every split's partials, read through L2 (__ldcg: other SMs
// wrote them). It runs after the last split, so its L2 round trips are the call's tail: one per
// CHUNK splits, each split's max, sum and partial output loaded together (an online merge,
// chunk by chunk). A thread takes VEC adjacent elements of one row, each split's VEC partial
// outputs one load (16 bytes at VEC 4: the group's 512 elements at D 128, group 4, one round
// trip of 128 threads).
template <int D>
__device__ __forceinline__ void combine_head(const float *__restrict__ part_o,
                                             const float *__restrict__ part_m,
                                             const float *__restrict__ part_l,
                                             bf16 *__restrict__ o, int kv_head, int group,
                                             int splits)
{
    static_assert(VEC == 1 || VEC == 4, "1 or 4 elements a thread");
    const long long first = (long long)kv_head * group * splits;  // the row of (g 0, split 0)
    for (int i = VEC * threadIdx.x; i < group * D; i += VEC * THREADS) {
        const int g = i / D;  // the VEC elements' row: D is a multiple of VEC
        const float *pm = part_m + first + g * splits, *pl = part_l + first + g * splits;
        const float *po = part_o + (first + (long long)g * splits) * D + i % D;
        float m = -INFINITY, sum_l = 0.0f, sum_o[VEC];
#pragma unroll
        for (int e = 0; e < VEC; ++e) sum_o[e] = 0.0f;
        for (int t0 = 0; t0 < splits; t0 += CHUNK) {
            float xm[CHUNK], xl[CHUNK], x[CHUNK][VEC];
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) {
                const bool in = t0 + u < splits;
                xm[u] = in ? __ldcg(pm + t0 + u) : -INFINITY;
                xl[u] = in ? __ldcg(pl + t0 + u) : 0.0f;
                const float *from = po + (long long)(t0 + u) * D;
                if constexpr (VEC == 4) {
                    const float4 f = in ? __ldcg(reinterpret_cast<const float4 *>(from))
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    x[u][0] = f.x, x[u][1] = f.y, x[u][2] = f.z, x[u][3] = f.w;
                } else {
                    x[u][0] = in ? __ldcg(from) : 0.0f;
                }
            }
            float m_new = m;  // finite from the first chunk on: split 0 has keys
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) m_new = fmaxf(m_new, xm[u]);
            const float alpha = exp2f(m - m_new);  // 0 at the first chunk
            sum_l *= alpha;
#pragma unroll
            for (int e = 0; e < VEC; ++e) sum_o[e] *= alpha;
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) {
                const float w = exp2f(xm[u] - m_new);  // 0 past the last split
                sum_l += w * xl[u];
#pragma unroll
                for (int e = 0; e < VEC; ++e) sum_o[e] += w * x[u][e];
            }
            m = m_new;
        }
        const float inv = 1.0f / sum_l;
        bf16 *to = o + (long long)kv_head * group * D + i;
        if constexpr (VEC == 4) {  // two bfloat16 pairs
            reinterpret_cast<__nv_bfloat162 *>(to)[0] =
                __floats2bfloat162_rn(sum_o[0] * inv, sum_o[1] * inv);
            reinterpret_cast<__nv_bfloat162 *>(to)[1] =
                __floats2bfloat162_rn(sum_o[2] * inv, sum_o[3] * inv);
        } else {
            to[0] = __float2bfloat16_rn(sum_o[0] * inv);
        }
    }
}
