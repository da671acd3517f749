# impl: cuda
# exercise: sigmoid
# status: fail
# reason: [n=1999, x scale=100.0, float16]
# reason: elements differ

# %% nbgrader={"grade_id": "sigmoid_cu", "solution": true}
# "Compute in the storage type": exp(-x) is computed and kept in T, with hexp for __half.
# float32 is right; in float16 exp(-x) overflows to inf for x < -11.09 (65504 = e^11.09), so
# sigmoid(x) comes out 0 where it is 1.5e-5 .. 1e-6, beyond float16's atol (1e-6). About 1% of
# inputs scaled by 100 fall there (~20 of 1999). bfloat16 has float32's range: it would only
# lose precision.
SIGMOID_CU = r"""
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

// exp in the storage type.
__device__ __forceinline__ float exp_t(float v) { return __expf(v); }
__device__ __forceinline__ __half exp_t(__half v) { return hexp(v); }
__device__ __forceinline__ __nv_bfloat16 exp_t(__nv_bfloat16 v)
{
    return __float2bfloat16_rn(__expf(__bfloat162float(v)));
}

template <class T>
__device__ void sigmoid(const T *x, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        T e = exp_t(from_float<T>(-to_float(x[i])));  // exp(-x), in T
        out[i] = from_float<T>(1.0f / (1.0f + to_float(e)));
    }
}

extern "C" __global__ void sigmoid_kernel_f32(const float *x, float *out, int n)
{
    sigmoid(x, out, n);
}
extern "C" __global__ void sigmoid_kernel_f16(const __half *x, __half *out, int n)
{
    sigmoid(x, out, n);
}
extern "C" __global__ void sigmoid_kernel_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *out, int n)
{
    sigmoid(x, out, n);
}
"""

# %% nbgrader={"grade_id": "sigmoid_cuda", "solution": true}
sigmoid_module_cu = SourceModule(SIGMOID_CU, no_extern_c=True)
sigmoid_kernels_cu = {
    torch.float32: sigmoid_module_cu.get_function("sigmoid_kernel_f32"),
    torch.float16: sigmoid_module_cu.get_function("sigmoid_kernel_f16"),
    torch.bfloat16: sigmoid_module_cu.get_function("sigmoid_kernel_bf16"),
}


def sigmoid_cuda(x, out):
    n = out.numel()
    sigmoid_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                                  block=(256, 1, 1), grid=(triton.cdiv(n, 256), 1))
