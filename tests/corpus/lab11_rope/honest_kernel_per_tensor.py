# impl: cuda
# exercise: rope_qk
# status: pass
# (Honest work: exercise 1's kernel, one pair per thread, launched twice — once for q, once
# for k — instead of one launch for both. Each table row is read twice (2.4% more bytes at 32
# and 8 heads of 128) and there are two launches; the results are the same.)

# %% nbgrader={"grade_id": "rope_qk_cu", "solution": true}
ROPE_QK_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void rope_qk_kernel(const __nv_bfloat16 *x, const float *cos,
                                          const float *sin, __nv_bfloat16 *out, int n_heads,
                                          int half_dim, int stride_xt, int stride_xh)
{
    const long long token = blockIdx.x;
    const float *c = cos + token * half_dim, *s = sin + token * half_dim;
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

# %% nbgrader={"grade_id": "rope_qk_cuda", "solution": true}
rope_qk_kernel_cu = SourceModule(ROPE_QK_CU, no_extern_c=True).get_function("rope_qk_kernel")


def rope_qk_cuda(q, k, cos, sin, q_out, k_out):
    tokens, _, head_dim = q.shape
    for x, out in ((q, q_out), (k, k_out)):  # one launch per tensor
        rope_qk_kernel_cu(np.uintp(x.data_ptr()), np.uintp(cos.data_ptr()),
                          np.uintp(sin.data_ptr()), np.uintp(out.data_ptr()),
                          np.int32(x.shape[1]), np.int32(head_dim // 2), np.int32(x.stride(0)),
                          np.int32(x.stride(1)), block=(128, 1, 1), grid=(tokens, 1))
