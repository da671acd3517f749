# impl: cuda
# status: fail
# reason: [n_rows=3, n_cols=7]
# reason: still hold the fill value
# (One element per thread, a 32 x 32 block, and an early return for the threads whose element
#  of x is outside the matrix. Those threads still had an element of out to write: thread
#  (tx, ty) loads x[ty][tx] but stores out[ty][tx] = x[tx][ty], and on 3 x 7 thread (1, 5)
#  loads nothing (x has 3 rows) while out[5][1] = x[1][5] is inside. Returned threads count as
#  arrived at __syncthreads() (sm_70 and later, and the CPU backend), so nothing hangs: those
#  elements of out are simply never written.)

# %% nbgrader={"grade_id": "transpose_cu", "solution": true}
TRANSPOSE_CU = r"""
#define TILE 32

__global__ void transpose_kernel(const float *x, float *out, int n_rows, int n_cols,
                                 int stride_xm)
{
    __shared__ float tile[TILE][TILE + 1];
    const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    if (row >= n_rows || col >= n_cols) return;  // nothing to load: nothing to do?
    tile[threadIdx.y][threadIdx.x] = x[(long long)row * stride_xm + col];
    __syncthreads();
    const int out_row = blockIdx.x * TILE + threadIdx.y, out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < n_cols && out_col < n_rows)
        out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y];
}
"""

# %% nbgrader={"grade_id": "transpose_cuda", "solution": true}
transpose_kernel_cu = SourceModule(TRANSPOSE_CU).get_function("transpose_kernel")


def transpose_cuda(x, out):
    n_rows, n_cols = x.shape
    transpose_kernel_cu(
        np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows), np.int32(n_cols),
        np.int32(x.stride(0)), block=(32, 32, 1), grid=((n_cols + 31) // 32, (n_rows + 31) // 32),
    )
