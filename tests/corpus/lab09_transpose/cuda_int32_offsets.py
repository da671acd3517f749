# impl: cuda
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (The notebook's tile with its offsets kept in an int. Right on every CPU shape; on the GPU
#  suite's first case, the view whose rows are 143166000 elements apart, row 15's offset
#  2147490000 + col does not fit: it is computed in unsigned arithmetic (blockIdx and
#  threadIdx are unsigned, as students' index expressions usually are) and narrowed to int,
#  a negative index 8 GiB before x, where nothing is mapped. (With int factors the overflow
#  would be undefined behaviour, and nvcc may widen the arithmetic and hide the bug.) The CPU
#  shapes are too small to show it.)

# %% nbgrader={"grade_id": "transpose_cu", "solution": true}
TRANSPOSE_CU = r"""
#define TILE 32
#define BLOCK_ROWS 8

__global__ void transpose_kernel(const float *x, float *out, int n_rows, int n_cols,
                                 int stride_xm)
{
    __shared__ float tile[TILE][TILE + 1];
    const unsigned row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const unsigned col = col0 + threadIdx.x;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const unsigned row = row0 + threadIdx.y + k;
        if (row < n_rows && col < n_cols) {
            const int from = row * stride_xm + col;  // 32-bit offset
            tile[threadIdx.y + k][threadIdx.x] = x[from];
        }
    }
    __syncthreads();
    const unsigned out_col = row0 + threadIdx.x;
    for (int k = 0; k < TILE; k += BLOCK_ROWS) {
        const unsigned out_row = col0 + threadIdx.y + k;
        if (out_row < n_cols && out_col < n_rows) {
            const int to = out_row * n_rows + out_col;  // 32-bit offset
            out[to] = tile[threadIdx.x][threadIdx.y + k];
        }
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
