# impl: cuda
# exercise: relu
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]

# %% nbgrader={"grade_id": "relu_cu", "solution": true}
# The tail element's read is guarded, its store is not: every thread of the grid past the
# n % PACK leftovers writes past the end of out (n = 1: one block of 256 threads, 255 of them).
RELU_CU = r"""
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
__device__ void relu(const T *x, T *out, int n)
{
    auto op = [](float v) { return v < 0.0f ? 0.0f : v; };
    constexpr int PACK = sizeof(uint4) / sizeof(T);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 c;
        const T *xs = reinterpret_cast<const T *>(&a);
        T *ys = reinterpret_cast<T *>(&c);
        for (int k = 0; k < PACK; ++k) ys[k] = from_float<T>(op(to_float(xs[k])));
        reinterpret_cast<uint4 *>(out)[i] = c;
    }
    int tail = n_chunks * PACK + i;
    out[tail] = tail < n ? from_float<T>(op(to_float(x[tail]))) : from_float<T>(0.0f);
}

extern "C" __global__ void relu_kernel_f32(const float *x, float *out, int n) { relu(x, out, n); }
extern "C" __global__ void relu_kernel_f16(const __half *x, __half *out, int n) { relu(x, out, n); }
extern "C" __global__ void relu_kernel_bf16(const __nv_bfloat16 *x, __nv_bfloat16 *out, int n)
{
    relu(x, out, n);
}
"""

# %% nbgrader={"grade_id": "relu_cuda", "solution": true}
relu_module_cu = SourceModule(RELU_CU, no_extern_c=True)
relu_kernels_cu = {
    torch.float32: relu_module_cu.get_function("relu_kernel_f32"),
    torch.float16: relu_module_cu.get_function("relu_kernel_f16"),
    torch.bfloat16: relu_module_cu.get_function("relu_kernel_bf16"),
}


def relu_cuda(x, out):
    n = out.numel()
    blocks = max(triton.cdiv(n // (16 // out.element_size()), 256), 1)
    relu_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
                               block=(256, 1, 1), grid=(blocks, 1))
