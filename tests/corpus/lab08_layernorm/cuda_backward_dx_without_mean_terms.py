# impl: cuda
# exercise: layernorm_backward
# status: fail
# reason: ] dx:
# reason: elements differ
# (dx = dy * weight * rstd: the gradient of a layer whose mean and rstd were constants. Both
# depend on every element of the row, and their derivatives add the two terms
# -mean(g) - xhat * mean(g * xhat). dw and db, stage 1 and stage 2 are right; dx is wrong in
# every row.)

# %% nbgrader={"grade_id": "layernorm_backward_cu", "solution": true}
LAYERNORM_BACKWARD_CU = r"""
#include <cuda_bf16.h>

__device__ float to_float(float v) { return v; }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ void store(float *p, float v) { *p = v; }
__device__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

// Each thread accumulates its own columns of the block's partial rows, in place.
template <class T>
__device__ void backward(const T *dy, const T *x, const float *mean, const float *rstd,
                         const T *w, T *dx, float *partial_dw, float *partial_db, int n_rows,
                         int n_cols, int stride_dyr, int stride_xr, int rows_per_group)
{
    float *pw = partial_dw + (size_t)blockIdx.x * n_cols;
    float *pb = partial_db + (size_t)blockIdx.x * n_cols;
    for (int c = threadIdx.x; c < n_cols; c += blockDim.x) pw[c] = pb[c] = 0.0f;
    const int first = blockIdx.x * rows_per_group;
    const int last = min(first + rows_per_group, n_rows);
    for (int row = first; row < last; ++row) {
        const float mu = mean[row], rs = rstd[row];
        for (int c = threadIdx.x; c < n_cols; c += blockDim.x) {
            const float d = to_float(dy[(size_t)row * stride_dyr + c]);
            const float xh = (to_float(x[(size_t)row * stride_xr + c]) - mu) * rs;
            store(dx + (size_t)row * n_cols + c, d * to_float(w[c]) * rs);  // no mean terms
            pw[c] += d * xh;
            pb[c] += d;
        }
    }
}

extern "C" __global__ void layernorm_backward_kernel_f32(
    const float *dy, const float *x, const float *mean, const float *rstd, const float *w,
    float *dx, float *partial_dw, float *partial_db, int n_rows, int n_cols, int stride_dyr,
    int stride_xr, int rows_per_group, int aligned)
{
    backward(dy, x, mean, rstd, w, dx, partial_dw, partial_db, n_rows, n_cols, stride_dyr,
             stride_xr, rows_per_group);
}

extern "C" __global__ void layernorm_backward_kernel_bf16(
    const __nv_bfloat16 *dy, const __nv_bfloat16 *x, const float *mean, const float *rstd,
    const __nv_bfloat16 *w, __nv_bfloat16 *dx, float *partial_dw, float *partial_db,
    int n_rows, int n_cols, int stride_dyr, int stride_xr, int rows_per_group, int aligned)
{
    backward(dy, x, mean, rstd, w, dx, partial_dw, partial_db, n_rows, n_cols, stride_dyr,
             stride_xr, rows_per_group);
}

extern "C" __global__ void column_sum_kernel(const float *partial_dw, const float *partial_db,
                                             float *dw, float *db, int n_groups, int n_cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n_cols) return;
    float sw = 0.0f, sb = 0.0f;
    for (int g = 0; g < n_groups; ++g) {
        sw += partial_dw[(size_t)g * n_cols + c];
        sb += partial_db[(size_t)g * n_cols + c];
    }
    dw[c] = sw;
    db[c] = sb;
}
"""

# %% nbgrader={"grade_id": "layernorm_backward_cuda", "solution": true}
layernorm_backward_module_cu = SourceModule(LAYERNORM_BACKWARD_CU, no_extern_c=True)
layernorm_backward_kernels_cu = {
    torch.float32: layernorm_backward_module_cu.get_function("layernorm_backward_kernel_f32"),
    torch.bfloat16: layernorm_backward_module_cu.get_function("layernorm_backward_kernel_bf16"),
}
column_sum_kernel_cu = layernorm_backward_module_cu.get_function("column_sum_kernel")


def layernorm_backward_cuda(dy, x, mean, rstd, weight, dx, dw, db):
    n_rows, n_cols = x.shape
    rows_per_group = 32
    n_groups = triton.cdiv(n_rows, rows_per_group)
    partial_dw = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    partial_db = torch.empty((n_groups, n_cols), dtype=torch.float32, device=x.device)
    layernorm_backward_kernels_cu[x.dtype](
        np.uintp(dy.data_ptr()), np.uintp(x.data_ptr()), np.uintp(mean.data_ptr()),
        np.uintp(rstd.data_ptr()), np.uintp(weight.data_ptr()), np.uintp(dx.data_ptr()),
        np.uintp(partial_dw.data_ptr()), np.uintp(partial_db.data_ptr()), np.int32(n_rows),
        np.int32(n_cols), np.int32(dy.stride(0)), np.int32(x.stride(0)),
        np.int32(rows_per_group), np.int32(0), block=(128, 1, 1), grid=(n_groups, 1))
    column_sum_kernel_cu(np.uintp(partial_dw.data_ptr()), np.uintp(partial_db.data_ptr()),
                         np.uintp(dw.data_ptr()), np.uintp(db.data_ptr()), np.int32(n_groups),
                         np.int32(n_cols), block=(128, 1, 1),
                         grid=(triton.cdiv(n_cols, 128), 1))
