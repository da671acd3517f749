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
#define TAIL 0  // 1: the merge and fused combine's shorter tail (flash_decode_cuda.py's TAIL)
#endif
#ifndef VEC
#define VEC 1  // 4: the fused combine takes 4 adjacent elements a thread, in 16-byte loads (-DVEC=)
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
// chunk by chunk). With VEC 4 a thread takes 4 adjacent elements of one row, each split's four
// partial outputs one 16-byte load (the group's 512 elements at D 128, group 4: one round trip
// of 128 threads); else PER elements a thread, strided by THREADS.
template <int D>
__device__ __forceinline__ void combine_head(const float *__restrict__ part_o,
                                             const float *__restrict__ part_m,
                                             const float *__restrict__ part_l,
                                             bf16 *__restrict__ o, int kv_head, int group,
                                             int splits)
{
    const long long first = (long long)kv_head * group * splits;  // the row of (g 0, split 0)
#if VEC == 4
    for (int i = 4 * threadIdx.x; i < group * D; i += 4 * THREADS) {
        const int g = i / D;  // the 4 elements' row: D is a multiple of 4
        const float *pm = part_m + first + g * splits, *pl = part_l + first + g * splits;
        const float4 *po = reinterpret_cast<const float4 *>(part_o + (first + (long long)g *
                                                            splits) * D + i % D);
        float m = -INFINITY, sum_l = 0.0f;
        float4 sum_o = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int t0 = 0; t0 < splits; t0 += CHUNK) {
            float xm[CHUNK], xl[CHUNK];
            float4 x[CHUNK];
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) {
                const bool in = t0 + u < splits;
                xm[u] = in ? __ldcg(pm + t0 + u) : -INFINITY;
                xl[u] = in ? __ldcg(pl + t0 + u) : 0.0f;
                x[u] = in ? __ldcg(po + (long long)(t0 + u) * (D / 4))
                          : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
            float m_new = m;  // finite from the first chunk on: split 0 has keys
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) m_new = fmaxf(m_new, xm[u]);
            const float alpha = exp2f(m - m_new);  // 0 at the first chunk
            sum_l *= alpha;
            sum_o.x *= alpha;
            sum_o.y *= alpha;
            sum_o.z *= alpha;
            sum_o.w *= alpha;
#pragma unroll
            for (int u = 0; u < CHUNK; ++u) {
                const float w = exp2f(xm[u] - m_new);  // 0 past the last split
                sum_l += w * xl[u];
                sum_o.x += w * x[u].x;
                sum_o.y += w * x[u].y;
                sum_o.z += w * x[u].z;
                sum_o.w += w * x[u].w;
            }
            m = m_new;
        }
        const float inv = 1.0f / sum_l;
        __nv_bfloat162 *out = reinterpret_cast<__nv_bfloat162 *>(o + (long long)kv_head *
                                                                 group * D + i);
        out[0] = __floats2bfloat162_rn(sum_o.x * inv, sum_o.y * inv);
        out[1] = __floats2bfloat162_rn(sum_o.z * inv, sum_o.w * inv);
    }
#else
    // PER elements a thread at once (i, i + THREADS, ...): their loads in one round trip.
    constexpr int PER = TAIL ? 2 : 1;
    for (int i0 = threadIdx.x; i0 < group * D; i0 += PER * THREADS) {
        float m[PER], sum_l[PER], sum_o[PER];
#pragma unroll
        for (int h = 0; h < PER; ++h) {
            m[h] = -INFINITY;
            sum_l[h] = sum_o[h] = 0.0f;
        }
        for (int t0 = 0; t0 < splits; t0 += CHUNK) {
            float xm[PER][CHUNK], xl[PER][CHUNK], x[PER][CHUNK];
#pragma unroll
            for (int h = 0; h < PER; ++h) {
                const int i = min(i0 + h * THREADS, group * D - 1), g = i / D, col = i % D;
                const float *pm = part_m + first + g * splits, *pl = part_l + first + g * splits;
                const float *po = part_o + (first + (long long)g * splits) * D + col;
#pragma unroll
                for (int u = 0; u < CHUNK; ++u) {
                    const bool in = t0 + u < splits;
                    xm[h][u] = in ? __ldcg(pm + t0 + u) : -INFINITY;
                    xl[h][u] = in ? __ldcg(pl + t0 + u) : 0.0f;
                    x[h][u] = in ? __ldcg(po + (long long)(t0 + u) * D) : 0.0f;
                }
            }
#pragma unroll
            for (int h = 0; h < PER; ++h) {
                float m_new = m[h];  // finite from the first chunk on: split 0 has keys
#pragma unroll
                for (int u = 0; u < CHUNK; ++u) m_new = fmaxf(m_new, xm[h][u]);
                const float alpha = exp2f(m[h] - m_new);  // 0 at the first chunk
                sum_l[h] *= alpha;
                sum_o[h] *= alpha;
#pragma unroll
                for (int u = 0; u < CHUNK; ++u) {
                    const float w = exp2f(xm[h][u] - m_new);  // 0 past the last split
                    sum_l[h] += w * xl[h][u];
                    sum_o[h] += w * x[h][u];
                }
                m[h] = m_new;
            }
        }
#pragma unroll
        for (int h = 0; h < PER; ++h)
            if (i0 + h * THREADS < group * D)
                o[(long long)kv_head * group * D + i0 + h * THREADS] =
                    __float2bfloat16_rn(sum_o[h] / sum_l[h]);
    }
#endif
}
