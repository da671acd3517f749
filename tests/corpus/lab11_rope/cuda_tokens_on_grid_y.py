# impl: cuda
# exercise: rope_qk
# device: gpu
# status: exception
# reason: invalid configuration argument: grid dimension y
# reason: [tokens=70001, heads=4, head_dim=16, kv_heads=1, half_dim=8, bfloat16]
# (Tokens on the grid's y, heads on x: right on every CPU shape and on the first GPU one,
# refused by CUDA at 70001 tokens; a grid's y and z stop at 65535, x at 2^31 - 1.)

# %% nbgrader={"grade_id": "rope_qk_cu", "solution": true}
ROPE_QK_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void rope_qk_kernel(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                          const float *cos, const float *sin,
                                          __nv_bfloat16 *q_out, __nv_bfloat16 *k_out,
                                          int n_heads, int n_kv_heads, int half_dim,
                                          int stride_qt, int stride_qh, int stride_kt,
                                          int stride_kh, int aligned)
{
    const long long token = blockIdx.y;  // the token on y
    const int h = blockIdx.x;            // one block per head of q or k
    const int j = threadIdx.x;           // one thread per pair
    if (j >= half_dim) return;
    const bool is_q = h < n_heads;
    const __nv_bfloat16 *row = is_q ? q + token * stride_qt + (long long)h * stride_qh
                                    : k + token * stride_kt + (long long)(h - n_heads) * stride_kh;
    __nv_bfloat16 *o = is_q ? q_out + (token * n_heads + h) * 2 * half_dim
                            : k_out + (token * n_kv_heads + h - n_heads) * 2 * half_dim;
    const float c = cos[token * half_dim + j], s = sin[token * half_dim + j];
    const float x1 = __bfloat162float(row[j]), x2 = __bfloat162float(row[half_dim + j]);
    o[j] = __float2bfloat16_rn(x1 * c - x2 * s);
    o[half_dim + j] = __float2bfloat16_rn(x2 * c + x1 * s);
}
"""

# %% nbgrader={"grade_id": "rope_qk_cuda", "solution": true}
rope_qk_kernel_cu = SourceModule(ROPE_QK_CU, no_extern_c=True).get_function("rope_qk_kernel")


def rope_qk_cuda(q, k, cos, sin, q_out, k_out):
    tokens, heads, head_dim = q.shape
    half_dim = head_dim // 2
    rope_qk_kernel_cu(np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(cos.data_ptr()),
                      np.uintp(sin.data_ptr()), np.uintp(q_out.data_ptr()),
                      np.uintp(k_out.data_ptr()), np.int32(heads), np.int32(k.shape[1]),
                      np.int32(half_dim), *(np.int32(st) for st in (*q.stride()[:2],
                                                                    *k.stride()[:2])),
                      np.int32(0), block=(max(32, triton.next_power_of_2(half_dim)), 1, 1),
                      grid=(heads + k.shape[1], tokens))
