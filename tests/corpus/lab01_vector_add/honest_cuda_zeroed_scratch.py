# impl: cuda
# status: pass
# (honest work, the source with no_extern_c=True: a scratch buffer zeroed with torch.zeros
#  and an output zeroed with zero_() before a kernel that accumulates into it with atomicAdd,
#  float32 only, and a dtype guard for the rest: allocations and fills are recorded on the host
#  and replayed on the device)

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void vector_add_kernel_f32(const float *x, const float *y, float *out,
                                                 float *count, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        atomicAdd(&out[i], x[i]);
        atomicAdd(&out[i], y[i]);
    }
    if (threadIdx.x == 0) atomicAdd(count, 1.0f);
}
extern "C" __global__ void vector_add_kernel_f16(const __half *x, const __half *y, __half *out,
                                                 int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = __float2half_rn(__half2float(x[i]) + __half2float(y[i]));
}
extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *x,
                                                  const __nv_bfloat16 *y, __nv_bfloat16 *out,
                                                  int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = __float2bfloat16_rn(__bfloat162float(x[i]) + __bfloat162float(y[i]));
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
_module = SourceModule(VECTOR_ADD_CU, no_extern_c=True)


def vector_add_cuda(x, y, out):
    n = out.numel()
    blocks = (min(max(n, 1), 1 << 20) + 255) // 256
    if x.dtype == torch.float32:
        count = torch.zeros(1, dtype=torch.float32, device=x.device)
        out.zero_()
        _module.get_function("vector_add_kernel_f32")(
            np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
            np.uintp(count.data_ptr()), np.int32(n), block=(256, 1, 1), grid=(blocks, 1))
        return
    name = {torch.float16: "vector_add_kernel_f16", torch.bfloat16: "vector_add_kernel_bf16"}
    _module.get_function(name[x.dtype])(
        np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()), np.int32(n),
        block=(256, 1, 1), grid=(blocks, 1))
