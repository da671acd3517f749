// Reference CUDA flash-decoding for lab16's `flash_decode`, bfloat16, CUDA cores only.
//
// Split pass: one block of WARPS warps per (split, KV head, sequence), grid (splits, hkv, b).
// A key's row is D / 8 pieces of 16 bytes: LANES = D / 8 lanes read one key together, a warp
// 32 / LANES consecutive keys at once (512 contiguous bytes at D = 128). Each lane group takes
// UNROLL keys per step, loading every k and v piece of the step before using any (2 UNROLL
// 16-byte loads in flight per lane); it sums its G scores per key across its lanes with
// shuffles and folds the step's keys into its running max, sum and 8 columns of p . v per query
// head with one rescale. After the loop the lane groups of a warp merge by shuffles, the warps
// through shared memory, each rescaled to the common max, and the block writes the split's
// float32 partials. Combine pass: flash_decode_combine.cu, one block per query head, a thread per
// column. STAGED (a variant for the sweep): the block copies each step's K and V rows into
// shared memory by cp.async one step ahead, and the lanes read their pieces from there. The
// tensor-core design (flash_decode_cuda.py's DESIGN) is flash_decode_wmma.cu.
//
// Traffic: k and v once; q once per split (b hq d splits elements, from L2 after the first);
// the partials, b hq splits (D + 2) floats, written and read once.
#include <cuda_bf16.h>
#include <cuda_pipeline.h>

#ifndef WARPS
#define WARPS 4   // warps per split-pass block (flash_decode_cuda.py passes -DWARPS=)
#endif
#ifndef UNROLL
#define UNROLL 2  // keys per lane group per step (flash_decode_cuda.py passes -DUNROLL=)
#endif
#ifndef STAGED
#define STAGED 0  // 1: K/V steps staged through shared memory (flash_decode_cuda.py's STAGED)
#endif
#define THREADS (WARPS * 32)

// Eight bfloat16s (16 bytes, one load; p 16-byte aligned) as floats.
__device__ __forceinline__ void load8(const __nv_bfloat16 *p, float *f)
{
    const uint4 raw = *reinterpret_cast<const uint4 *>(p);
    const __nv_bfloat162 *pairs = reinterpret_cast<const __nv_bfloat162 *>(&raw);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const float2 two = __bfloat1622float2(pairs[i]);
        f[2 * i] = two.x;
        f[2 * i + 1] = two.y;
    }
}

// STAGED: this thread's cp.async copies of keys c0 .. c0 + STEP - 1 of a KV head (k_head, v_head:
// its first row) into one stage's K and V tiles (STEP x D each), zeros past stop. A step's
// pieces land while the block works on the step before: a block keeps a whole step of K and V
// in flight (2 STEP D bytes: 16 KiB at D = 128, 8 warps, UNROLL 2), not in its registers.
template <int D, int STEP>
__device__ __forceinline__ void issue_step(__nv_bfloat16 *tile_k, __nv_bfloat16 *tile_v,
                                           const __nv_bfloat16 *__restrict__ k_head,
                                           const __nv_bfloat16 *__restrict__ v_head, int c0,
                                           int stop)
{
    for (int p = threadIdx.x; p < STEP * D / 8; p += THREADS) {
        const int r = p / (D / 8), c = p % (D / 8) * 8;
        const bool inside = c0 + r < stop;
        const long long from = (long long)(inside ? c0 + r : 0) * D + c;  // read only inside
        __pipeline_memcpy_async(tile_k + r * D + c, k_head + from, 16, inside ? 0 : 16);
        __pipeline_memcpy_async(tile_v + r * D + c, v_head + from, 16, inside ? 0 : 16);
    }
}

template <int D, int G>
__device__ __forceinline__ void flash_decode_split(const __nv_bfloat16 *__restrict__ q,
                                             const __nv_bfloat16 *__restrict__ k,
                                             const __nv_bfloat16 *__restrict__ v,
                                             float *__restrict__ part_o,
                                             float *__restrict__ part_m,
                                             float *__restrict__ part_l, int s,
                                             int keys_per_split, float scale_log2)
{
    constexpr int LANES = D / 8;         // lanes per key
    constexpr int SLOTS = THREADS / LANES;  // lane groups in the block
    constexpr int STEP = SLOTS * UNROLL;    // keys per step of the block
    const int kv_head = blockIdx.z * gridDim.y + blockIdx.y;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int slot = threadIdx.x / LANES;
    const int col = lane % LANES * 8;

    float qf[G][8];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        load8(q + (long long)(kv_head * G + g) * D + col, qf[g]);
#pragma unroll
        for (int e = 0; e < 8; ++e) qf[g][e] *= scale_log2;
    }
    const __nv_bfloat16 *k_rows = k + (long long)kv_head * s * D + col;
    const __nv_bfloat16 *v_rows = v + (long long)kv_head * s * D + col;
    float m[G], l[G], acc[G][8];
#pragma unroll
    for (int g = 0; g < G; ++g) {
        m[g] = -INFINITY;
        l[g] = 0.0f;
#pragma unroll
        for (int e = 0; e < 8; ++e) acc[g][e] = 0.0f;
    }

    const int start = blockIdx.x * keys_per_split;
    const int stop = min(start + keys_per_split, s);
#if STAGED
    extern __shared__ __align__(16) __nv_bfloat16 kv_steps[];  // [2 stages][k, v][STEP][D]
    const __nv_bfloat16 *k_head = k_rows - col, *v_head = v_rows - col;
    issue_step<D, STEP>(kv_steps, kv_steps + STEP * D, k_head, v_head, start, stop);
    __pipeline_commit();
#endif
    for (int c0 = start; c0 < stop; c0 += STEP) {  // block-uniform: the shuffles need the warp
        float kf[UNROLL][8], vf[UNROLL][8];
        bool valid[UNROLL];
#if STAGED
        const int cur = (c0 - start) / STEP % 2;
        __nv_bfloat16 *next = kv_steps + (1 - cur) * 2 * STEP * D;
        if (c0 + STEP < stop)
            issue_step<D, STEP>(next, next + STEP * D, k_head, v_head, c0 + STEP, stop);
        __pipeline_commit();       // (empty on the last step: the count below stays right)
        __pipeline_wait_prior(1);  // this step's pieces have landed (this thread's copies)...
        __syncthreads();           // ... every thread's
        const __nv_bfloat16 *step_k = kv_steps + cur * 2 * STEP * D + col;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {  // zeros past stop: the copies filled them
            valid[u] = c0 + u * SLOTS + slot < stop;
            load8(step_k + (u * SLOTS + slot) * D, kf[u]);
            load8(step_k + STEP * D + (u * SLOTS + slot) * D, vf[u]);
        }
#else
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            const int c = c0 + u * SLOTS + slot;  // the warp's keys: consecutive rows
            valid[u] = c < stop;
            if (valid[u]) {
                load8(k_rows + (long long)c * D, kf[u]);
                load8(v_rows + (long long)c * D, vf[u]);
            } else {
#pragma unroll
                for (int e = 0; e < 8; ++e) kf[u][e] = vf[u][e] = 0.0f;
            }
        }
#endif
#pragma unroll
        for (int g = 0; g < G; ++g) {
            float x[UNROLL];
            float step_max = -INFINITY;
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                float dot = 0.0f;
#pragma unroll
                for (int e = 0; e < 8; ++e) dot += qf[g][e] * kf[u][e];
#pragma unroll
                for (int off = LANES / 2; off > 0; off /= 2)
                    dot += __shfl_xor_sync(0xffffffffu, dot, off);
                x[u] = valid[u] ? dot : -INFINITY;
                step_max = fmaxf(step_max, x[u]);
            }
            const float m_new = fmaxf(m[g], step_max);
            if (m_new != -INFINITY) {  // -inf: no key of this group yet
                const float alpha = exp2f(m[g] - m_new);
                float p[UNROLL], p_sum = 0.0f;
#pragma unroll
                for (int u = 0; u < UNROLL; ++u) {
                    p[u] = exp2f(x[u] - m_new);
                    p_sum += p[u];
                }
                l[g] = l[g] * alpha + p_sum;
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    float a = acc[g][e] * alpha;
#pragma unroll
                    for (int u = 0; u < UNROLL; ++u) a += p[u] * vf[u][e];
                    acc[g][e] = a;
                }
                m[g] = m_new;
            }
        }
#if STAGED
        __syncthreads();  // this stage is read before the step after next overwrites it
#endif
    }

    // The warp's lane groups merged by shuffles (offsets LANES .. 16), each rescaled to the
    // larger max; two groups that saw no key stay empty.
#pragma unroll
    for (int off = LANES; off < 32; off *= 2) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const float m_o = __shfl_xor_sync(0xffffffffu, m[g], off);
            const float l_o = __shfl_xor_sync(0xffffffffu, l[g], off);
            const float m_new = fmaxf(m[g], m_o);
            const float a = m_new == -INFINITY ? 0.0f : exp2f(m[g] - m_new);
            const float b = m_new == -INFINITY ? 0.0f : exp2f(m_o - m_new);
            l[g] = l[g] * a + l_o * b;
#pragma unroll
            for (int e = 0; e < 8; ++e)
                acc[g][e] = acc[g][e] * a + __shfl_xor_sync(0xffffffffu, acc[g][e], off) * b;
            m[g] = m_new;
        }
    }

    // The warps through shared memory (WARPS G D floats: 32 KiB at most), then the block's
    // threads combine them per (head, column) and write the split's partials.
    __shared__ __align__(16) float sm_o[WARPS][G][D];
    __shared__ float sm_m[WARPS][G], sm_l[WARPS][G];
    if (lane < LANES) {
#pragma unroll
        for (int g = 0; g < G; ++g) {
            *reinterpret_cast<float4 *>(&sm_o[warp][g][col]) =
                make_float4(acc[g][0], acc[g][1], acc[g][2], acc[g][3]);
            *reinterpret_cast<float4 *>(&sm_o[warp][g][col + 4]) =
                make_float4(acc[g][4], acc[g][5], acc[g][6], acc[g][7]);
            if (lane == 0) {
                sm_m[warp][g] = m[g];
                sm_l[warp][g] = l[g];
            }
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < G * D; i += THREADS) {
        const int g = i / D, c = i % D;
        float mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) mx = fmaxf(mx, sm_m[w][g]);
        float sum_l = 0.0f, sum_o = 0.0f;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            const float wt = exp2f(sm_m[w][g] - mx);  // mx is finite: the split has a key
            sum_l += wt * sm_l[w][g];
            sum_o += wt * sm_o[w][g][c];
        }
        const long long row = (long long)(kv_head * G + g) * gridDim.x + blockIdx.x;
        part_o[row * D + c] = sum_o;
        if (c == 0) {
            part_m[row] = mx;
            part_l[row] = sum_l;
        }
    }
}

#define FLASH_DECODE_KERNEL(D, G)                                                             \
    extern "C" __global__ void __launch_bounds__(THREADS) flash_decode_kernel_d##D##_g##G(    \
        const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,               \
        float *part_o, float *part_m, float *part_l, int s, int keys_per_split,               \
        float scale_log2)                                                                     \
    {                                                                                         \
        flash_decode_split<D, G>(q, k, v, part_o, part_m, part_l, s, keys_per_split,          \
                                 scale_log2);                                                 \
    }
FLASH_DECODE_KERNEL(64, 1)
FLASH_DECODE_KERNEL(64, 2)
FLASH_DECODE_KERNEL(64, 4)
FLASH_DECODE_KERNEL(64, 8)
FLASH_DECODE_KERNEL(128, 1)
FLASH_DECODE_KERNEL(128, 2)
FLASH_DECODE_KERNEL(128, 4)
FLASH_DECODE_KERNEL(128, 8)
