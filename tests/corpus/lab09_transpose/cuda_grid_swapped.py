# impl: cuda
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value
# (Rows and columns swapped in the launch: the kernel is the notebook's (blockIdx.x counts
#  tiles across the columns of x), the grid's x counts tiles down the rows. The blocks cover a
#  region of the wrong shape and the bounds checks keep every access inside the matrix, so on
#  127 x 129 (4 tiles down, 5 across, launched as 5 down, 4 across) the last column of x, row
#  128 of out, is never written. Unnoticed while one tile covers the matrix, as on 3 x 7 and
#  12 x 20.)

# %% nbgrader={"grade_id": "transpose_cu", "solution": true}
TRANSPOSE_CU = r"""
#define TILE 32
#define BLOCK_ROWS 8

__global__ void transpose_kernel(const float *x, float *out, int n_rows, int n_cols,
                                 int stride_xm)
{
    __shared__ float tile[TILE][TILE + 1];
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int col = col0 + threadIdx.x;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int row = row0 + threadIdx.y + k;
        if (row < n_rows && col < n_cols)
            tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * stride_xm + col];
    }
    __syncthreads();
    const int out_col = row0 + threadIdx.x;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int out_row = col0 + threadIdx.y + k;
        if (out_row < n_cols && out_col < n_rows)
            out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
    }
}
"""

# %% nbgrader={"grade_id": "transpose_cuda", "solution": true}
transpose_kernel_cu = SourceModule(TRANSPOSE_CU).get_function("transpose_kernel")


def transpose_cuda(x, out):
    n_rows, n_cols = x.shape
    transpose_kernel_cu(
        np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows), np.int32(n_cols),
        np.int32(x.stride(0)), block=(32, 8, 1),
        grid=((n_rows + 31) // 32, (n_cols + 31) // 32),  # swapped: x counts the columns
    )
