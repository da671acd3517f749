# impl: triton
# status: fail
# reason: [n_rows=3, n_cols=7]
# reason: out-of-bounds write
# (Rows and columns swapped in out's row stride: the store puts x[i, j] at j * n_cols + i, as
#  if out had x's shape, where out's rows are n_rows apart. Right on 1 x 1 (and on any square
#  matrix); on 3 x 7 the offsets run up to 6 * 7 + 2 = 44 in an output of 21 elements, and
#  the guard after it is overwritten.)

# %% nbgrader={"grade_id": "transpose_triton", "solution": true}
@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_n[None, :] * n_cols + offs_m[:, None], x, mask=mask)  # n_rows


def transpose_triton(x, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 64), triton.cdiv(n_cols, 64))
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=64,
                           BLOCK_SIZE_N=64)
