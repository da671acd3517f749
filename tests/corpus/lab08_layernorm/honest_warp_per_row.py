# impl: cuda
# exercise: layernorm
# status: pass
# (Honest work, another shape of kernel: one warp per row and four rows per block of 128
# threads, warp shuffles only (no shared memory, no __syncthreads()), one float per access,
# and the row read three times (mean, variance, output; the second and third reads hit the
# cache). Slower than a block holding its row in registers, and right on every shape.)

# %% nbgrader={"grade_id": "layernorm_cu", "solution": true}
LAYERNORM_CU = r"""
#include <cuda_bf16.h>

#define ROWS_PER_BLOCK 4

__device__ float to_float(float v) { return v; }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float *p, float v) { *p = v; }
__device__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <class T>
__device__ void layernorm(const T *x, const T *w, const T *b, T *out, int n_rows, int n_cols,
                          int stride_xr, float eps)
{
    const int lane = threadIdx.x % 32;
    const long long r = (long long)blockIdx.x * ROWS_PER_BLOCK + threadIdx.x / 32;
    if (r >= n_rows) return;  // the whole warp leaves together: no shuffle misses a lane
    const T *row = x + r * stride_xr;
    T *o = out + r * n_cols;
    float s = 0.0f;
    for (int c = lane; c < n_cols; c += 32) s += to_float(row[c]);
    const float mean = warp_sum(s) / n_cols;
    float q = 0.0f;
    for (int c = lane; c < n_cols; c += 32) {
        const float d = to_float(row[c]) - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(warp_sum(q) / n_cols + eps);
    for (int c = lane; c < n_cols; c += 32)
        store(o + c, (to_float(row[c]) - mean) * rstd * to_float(w[c]) + to_float(b[c]));
}

extern "C" __global__ void layernorm_kernel_f32(const float *x, const float *w, const float *b,
                                                float *out, int n_rows, int n_cols,
                                                int stride_xr, float eps)
{
    layernorm(x, w, b, out, n_rows, n_cols, stride_xr, eps);
}

extern "C" __global__ void layernorm_kernel_bf16(const __nv_bfloat16 *x,
                                                 const __nv_bfloat16 *w,
                                                 const __nv_bfloat16 *b, __nv_bfloat16 *out,
                                                 int n_rows, int n_cols, int stride_xr,
                                                 float eps)
{
    layernorm(x, w, b, out, n_rows, n_cols, stride_xr, eps);
}
"""

# %% nbgrader={"grade_id": "layernorm_cuda", "solution": true}
layernorm_module_cu = SourceModule(LAYERNORM_CU, no_extern_c=True)
layernorm_kernels_cu = {
    torch.float32: layernorm_module_cu.get_function("layernorm_kernel_f32"),
    torch.bfloat16: layernorm_module_cu.get_function("layernorm_kernel_bf16"),
}


def layernorm_cuda(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    rows_per_block = 4  # ROWS_PER_BLOCK
    layernorm_kernels_cu[x.dtype](np.uintp(x.data_ptr()), np.uintp(weight.data_ptr()),
                                  np.uintp(bias.data_ptr()), np.uintp(out.data_ptr()),
                                  np.int32(n_rows), np.int32(n_cols), np.int32(x.stride(0)),
                                  np.float32(eps), block=(32 * rows_per_block, 1, 1),
                                  grid=(triton.cdiv(n_rows, rows_per_block), 1))
