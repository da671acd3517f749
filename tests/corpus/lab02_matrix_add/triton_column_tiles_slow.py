# exercise: matrix_add
# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct everywhere, but each tile is one column of 1024 rows — every access is 4 bytes out
# of a different row, the Triton form of threads running down the columns.)

# %% nbgrader={"grade_id": "matrix_add_triton", "solution": true}
@triton.jit
def matrix_add_kernel(x_ptr, y_ptr, out_ptr, n_rows, n_cols, stride_xm, stride_xn, stride_ym,
                      stride_yn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x + y, mask=mask)


def matrix_add_triton(x, y, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 1024), n_cols)  # one column per tile
    matrix_add_kernel[grid](x, y, out, n_rows, n_cols, *x.stride(), *y.stride(),
                            BLOCK_SIZE_M=1024, BLOCK_SIZE_N=1)
