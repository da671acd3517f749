# impl: triton
# status: pass
# (Honest work: the tile turned around with tl.trans and stored with offsets and a mask built
#  the other way round (offs_n down, offs_m across), on tiles that are not square. The
#  notebook stores the tile as loaded, with out's strides; this is the same transpose.)

# %% nbgrader={"grade_id": "transpose_triton", "solution": true}
@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0).to(tl.int64) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    # BLOCK_SIZE_N x BLOCK_SIZE_M: row b of the turned tile is column b of x, a row of out.
    mask_t = (offs_n[:, None] < n_cols) & (offs_m[None, :] < n_rows)
    tl.store(out_ptr + offs_n[:, None] * n_rows + offs_m[None, :], tl.trans(x), mask=mask_t)


def transpose_triton(x, out):
    n_rows, n_cols = x.shape
    BLOCK_SIZE_M, BLOCK_SIZE_N = 32, 64
    grid = (triton.cdiv(n_rows, BLOCK_SIZE_M), triton.cdiv(n_cols, BLOCK_SIZE_N))
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=BLOCK_SIZE_M,
                           BLOCK_SIZE_N=BLOCK_SIZE_N)
