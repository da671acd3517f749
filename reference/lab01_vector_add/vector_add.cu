// Reference CUDA vector add: the perf bar for lab01 (hidden from students).
// Byte ledger: read x and y once, write out once: 3 * n * sizeof(T).
//
// Each thread moves VEC 16-byte chunks (uint4 loads and stores: the widest a thread can issue),
// i.e. VEC * PACK elements with PACK = 4 floats or 8 halves / bfloat16s; then the first
// (n % PACK) threads of the grid finish the scalar tail. The sums are done in float and
// rounded once to T, to nearest even (torch's rounding).
//
// Kernels: vector_add_kernel_<dtype>_v<VEC>, dtype in f32 / f16 / bf16, VEC in 1 / 2 / 4
// (written out one by one: the CPU backend finds kernels by reading the source, not macros).

#include <cuda_bf16.h>
#include <cuda_fp16.h>

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

// Element-wise a + b of two 16-byte chunks holding PACK elements of T each. The element views
// of the registers are indexed by constants once unrolled, so nothing goes through memory.
template <class T>
__device__ __forceinline__ uint4 add_chunk(uint4 a, uint4 b)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    uint4 c;
    const T *as = reinterpret_cast<const T *>(&a);
    const T *bs = reinterpret_cast<const T *>(&b);
    T *cs = reinterpret_cast<T *>(&c);
#pragma unroll
    for (int k = 0; k < PACK; ++k) cs[k] = from_float<T>(to_float(as[k]) + to_float(bs[k]));
    return c;
}

template <class T, int VEC>
__device__ __forceinline__ void add_body(const T *__restrict__ x, const T *__restrict__ y,
                                         T *__restrict__ out, long long n)
{
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    const long long n_chunks = n / PACK;
    const uint4 *x16 = reinterpret_cast<const uint4 *>(x);
    const uint4 *y16 = reinterpret_cast<const uint4 *>(y);
    uint4 *o16 = reinterpret_cast<uint4 *>(out);
    const long long first = (long long)blockIdx.x * blockDim.x * VEC + threadIdx.x;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        long long i = first + (long long)k * blockDim.x;  // coalesced: neighbours in a warp
        if (i < n_chunks) {  // the last block runs past the last whole chunk
            o16[i] = add_chunk<T>(__ldg(x16 + i), __ldg(y16 + i));
        }
    }
    const long long tail = n_chunks * PACK + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) {  // n % PACK leftovers, scalar, for the grid's first threads only
        out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]));
    }
}

// ---------------------------------------------------------------- float32

extern "C" __global__ void vector_add_kernel_f32_v1(const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ out, long long n)
{
    add_body<float, 1>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f32_v2(const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ out, long long n)
{
    add_body<float, 2>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f32_v4(const float *__restrict__ x,
                                                    const float *__restrict__ y,
                                                    float *__restrict__ out, long long n)
{
    add_body<float, 4>(x, y, out, n);
}

// ---------------------------------------------------------------- float16

extern "C" __global__ void vector_add_kernel_f16_v1(const __half *__restrict__ x,
                                                    const __half *__restrict__ y,
                                                    __half *__restrict__ out, long long n)
{
    add_body<__half, 1>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f16_v2(const __half *__restrict__ x,
                                                    const __half *__restrict__ y,
                                                    __half *__restrict__ out, long long n)
{
    add_body<__half, 2>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f16_v4(const __half *__restrict__ x,
                                                    const __half *__restrict__ y,
                                                    __half *__restrict__ out, long long n)
{
    add_body<__half, 4>(x, y, out, n);
}

// ---------------------------------------------------------------- bfloat16

extern "C" __global__ void vector_add_kernel_bf16_v1(const __nv_bfloat16 *__restrict__ x,
                                                     const __nv_bfloat16 *__restrict__ y,
                                                     __nv_bfloat16 *__restrict__ out, long long n)
{
    add_body<__nv_bfloat16, 1>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_bf16_v2(const __nv_bfloat16 *__restrict__ x,
                                                     const __nv_bfloat16 *__restrict__ y,
                                                     __nv_bfloat16 *__restrict__ out, long long n)
{
    add_body<__nv_bfloat16, 2>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_bf16_v4(const __nv_bfloat16 *__restrict__ x,
                                                     const __nv_bfloat16 *__restrict__ y,
                                                     __nv_bfloat16 *__restrict__ out, long long n)
{
    add_body<__nv_bfloat16, 4>(x, y, out, n);
}
