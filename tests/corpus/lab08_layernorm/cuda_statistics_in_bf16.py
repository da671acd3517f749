# impl: cuda
# exercise: layernorm
# status: fail
# reason: bfloat16]
# reason: elements differ
# (One warp per row, each lane adding its columns into accumulators of the input's type T:
# right in float32, wrong in bfloat16, whose 8 significant bits cannot hold a running sum.
# Once a lane's sum of squares passes 128, bfloat16 steps by 1: smaller squares vanish and
# the rest are rounded to whole numbers, so the variance comes out percents off. Statistics
# belong in float32 whatever the data's type.)

# %% nbgrader={"grade_id": "layernorm_cu", "solution": true}
LAYERNORM_CU = r"""
#include <cuda_bf16.h>

__device__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <class T>
__device__ void layernorm(const T *x, const T *w, const T *b, T *out, int n_cols, int stride_xr,
                          float eps)
{
    const T *row = x + (size_t)blockIdx.x * stride_xr;
    T *o = out + (size_t)blockIdx.x * n_cols;
    T s = T(0.0f);
    for (int c = threadIdx.x; c < n_cols; c += 32) s += row[c];  // in T
    const float mean = warp_sum(float(s)) / n_cols;
    T q = T(0.0f);
    for (int c = threadIdx.x; c < n_cols; c += 32) {
        const T d = row[c] - T(mean);
        q += d * d;  // in T
    }
    const float rstd = rsqrtf(warp_sum(float(q)) / n_cols + eps);
    for (int c = threadIdx.x; c < n_cols; c += 32)
        o[c] = T((float(row[c]) - mean) * rstd * float(w[c]) + float(b[c]));
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
                                  np.int32(0), block=(32, 1, 1), grid=(n_rows, 1))
