// Reference CUDA kernels of lab03's five activations: the perf bar (hidden from students).
// Byte ledger (every op): read x once, write out once: 2 * n * sizeof(T) (lab.toml's bytes).
//
// Each thread moves VEC 16-byte chunks (uint4 loads and stores: the widest a thread can issue),
// i.e. VEC * PACK elements with PACK = 4 floats or 8 halves / bfloat16s, all loads issued
// before any compute so that VEC chunks are in flight; then the first (n % PACK) threads of the
// grid finish the scalar tail. Every op is computed in float and rounded once to T, to nearest
// even (torch's rounding). NaN propagates as in torch: selects whose comparison is False for
// NaN, never fmaxf / fminf (which return the other operand). The sigmoid's exp argument is
// never positive (no overflow) and its divisor lies in [1, 2] (so __fdividef is exact enough).
// On a GPU of sm_80 or later, 16-bit relu and clip skip the float round trip: they work on
// pairs with __hmax2_nan / __hmin2_nan (see "16-bit pairs" below); the CPU backend runs the
// float form.
//
// VEC comes from the launcher (elementwise_cuda.py prepends #define VEC). Kernels:
// <op>_kernel_<dtype>, op in relu / leaky_relu / sigmoid / silu / clip, dtype in f32 / f16 /
// bf16 (written out one by one: the CPU backend finds kernels by reading the source).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#ifndef VEC
#define VEC 1
#endif
#ifndef STREAM
#define STREAM 0  // 1: streaming loads and stores (__ldcs / __stcs), evicted first from the L2
#endif

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// ---------------------------------------------------------------- the ops, in float

__device__ __forceinline__ float stable_sigmoid(float v)
{
    float e = __expf(-fabsf(v));           // in (0, 1]: underflows for large |v|, never overflows
    float r = __fdividef(1.0f, 1.0f + e);  // sigmoid(|v|)
    return v >= 0.0f ? r : e * r;          // sigmoid(-|v|) = e / (1 + e); NaN: e * r is NaN
}

struct Relu {
    __device__ __forceinline__ float operator()(float v) const { return v < 0.0f ? 0.0f : v; }
};

struct LeakyRelu {
    float alpha;
    __device__ __forceinline__ float operator()(float v) const
    {
        return v < 0.0f ? alpha * v : v;
    }
};

struct Sigmoid {
    __device__ __forceinline__ float operator()(float v) const { return stable_sigmoid(v); }
};

struct Silu {
    // silu(-inf) = -inf * 0 = NaN, as torch.
    __device__ __forceinline__ float operator()(float v) const { return v * stable_sigmoid(v); }
};

// Two selects, one after the other, each False for NaN (NaN falls through both). The nested
// select v < lo ? lo : (v > hi ? hi : v) compiles to a branch per element (nvcc 13, sm_90: the
// bfloat16 kernel had 10 BSSY/BSYNC regions in 147 SASS instructions, float32 6 in 93); these
// compile to FSETP + FSEL pairs, no branch (float32: 70 instructions, its 2 BSSY regions the
// load and store guards that every op has).
struct Clip {
    float lo, hi;
    __device__ __forceinline__ float operator()(float v) const
    {
        const float t = v < lo ? lo : v;
        return t > hi ? hi : t;
    }
};

// ---------------------------------------------------------------- the pattern

// op applied to the PACK elements of one 16-byte chunk; the element views are indexed by
// constants once unrolled, so nothing goes through memory.
template <class T, class Op>
__device__ __forceinline__ uint4 map_chunk(uint4 a, Op op)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    uint4 c;
    const T *as = reinterpret_cast<const T *>(&a);
    T *cs = reinterpret_cast<T *>(&c);
#pragma unroll
    for (int k = 0; k < PACK; ++k) cs[k] = from_float<T>(op(to_float(as[k])));
    return c;
}

template <class T, class Op>
__device__ __forceinline__ void apply(const T *__restrict__ x, T *__restrict__ out, long long n,
                                      Op op)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    const long long n_chunks = n / PACK;
    const uint4 *x16 = reinterpret_cast<const uint4 *>(x);
    uint4 *o16 = reinterpret_cast<uint4 *>(out);
    const long long first = (long long)blockIdx.x * blockDim.x * VEC + threadIdx.x;
    uint4 a[VEC];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {  // every load first: VEC chunks in flight per thread
        long long i = first + (long long)k * blockDim.x;  // coalesced: neighbours in a warp
        a[k] = i < n_chunks ? (STREAM ? __ldcs(x16 + i) : __ldg(x16 + i)) : make_uint4(0u, 0u, 0u, 0u);
    }
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        long long i = first + (long long)k * blockDim.x;
        if (i < n_chunks) {  // the last block runs past the end
            const uint4 c = map_chunk<T>(a[k], op);
            if (STREAM)
                __stcs(o16 + i, c);
            else
                o16[i] = c;
        }
    }
    const long long tail = n_chunks * PACK + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) {  // n % PACK leftovers, scalar, for the grid's first threads only
        out[tail] = from_float<T>(op(to_float(x[tail])));
    }
}

// ---------------------------------------------------------------- 16-bit pairs (sm_80+)

// __hmax2_nan / __hmin2_nan compare two pairs of halves or bfloat16s in one instruction (SASS
// HMNMX2.NAN) and let NaN through, as torch does; nothing is widened and nothing rounded (the
// result is one of the inputs). Measured on an H200 (one run, as a lab solution with the
// two-select Clip, against this file's float form with the nested select): clip float16 and
// bfloat16 1.01x (from 4256 and 4247 GB/s, 97% of the roof), relu 1.00x (noise). Each
// specializes map_chunk for one 16-bit op; apply picks it up unchanged. The CPU backend has
// neither intrinsic and does not define __CUDA_ARCH__: it keeps the generic map_chunk, in float.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ __half2 pair(__half v) { return __halves2half2(v, v); }
__device__ __forceinline__ __nv_bfloat162 pair(__nv_bfloat16 v)
{
    return __halves2bfloat162(v, v);
}

// min(max(x, lo), hi) on the four pairs of a chunk. lo and hi come rounded to T: x is a T and
// rounding is monotone, so clamping to the rounded bounds gives the float clamp, rounded.
template <class T2>
__device__ __forceinline__ uint4 clamp_pairs(uint4 a, T2 lo, T2 hi)
{
    T2 *p = reinterpret_cast<T2 *>(&a);
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = __hmin2_nan(__hmax2_nan(p[k], lo), hi);
    return a;
}

// max(x, lo) on the four pairs of a chunk (relu: lo = 0).
template <class T2>
__device__ __forceinline__ uint4 max_pairs(uint4 a, T2 lo)
{
    T2 *p = reinterpret_cast<T2 *>(&a);
#pragma unroll
    for (int k = 0; k < 4; ++k) p[k] = __hmax2_nan(p[k], lo);
    return a;
}

template <> __device__ __forceinline__ uint4 map_chunk<__half, Relu>(uint4 a, Relu)
{
    return max_pairs(a, pair(from_float<__half>(0.0f)));
}
template <> __device__ __forceinline__ uint4 map_chunk<__nv_bfloat16, Relu>(uint4 a, Relu)
{
    return max_pairs(a, pair(from_float<__nv_bfloat16>(0.0f)));
}
template <> __device__ __forceinline__ uint4 map_chunk<__half, Clip>(uint4 a, Clip op)
{
    return clamp_pairs(a, pair(from_float<__half>(op.lo)), pair(from_float<__half>(op.hi)));
}
template <>
__device__ __forceinline__ uint4 map_chunk<__nv_bfloat16, Clip>(uint4 a, Clip op)
{
    return clamp_pairs(a, pair(from_float<__nv_bfloat16>(op.lo)),
                       pair(from_float<__nv_bfloat16>(op.hi)));
}
#endif

// ---------------------------------------------------------------- relu

extern "C" __global__ void relu_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           long long n)
{
    apply(x, out, n, Relu{});
}

extern "C" __global__ void relu_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, long long n)
{
    apply(x, out, n, Relu{});
}

extern "C" __global__ void relu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, long long n)
{
    apply(x, out, n, Relu{});
}

// ---------------------------------------------------------------- leaky_relu

extern "C" __global__ void leaky_relu_kernel_f32(const float *__restrict__ x,
                                                 float *__restrict__ out, long long n,
                                                 float alpha)
{
    apply(x, out, n, LeakyRelu{alpha});
}

extern "C" __global__ void leaky_relu_kernel_f16(const __half *__restrict__ x,
                                                 __half *__restrict__ out, long long n,
                                                 float alpha)
{
    apply(x, out, n, LeakyRelu{alpha});
}

extern "C" __global__ void leaky_relu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                                  __nv_bfloat16 *__restrict__ out, long long n,
                                                  float alpha)
{
    apply(x, out, n, LeakyRelu{alpha});
}

// ---------------------------------------------------------------- sigmoid

extern "C" __global__ void sigmoid_kernel_f32(const float *__restrict__ x,
                                              float *__restrict__ out, long long n)
{
    apply(x, out, n, Sigmoid{});
}

extern "C" __global__ void sigmoid_kernel_f16(const __half *__restrict__ x,
                                              __half *__restrict__ out, long long n)
{
    apply(x, out, n, Sigmoid{});
}

extern "C" __global__ void sigmoid_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                               __nv_bfloat16 *__restrict__ out, long long n)
{
    apply(x, out, n, Sigmoid{});
}

// ---------------------------------------------------------------- silu

extern "C" __global__ void silu_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           long long n)
{
    apply(x, out, n, Silu{});
}

extern "C" __global__ void silu_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, long long n)
{
    apply(x, out, n, Silu{});
}

extern "C" __global__ void silu_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, long long n)
{
    apply(x, out, n, Silu{});
}

// ---------------------------------------------------------------- clip

extern "C" __global__ void clip_kernel_f32(const float *__restrict__ x, float *__restrict__ out,
                                           long long n, float lo, float hi)
{
    apply(x, out, n, Clip{lo, hi});
}

extern "C" __global__ void clip_kernel_f16(const __half *__restrict__ x,
                                           __half *__restrict__ out, long long n, float lo,
                                           float hi)
{
    apply(x, out, n, Clip{lo, hi});
}

extern "C" __global__ void clip_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                            __nv_bfloat16 *__restrict__ out, long long n,
                                            float lo, float hi)
{
    apply(x, out, n, Clip{lo, hi});
}
