# impl: cuda
# exercise: dequant_int8
# device: gpu
# status: exception
# reason: invalid configuration argument: grid dimension y
# reason: [out_features=70001, in_features=24, bfloat16]
# (Rows on the grid's y, column blocks on x: right on every CPU shape, refused by CUDA at the
# gpu suite's 70001 rows; a grid's y and z stop at 65535, its x at 2^31 - 1.)

# %% nbgrader={"grade_id": "dequant_int8_cu", "solution": true}
DEQUANT_INT8_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void dequant_int8_kernel(const signed char *__restrict__ w,
                                               const __nv_bfloat16 *__restrict__ scale,
                                               __nv_bfloat16 *__restrict__ out, int n_cols,
                                               int stride_wr, int aligned)
{
    const size_t row = blockIdx.y;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < n_cols) {
        out[row * n_cols + c] = __float2bfloat16_rn(w[row * stride_wr + c] *
                                                    __bfloat162float(scale[row]));
    }
}
"""

# %% nbgrader={"grade_id": "dequant_int8_cuda", "solution": true}
dequant_int8_kernel_cu = SourceModule(DEQUANT_INT8_CU, no_extern_c=True).get_function(
    "dequant_int8_kernel")


def dequant_int8_cuda(w, scale, out):
    rows, cols = out.shape
    dequant_int8_kernel_cu(np.uintp(w.data_ptr()), np.uintp(scale.data_ptr()),
                           np.uintp(out.data_ptr()), np.int32(cols), np.int32(w.stride(0)),
                           np.int32(0), block=(128, 1, 1), grid=(triton.cdiv(cols, 128), rows))
