# impl: cuda
# exercise: rope_qk
# status: fail
# reason: input q was modified by the launch
# (An in-place kernel, as inference engines write RoPE inside their QKV buffer, made
# out-of-place by copying its result out afterwards: the outputs are right, but q and k were
# rotated where they lie. Inputs are read-only here; the grader compares their bits before
# and after every launch.)

# %% nbgrader={"grade_id": "rope_qk_cu", "solution": true}
ROPE_QK_CU = r"""
#include <cuda_bf16.h>

__device__ void rotate_heads(__nv_bfloat16 *x, __nv_bfloat16 *out, int n_heads, int half_dim,
                             int stride_xh, const float *c, const float *s)
{
    for (int i = threadIdx.x; i < n_heads * half_dim; i += blockDim.x) {
        const int h = i / half_dim, j = i % half_dim;
        __nv_bfloat16 *row = x + (long long)h * stride_xh;
        __nv_bfloat16 *o = out + (long long)h * 2 * half_dim;
        const float x1 = __bfloat162float(row[j]), x2 = __bfloat162float(row[half_dim + j]);
        row[j] = __float2bfloat16_rn(x1 * c[j] - x2 * s[j]);  // in place
        row[half_dim + j] = __float2bfloat16_rn(x2 * c[j] + x1 * s[j]);
        o[j] = row[j];  // then copied out
        o[half_dim + j] = row[half_dim + j];
    }
}

extern "C" __global__ void rope_qk_kernel(__nv_bfloat16 *q, __nv_bfloat16 *k, const float *cos,
                                          const float *sin, __nv_bfloat16 *q_out,
                                          __nv_bfloat16 *k_out, int n_heads, int n_kv_heads,
                                          int half_dim, int stride_qt, int stride_qh,
                                          int stride_kt, int stride_kh, int aligned)
{
    const long long token = blockIdx.x;
    const float *c = cos + token * half_dim, *s = sin + token * half_dim;
    rotate_heads(q + token * stride_qt, q_out + token * n_heads * 2 * half_dim, n_heads,
                 half_dim, stride_qh, c, s);
    rotate_heads(k + token * stride_kt, k_out + token * n_kv_heads * 2 * half_dim, n_kv_heads,
                 half_dim, stride_kh, c, s);
}
"""

# %% nbgrader={"grade_id": "rope_qk_cuda", "solution": true}
rope_qk_kernel_cu = SourceModule(ROPE_QK_CU, no_extern_c=True).get_function("rope_qk_kernel")


def rope_qk_cuda(q, k, cos, sin, q_out, k_out):
    tokens, heads, head_dim = q.shape
    rope_qk_kernel_cu(np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(cos.data_ptr()),
                      np.uintp(sin.data_ptr()), np.uintp(q_out.data_ptr()),
                      np.uintp(k_out.data_ptr()), np.int32(heads), np.int32(k.shape[1]),
                      np.int32(head_dim // 2), *(np.int32(st) for st in (*q.stride()[:2],
                                                                         *k.stride()[:2])),
                      np.int32(0), block=(128, 1, 1), grid=(tokens, 1))
