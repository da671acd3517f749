# exercise: matrix_add
# impl: triton
# status: pass
# (Honest work — a 1-D grid whose program ids are split into a row tile and a column tile with
# // and %, instead of a 2-D grid. The notebook teaches the 2-D grid; this one is as right.)

# %% nbgrader={"grade_id": "matrix_add_triton", "solution": true}
@triton.jit
def matrix_add_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_xn, stride_ym,
                      stride_yn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(n_cols, BLOCK_SIZE_N)
    offs_m = (pid // tiles_n).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = (pid % tiles_n).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x + y, mask=mask)


def matrix_add_triton(x, y, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 16) * triton.cdiv(n_cols, 256),)
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols, x.stride(0), x.stride(1), y.stride(0),
                            y.stride(1), BLOCK_SIZE_M=16, BLOCK_SIZE_N=256)
