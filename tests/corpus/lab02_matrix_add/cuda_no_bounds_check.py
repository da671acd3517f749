# exercise: matrix_add
# impl: cuda
# status: fail
# reason: out-of-bounds write
# reason: [n_rows=1, n_cols=1]

# %% nbgrader={"grade_id": "matrix_add_cu", "solution": true}
# (The reads are guarded, the store is not: the threads of a tile on the edge that fall
# outside the matrix write past the end of out.)
MATRIX_ADD_CU = r"""
#define TILE 32
#define BLOCK_ROWS 8

__global__ void matrix_add_kernel(const float *x, const float *y, float *out, int n_rows,
                                  int n_cols, int stride_xm, int stride_xn, int stride_ym,
                                  int stride_yn)
{
    const long long col = blockIdx.x * TILE + threadIdx.x;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const long long row = blockIdx.y * TILE + threadIdx.y + k;
        const bool inside = row < n_rows && col < n_cols;
        out[row * n_cols + col] = inside ? x[row * stride_xm + col * stride_xn] +
                                           y[row * stride_ym + col * stride_yn] : 0.0f;
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
        block=(32, 8, 1), grid=((n_cols + 31) // 32, (n_rows + 31) // 32),
    )
