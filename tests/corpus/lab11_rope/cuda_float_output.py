# impl: cuda
# exercise: rope
# status: fail
# reason: out-of-bounds write
# reason: [tokens=1, heads=1, head_dim=2, half_dim=1, bfloat16]
# (The results computed in float and never converted: the kernel declares out as float *, as
# the arithmetic is, and stores 4-byte floats into the bfloat16 output. Element i lands on
# bytes 4i..4i+3: the values are garbage and the second half of the writes runs past the
# output's end, into the guard after it, from the first case on.)

# %% nbgrader={"grade_id": "rope_cu", "solution": true}
ROPE_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void rope_kernel(const __nv_bfloat16 *x, const float *cos, const float *sin,
                                       float *out,  // the output is bfloat16
                                       int n_heads, int half_dim, int stride_xt, int stride_xh,
                                       int aligned)
{
    const long long token = blockIdx.x;
    const float *c = cos + token * half_dim;
    const float *s = sin + token * half_dim;
    for (int i = threadIdx.x; i < n_heads * half_dim; i += blockDim.x) {
        const int h = i / half_dim, j = i % half_dim;
        const __nv_bfloat16 *row = x + token * stride_xt + (long long)h * stride_xh;
        float *o = out + (token * n_heads + h) * 2 * half_dim;
        const float x1 = __bfloat162float(row[j]), x2 = __bfloat162float(row[half_dim + j]);
        o[j] = x1 * c[j] - x2 * s[j];
        o[half_dim + j] = x2 * c[j] + x1 * s[j];
    }
}
"""

# %% nbgrader={"grade_id": "rope_cuda", "solution": true}
rope_kernel_cu = SourceModule(ROPE_CU, no_extern_c=True).get_function("rope_kernel")


def rope_cuda(x, cos, sin, out):
    tokens, heads, head_dim = x.shape
    rope_kernel_cu(np.uintp(x.data_ptr()), np.uintp(cos.data_ptr()), np.uintp(sin.data_ptr()),
                   np.uintp(out.data_ptr()), np.int32(heads), np.int32(head_dim // 2),
                   np.int32(x.stride(0)), np.int32(x.stride(1)), np.int32(0),
                   block=(128, 1, 1), grid=(tokens, 1))
