# impl: cuda
# status: pass
# (Honest work, the "tiled" step of the notebook's staircase: the notebook's kernel with
#  float tile[32][32], no padding column. Phase 2 reads a column of the tile, 32 words in one
#  bank, so a GPU serves it in 32 steps: slower, but every element is right.)

# %% nbgrader={"grade_id": "transpose_cu", "solution": true}
TRANSPOSE_CU = r"""
#define TILE 32
#define BLOCK_ROWS 8

__global__ void transpose_kernel(const float *__restrict__ x, float *__restrict__ out,
                                 int n_rows, int n_cols, int stride_xm)
{
    __shared__ float tile[TILE][TILE];  // no + 1: bank conflicts in phase 2
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int col = col0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const int row = row0 + threadIdx.y + k;
        if (row < n_rows && col < n_cols)
            tile[threadIdx.y + k][threadIdx.x] = x[(long long)row * stride_xm + col];
    }
    __syncthreads();
    const int out_col = row0 + threadIdx.x;
#pragma unroll
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
    grid = (triton.cdiv(n_cols, 32), triton.cdiv(n_rows, 32))
    transpose_kernel_cu(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows),
                        np.int32(n_cols), np.int32(x.stride(0)), block=(32, 8, 1), grid=grid)
