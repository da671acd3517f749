# impl: cuda
# exercise: dequant_int8
# status: fail
# reason: out-of-bounds write
# reason: [rows=1, cols=1, bfloat16]
# (One column per thread and no bounds check on the store: the one-weight matrix's block of
# 128 threads writes 127 elements past the end of out.)

# %% nbgrader={"grade_id": "dequant_int8_cu", "solution": true}
DEQUANT_INT8_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void dequant_int8_kernel(const signed char *__restrict__ w,
                                               const __nv_bfloat16 *__restrict__ scale,
                                               __nv_bfloat16 *__restrict__ out, int n_cols,
                                               int stride_wr, int aligned)
{
    const size_t row = blockIdx.x;
    const int c = blockIdx.y * blockDim.x + threadIdx.x;
    const float v = c < n_cols ? w[row * stride_wr + c] : 0.0f;  // the load is guarded...
    out[row * n_cols + c] = __float2bfloat16_rn(v * __bfloat162float(scale[row]));  // not this
}
"""

# %% nbgrader={"grade_id": "dequant_int8_cuda", "solution": true}
dequant_int8_kernel_cu = SourceModule(DEQUANT_INT8_CU, no_extern_c=True).get_function(
    "dequant_int8_kernel")


def dequant_int8_cuda(w, scale, out):
    rows, cols = out.shape
    dequant_int8_kernel_cu(np.uintp(w.data_ptr()), np.uintp(scale.data_ptr()),
                           np.uintp(out.data_ptr()), np.int32(cols), np.int32(w.stride(0)),
                           np.int32(0), block=(128, 1, 1), grid=(rows, triton.cdiv(cols, 128)))
