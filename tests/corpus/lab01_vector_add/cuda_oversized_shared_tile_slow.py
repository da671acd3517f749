# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: each 64-thread block stages its inputs in a __shared__ tile sized for
#  "any block" (2 x 6144 floats, 48 KiB). Shared memory per SM then holds four such blocks:
#  eight warps of the 64 an SM can run, too few loads in flight to keep DRAM busy. The
#  profile's low-occupancy control.)

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

#define TILE 6144  // "big enough for any block size"

template <class T>
__device__ void vector_add(const T *x, const T *y, T *out, int n)
{
    __shared__ float tile[2][TILE];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        tile[0][threadIdx.x] = to_float(x[i]);
        tile[1][threadIdx.x] = to_float(y[i]);
    }
    __syncthreads();
    if (i < n) store(&out[i], tile[0][threadIdx.x] + tile[1][threadIdx.x]);
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
                                     np.uintp(out.data_ptr()), np.int32(n), block=(64, 1, 1),
                                     grid=((n + 63) // 64, 1))
