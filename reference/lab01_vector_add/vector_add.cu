// Reference CUDA vector add: the perf bar for lab01 (hidden from students).
// Byte ledger: read x and y once, write out once: 3 * n * sizeof(float).
//
// Each thread moves VEC float4s (16-byte loads and stores: the widest a thread can issue),
// then the first (n % 4) threads of the grid finish the scalar tail.

template <int VEC>
__device__ __forceinline__ void add_body(const float *__restrict__ x, const float *__restrict__ y,
                                         float *__restrict__ out, long long n)
{
    const long long n4 = n / 4;
    const float4 *x4 = reinterpret_cast<const float4 *>(x);
    const float4 *y4 = reinterpret_cast<const float4 *>(y);
    float4 *o4 = reinterpret_cast<float4 *>(out);
    const long long first = (long long)blockIdx.x * blockDim.x * VEC + threadIdx.x;
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
        long long i = first + (long long)k * blockDim.x;  // coalesced: neighbours in a warp
        if (i < n4) {
            float4 a = __ldg(x4 + i), b = __ldg(y4 + i);
            o4[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
        }
    }
    const long long tail = n4 * 4 + (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n) out[tail] = x[tail] + y[tail];  // n % 4 leftovers, scalar
}

extern "C" __global__ void vector_add_kernel_v1(const float *__restrict__ x,
                                                const float *__restrict__ y,
                                                float *__restrict__ out, long long n)
{
    add_body<1>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_v2(const float *__restrict__ x,
                                                const float *__restrict__ y,
                                                float *__restrict__ out, long long n)
{
    add_body<2>(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_v4(const float *__restrict__ x,
                                                const float *__restrict__ y,
                                                float *__restrict__ out, long long n)
{
    add_body<4>(x, y, out, n);
}
