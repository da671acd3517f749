# impl: cuda
# exercise: geglu_packed
# status: fail
# reason: elements differ
# (GELU's exact erf form instead of the tanh form the lab asks for: at most 4.7e-4 apart, but
# 3% of the value at gate = -2.5 and 11% at -3, far beyond bfloat16's rtol 8e-3. About 1% of
# standard-normal gates are below -2.3, so every case above a few hundred elements fails.)

# %% nbgrader={"grade_id": "geglu_packed_cu", "solution": true}
GEGLU_PACKED_CU = r"""
#include <cuda_bf16.h>

__device__ __forceinline__ float gelu(float g) { return 0.5f * g * (1.0f + erff(g * 0.70710678f)); }

extern "C" __global__ void geglu_packed_kernel(const __nv_bfloat16 *__restrict__ x,
                                               __nv_bfloat16 *__restrict__ out, int h,
                                               int stride_xr, int aligned)
{
    const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * stride_xr;
    const __nv_bfloat16 *up = gate + h;
    __nv_bfloat16 *o = out + (size_t)blockIdx.x * h;
    const int c = (blockIdx.y * blockDim.x + threadIdx.x) * 8;
    for (int k = c; k < min(c + 8, h); ++k) {
        o[k] = __float2bfloat16_rn(gelu(__bfloat162float(gate[k])) * __bfloat162float(up[k]));
    }
}
"""

# %% nbgrader={"grade_id": "geglu_packed_cuda", "solution": true}
geglu_packed_kernel_cu = SourceModule(GEGLU_PACKED_CU, no_extern_c=True).get_function(
    "geglu_packed_kernel")


def geglu_packed_cuda(x, out):
    rows, h = out.shape
    geglu_packed_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(h),
                           np.int32(x.stride(0)), np.int32(0), block=(128, 1, 1),
                           grid=(rows, triton.cdiv(triton.cdiv(h, 8), 128)))
