# impl: cuda
# status: memory_error
# reason-any: out-of-bounds read in kernel vector_add_kernel | Invalid __global__ read
# (every output right, in every dtype: only a memory checker can tell that each thread also
#  reads one block past its element. The CPU backend's checked mode names the read; on a GPU
#  compute-sanitizer memcheck does, with torch's caching allocator off and padding after each
#  allocation, so the read cannot land inside another live tensor)

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ void store(float *p, float v) { *p = v; }
__device__ __forceinline__ void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

template <class T>
__device__ void vector_add(const T *x, const T *y, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        // Reads one whole block past the end of x: the value is never used, so every output is
        // right and only a memory checker can tell.
        float past_the_end = to_float(x[i + blockDim.x]);
        store(&out[i], to_float(x[i]) + to_float(y[i]) + (past_the_end == 3.0e38f ? 1.0f : 0.0f));
    }
}

extern "C" __global__ void vector_add_kernel_f32(const float *x, const float *y, float *out, int n)
{
    vector_add(x, y, out, n);
}
extern "C" __global__ void vector_add_kernel_f16(const __half *x, const __half *y, __half *out,
                                                 int n)
{
    vector_add(x, y, out, n);
}
extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *x, const __nv_bfloat16 *y,
                                                  __nv_bfloat16 *out, int n)
{
    vector_add(x, y, out, n);
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
vector_add_kernels_cu = {
    torch.float32: vector_add_module_cu.get_function("vector_add_kernel_f32"),
    torch.float16: vector_add_module_cu.get_function("vector_add_kernel_f16"),
    torch.bfloat16: vector_add_module_cu.get_function("vector_add_kernel_bf16"),
}


def vector_add_cuda(x, y, out):
    n = out.numel()
    vector_add_kernels_cu[out.dtype](np.uintp(x.data_ptr()), np.uintp(y.data_ptr()),
                                     np.uintp(out.data_ptr()), np.int32(n), block=(256, 1, 1),
                                     grid=((n + 255) // 256, 1))
