# exercise: matrix_add
# impl: cuda
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value

# %% nbgrader={"grade_id": "matrix_add_cu", "solution": true}
# (The kernel takes its row from blockIdx.x and threadIdx.x, the launcher sizes the grid's x
# for the columns: the blocks cover a region of the wrong shape, bounds-checked, so nothing is
# written outside out but a strip of it never is. Unnoticed on 1 x 1 and 3 x 7.)
MATRIX_ADD_CU = r"""
#define TILE 32
#define BLOCK_ROWS 8

__global__ void matrix_add_kernel(const float *x, const float *y, float *out, int n_rows,
                                  int n_cols, int stride_xm, int stride_xn, int stride_ym,
                                  int stride_yn)
{
    const long long row = blockIdx.x * TILE + threadIdx.x;  // swapped: x is the columns
    if (row >= n_rows) return;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const long long col = blockIdx.y * TILE + threadIdx.y + k;
        if (col < n_cols) {
            out[row * n_cols + col] = x[row * stride_xm + col * stride_xn] +
                                      y[row * stride_ym + col * stride_yn];
        }
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
