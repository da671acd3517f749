# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# (bfloat16 arithmetic, as torch does it when the tables are cast to the model's dtype: each
# product rounded to bfloat16, then their difference rounded again. x1 * c - x2 * s cancels
# often; the products' rounding errors (up to 2^-8 of each product) are then large against
# the result: about 8% of the outputs fall beyond one bfloat16 ulp of the exact value.)

# %% nbgrader={"grade_id": "rope_cu", "solution": true}
ROPE_CU = r"""
#include <cuda_bf16.h>

__device__ __forceinline__ float bf16(float v) { return __bfloat162float(__float2bfloat16_rn(v)); }

extern "C" __global__ void rope_kernel(const __nv_bfloat16 *x, const float *cos, const float *sin,
                                       __nv_bfloat16 *out, int n_heads, int half_dim,
                                       int stride_xt, int stride_xh, int aligned)
{
    const long long token = blockIdx.x;
    const float *c = cos + token * half_dim;
    const float *s = sin + token * half_dim;
    for (int i = threadIdx.x; i < n_heads * half_dim; i += blockDim.x) {
        const int h = i / half_dim, j = i % half_dim;
        const __nv_bfloat16 *row = x + token * stride_xt + (long long)h * stride_xh;
        __nv_bfloat16 *o = out + (token * n_heads + h) * 2 * half_dim;
        const float x1 = __bfloat162float(row[j]), x2 = __bfloat162float(row[half_dim + j]);
        const float cj = bf16(c[j]), sj = bf16(s[j]);  // the tables in bfloat16
        o[j] = __float2bfloat16_rn(bf16(x1 * cj) - bf16(x2 * sj));  // each product rounded
        o[half_dim + j] = __float2bfloat16_rn(bf16(x2 * cj) + bf16(x1 * sj));
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
