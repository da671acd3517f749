# impl: cuda
# exercise: silu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% nbgrader={"grade_id": "silu_cu", "solution": true}
# The lab's silu with double literals and exp(): `1.0 / (1.0 + exp(-a))` promotes the
# exponential, the addition and the division to double precision. The result is correct (more
# accurate, if anything), so no CPU check can honestly refuse it; on the GPU the double-
# precision units (on an H200 half as many as float32's; exp and division are each tens of
# double instructions) make it compute-bound: slower than the reference, above all in 16-bit
# dtypes, where the memory time to hide it behind is half as long.
SILU_CU = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>

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

template <class T>
__device__ void silu(const T *x, T *out, int n)
{
    auto op = [](float v) {
        double a = fabs(v);
        double r = 1.0 / (1.0 + exp(-a));      // double: 1.0 and exp(double)
        double s = v >= 0.0 ? r : (1.0 - r);
        return (float)(v * s);
    };
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) out[tail] = from_float<T>(op(to_float(x[tail])));
}

extern "C" __global__ void silu_kernel_f32(const float *x, float *out, int n) { silu(x, out, n); }
extern "C" __global__ void silu_kernel_f16(const __half *x, __half *out, int n) { silu(x, out, n); }
extern "C" __global__ void silu_kernel_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *out, int n)
{
    silu(x, out, n);
}
"""

# %% nbgrader={"grade_id": "silu_cuda", "solution": true}
silu_module_cu = SourceModule(SILU_CU, no_extern_c=True)
silu_kernels_cu = {
    torch.float32: silu_module_cu.get_function("silu_kernel_f32"),
    torch.float16: silu_module_cu.get_function("silu_kernel_f16"),
    torch.bfloat16: silu_module_cu.get_function("silu_kernel_bf16"),
}


def silu_cuda(x, out):
    n = out.numel()
    blocks = max(triton.cdiv(n // (16 // out.element_size()), 256), 1)
    silu_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                               block=(256, 1, 1), grid=(blocks, 1))
