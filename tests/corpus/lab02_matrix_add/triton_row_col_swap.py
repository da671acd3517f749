# exercise: matrix_add
# impl: triton
# status: fail
# reason: [n_rows=127, n_cols=129]
# reason: still hold the fill value

# %% nbgrader={"grade_id": "matrix_add_triton", "solution": true}
# (The grid counts row tiles on axis 0, the kernel reads its row tile from axis 1: the tiles
# cover a region of the wrong shape. Unnoticed while one tile covers the matrix, as on 3 x 7.)
@triton.jit
def matrix_add_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_xn, stride_ym,
                      stride_yn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid_m = tl.program_id(1).to(tl.int64)  # swapped: the grid's axis 0 counts row tiles
    pid_n = tl.program_id(0).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x + y, mask=mask)


def matrix_add_triton(x, y, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 32), triton.cdiv(n_cols, 64))
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols, *x.stride(), *y.stride(),
                            BLOCK_SIZE_M=32, BLOCK_SIZE_N=64)
