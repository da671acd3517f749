# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# reason: [tokens=3, heads=2, head_dim=8, half_dim=4, bfloat16]
# (A flat grid, one thread per pair of all tokens' heads: row = token * n_heads + head. The
# table row is taken as row % n_heads, the head, where the token, row / n_heads, belongs:
# every token's heads get the angles of positions 0, 1, ... Right on the first case (one
# token, one head); the second has more tokens than heads, so the rows it reads exist and
# are wrong.)

# %% nbgrader={"grade_id": "rope_cu", "solution": true}
ROPE_CU = r"""
#include <cuda_bf16.h>

extern "C" __global__ void rope_kernel(const __nv_bfloat16 *x, const float *cos, const float *sin,
                                       __nv_bfloat16 *out, int n_heads, int half_dim,
                                       int stride_xt, int stride_xh, int n_rows)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long row = i / half_dim;  // token * n_heads + head
    const int j = i % half_dim;
    if (row >= n_rows) return;  // the last block runs past the last pair
    const long long token = row / n_heads, head = row % n_heads;
    const long long pos = row % n_heads;  // should be the token, row / n_heads
    const __nv_bfloat16 *x_row = x + token * stride_xt + head * stride_xh;
    const float x1 = __bfloat162float(x_row[j]), x2 = __bfloat162float(x_row[half_dim + j]);
    const float c = cos[pos * half_dim + j], s = sin[pos * half_dim + j];
    out[row * 2 * half_dim + j] = __float2bfloat16_rn(x1 * c - x2 * s);
    out[row * 2 * half_dim + half_dim + j] = __float2bfloat16_rn(x2 * c + x1 * s);
}
"""

# %% nbgrader={"grade_id": "rope_cuda", "solution": true}
rope_kernel_cu = SourceModule(ROPE_CU, no_extern_c=True).get_function("rope_kernel")


def rope_cuda(x, cos, sin, out):
    tokens, heads, head_dim = x.shape
    pairs = tokens * heads * (head_dim // 2)
    rope_kernel_cu(np.uintp(x.data_ptr()), np.uintp(cos.data_ptr()), np.uintp(sin.data_ptr()),
                   np.uintp(out.data_ptr()), np.int32(heads), np.int32(head_dim // 2),
                   np.int32(x.stride(0)), np.int32(x.stride(1)), np.int32(tokens * heads),
                   block=(256, 1, 1), grid=((pairs + 255) // 256, 1))
