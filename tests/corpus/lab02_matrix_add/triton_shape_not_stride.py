# exercise: matrix_add
# impl: triton
# status: fail
# reason: [n_rows=33, n_cols=129, x rows padded by 31]
# reason: elements differ

# %% nbgrader={"grade_id": "matrix_add_triton", "solution": true}
# (The inputs are indexed with the shape, as if contiguous: row i at i * n_cols. Right on every
# contiguous matrix, wrong on the first padded one.)
@triton.jit
def matrix_add_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_xn, stride_ym,
                      stride_yn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    offs = offs_m[:, None] * n_cols + offs_n[None, :]  # the strides are never used
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def matrix_add_triton(x, y, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 32), triton.cdiv(n_cols, 128))
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols, *x.stride(), *y.stride(),
                            BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
