# exercise: matrix_copy
# impl: cuda
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape and on the smaller GPU ones. On the view whose rows are 143166000
# elements apart, row 15's offset 2147490000 + col, computed in 32 bits and kept in an int,
# becomes negative — 8 GiB before x, where nothing is mapped. The index is computed in unsigned
# arithmetic (blockIdx is unsigned) and narrowed to int, as students write it — a wrap the
# compiler must keep (with int factors the overflow is undefined, and nvcc may widen the
# arithmetic and hide the bug). The CPU backend, given that view directly, reports "an illegal
# memory access ... read"; the CPU shapes are too small to show it.)

# %% nbgrader={"grade_id": "matrix_copy_cu", "solution": true}
MATRIX_COPY_CU = r"""
__global__ void matrix_copy_kernel(const float *x, float *out, int n_rows, int n_cols,
                                   int stride_xm)
{
    const unsigned col = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n_rows && col < n_cols) {
        const int from = row * stride_xm + col, to = row * n_cols + col;  // 32-bit offsets
        out[to] = x[from];
    }
}
"""

# %% nbgrader={"grade_id": "matrix_copy_cuda", "solution": true}
matrix_copy_kernel_cu = SourceModule(MATRIX_COPY_CU).get_function("matrix_copy_kernel")


def matrix_copy_cuda(x, out):
    n_rows, n_cols = x.shape
    matrix_copy_kernel_cu(
        np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows), np.int32(n_cols),
        np.int32(x.stride(0)), block=(32, 8, 1), grid=((n_cols + 31) // 32, (n_rows + 7) // 8),
    )
