# impl: cuda
# device: cpu
# status: race
# reason: [n_rows=3, n_cols=7]
# reason: wrong differently
# reason: A missing __syncthreads()?
# (the solution's tile with the barrier between the two phases left out: a thread reads
#  tile[threadIdx.x][...], loaded by threads of other warps that may not have run yet. The CPU
#  backend starts each block's shared memory as NaN and runs each block's threads one after
#  another: in the forward order 3 of the 21 elements of 3 x 7 come out NaN, in the reverse
#  order 15 are wrong. Neither order is right, as a transpose's tile is exchanged among all
#  the block's warps, but the two are wrong differently: a race. On a GPU the outcome depends
#  on when each warp's loads happen to land, wrong in one run and perhaps right in the next,
#  so no one verdict can be named there: a CPU-only control)

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
    // missing: __syncthreads();
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
