# exercise: matrix_add
# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, but threadIdx.x runs along the rows — the 32 threads of a warp touch 32
# different rows, 32 sectors of 32 bytes for 128 useful bytes, on every load and store.)

# %% nbgrader={"grade_id": "matrix_add_cu", "solution": true}
MATRIX_ADD_CU = r"""
__global__ void matrix_add_kernel(const float *x, const float *y, float *out, int n_rows,
                                  int n_cols, int stride_xm, int stride_xn, int stride_ym,
                                  int stride_yn)
{
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // along a column
    const long long col = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n_rows && col < n_cols) {
        out[row * n_cols + col] = x[row * stride_xm + col * stride_xn] +
                                  y[row * stride_ym + col * stride_yn];
    }
}
"""

# %% nbgrader={"grade_id": "matrix_add_cuda", "solution": true}
matrix_add_kernel_cu = SourceModule(MATRIX_ADD_CU).get_function("matrix_add_kernel")


def matrix_add_cuda(x, y, out):
    n_rows, n_cols = x.shape
    matrix_add_kernel_cu(
        np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
        np.int32(n_rows), np.int32(n_cols), *(np.int32(s) for s in (*x.stride(), *y.stride())),
        block=(32, 8, 1), grid=((n_rows + 31) // 32, (n_cols + 7) // 8),
    )
