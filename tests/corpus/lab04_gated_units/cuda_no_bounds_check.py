# impl: cuda
# exercise: swiglu
# status: fail
# reason: out-of-bounds write
# reason: [n_rows=1, h=1, bfloat16]

# %% nbgrader={"grade_id": "swiglu_cu", "solution": true}
SWIGLU_CU = r"""
#include <cuda_bf16.h>

__device__ __forceinline__ float silu(float g) { return g / (1.0f + __expf(-g)); }

extern "C" __global__ void swiglu_kernel(const __nv_bfloat16 *gate, const __nv_bfloat16 *up,
                                         __nv_bfloat16 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // The reads are guarded, the store is not: the last block writes past the end of out.
    float v = i < n ? silu(__bfloat162float(gate[i])) * __bfloat162float(up[i]) : 0.0f;
    out[i] = __float2bfloat16_rn(v);
}
"""

# %% nbgrader={"grade_id": "swiglu_cuda", "solution": true}
swiglu_kernel_cu = SourceModule(SWIGLU_CU, no_extern_c=True).get_function("swiglu_kernel")


def swiglu_cuda(gate, up, out):
    n = out.numel()
    swiglu_kernel_cu(np.uintp(gate.data_ptr()), np.uintp(up.data_ptr()), np.uintp(out.data_ptr()),
                     np.int32(n), block=(256, 1, 1), grid=((n + 255) // 256, 1))
