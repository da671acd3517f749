# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# (The two tables swapped: x1 * s - x2 * c and x2 * s + x1 * c. The kernel is otherwise the
# notebook's first hint, one pair per thread; the tables are drawn independently, so every
# case shows it.)

# %% nbgrader={"grade_id": "rope_cu", "solution": true}
ROPE_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void rope_kernel(const __nv_bfloat16 *x, const float *cos, const float *sin,
                                       __nv_bfloat16 *out, int n_heads, int half_dim,
                                       int stride_xt, int stride_xh, int aligned)
{
    const long long token = blockIdx.x;
    const float *c = sin + token * half_dim;  // swapped: c reads the sin table
    const float *s = cos + token * half_dim;
    for (int i = threadIdx.x; i < n_heads * half_dim; i += blockDim.x) {
        const int h = i / half_dim, j = i % half_dim;
        const __nv_bfloat16 *row = x + token * stride_xt + (long long)h * stride_xh;
        __nv_bfloat16 *o = out + (token * n_heads + h) * 2 * half_dim;
        const float x1 = __bfloat162float(row[j]), x2 = __bfloat162float(row[half_dim + j]);
        o[j] = __float2bfloat16_rn(x1 * c[j] - x2 * s[j]);
        o[half_dim + j] = __float2bfloat16_rn(x2 * c[j] + x1 * s[j]);
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
