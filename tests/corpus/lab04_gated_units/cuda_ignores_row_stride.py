# impl: cuda
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# reason: [n_rows=127, two_h=256, h=128, bfloat16]
# (Row r's gate taken at r * h, the output's row stride, instead of r * stride_xr (2h): row 0
# is right, every other row reads the wrong columns. The first case has one row: it passes.)

# %% nbgrader={"grade_id": "swiglu_packed_cu", "solution": true}
SWIGLU_PACKED_CU = r"""
#include <cuda_bf16.h>

__device__ __forceinline__ float silu(float g) { return g / (1.0f + __expf(-g)); }

extern "C" __global__ void swiglu_packed_kernel(const __nv_bfloat16 *__restrict__ x,
                                                __nv_bfloat16 *__restrict__ out, int h,
                                                int stride_xr, int aligned)
{
    const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * h;  // should be * stride_xr
    const __nv_bfloat16 *up = gate + h;
    __nv_bfloat16 *o = out + (size_t)blockIdx.x * h;
    const int c = (blockIdx.y * blockDim.x + threadIdx.x) * 8;
    for (int k = c; k < min(c + 8, h); ++k) {
        o[k] = __float2bfloat16_rn(silu(__bfloat162float(gate[k])) * __bfloat162float(up[k]));
    }
}
"""

# %% nbgrader={"grade_id": "swiglu_packed_cuda", "solution": true}
swiglu_packed_kernel_cu = SourceModule(SWIGLU_PACKED_CU, no_extern_c=True).get_function(
    "swiglu_packed_kernel")


def swiglu_packed_cuda(x, out):
    rows, h = out.shape
    swiglu_packed_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(h),
                            np.int32(x.stride(0)), np.int32(0), block=(128, 1, 1),
                            grid=(rows, triton.cdiv(triton.cdiv(h, 8), 128)))
