# impl: cuda
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: elements differ
# (x is indexed with its shape, row * n_cols + col, as if its rows were contiguous: the stride
#  is passed and never used. Right on every contiguous matrix; on the first padded one, row i
#  is read from i * 129 instead of i * 160, partly from the NaN padding between the rows.)

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
            tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * n_cols + col];  // stride_xm
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
        np.int32(x.stride(0)), block=(32, 8, 1), grid=((n_cols + 31) // 32, (n_rows + 31) // 32),
    )
