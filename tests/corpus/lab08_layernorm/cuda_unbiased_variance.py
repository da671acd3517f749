# impl: cuda
# exercise: layernorm
# status: fail
# reason: [n_rows=3, n_cols=7, float32]
# reason: elements differ
# (The variance divided by n_cols - 1, the unbiased estimator that torch.var and numpy's
# ddof=1 compute, where layer norm divides by n_cols (torch.var(unbiased=False)). rstd is
# sqrt((n - 1) / n) of the right one: 7% low at 7 columns, 0.01% at 5000. At one column it
# would divide 0 by 0.)

# %% nbgrader={"grade_id": "layernorm_cu", "solution": true}
LAYERNORM_CU = r"""
#include <cuda_bf16.h>

__device__ float to_float(float v) { return v; }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float *p, float v) { *p = v; }
__device__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

__device__ float block_sum(float v)
{
    __shared__ float per_warp[32];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) per_warp[warp] = v;
    __syncthreads();
    v = lane < blockDim.x / 32 ? per_warp[lane] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();
    return v;
}

template <class T>
__device__ void layernorm(const T *x, const T *w, const T *b, T *out, int n_cols, int stride_xr,
                          float eps)
{
    const T *row = x + (size_t)blockIdx.x * stride_xr;
    T *o = out + (size_t)blockIdx.x * n_cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) s += to_float(row[c]);
    const float mean = block_sum(s) / n_cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
        const float d = to_float(row[c]) - mean;
        q += d * d;
    }
    const float rstd = rsqrtf(block_sum(q) / (n_cols - 1) + eps);  // unbiased
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x)
        store(o + c, (to_float(row[c]) - mean) * rstd * to_float(w[c]) + to_float(b[c]));
}

extern "C" __global__ void layernorm_kernel_f32(const float *x, const float *w, const float *b,
                                                float *out, int n_cols, int stride_xr,
                                                float eps, int aligned)
{
    layernorm(x, w, b, out, n_cols, stride_xr, eps);
}

extern "C" __global__ void layernorm_kernel_bf16(const __nv_bfloat16 *x,
                                                 const __nv_bfloat16 *w,
                                                 const __nv_bfloat16 *b, __nv_bfloat16 *out,
                                                 int n_cols, int stride_xr, float eps,
                                                 int aligned)
{
    layernorm(x, w, b, out, n_cols, stride_xr, eps);
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
    layernorm_kernels_cu[x.dtype](np.uintp(x.data_ptr()), np.uintp(weight.data_ptr()),
                                  np.uintp(bias.data_ptr()), np.uintp(out.data_ptr()),
                                  np.int32(n_cols), np.int32(x.stride(0)), np.float32(eps),
                                  np.int32(0), block=(256, 1, 1), grid=(n_rows, 1))
