# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (The naive transpose in Triton: each program reads a stretch of 1024 columns of one row of
#  x, coalesced, and writes it down a column of out, one float every n_rows floats: a tile
#  with one row leaves the compiler nothing to stage, and every store is 4 bytes in its own
#  sector. Correct everywhere.)

# %% nbgrader={"grade_id": "transpose_triton", "solution": true}
@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs_n = tl.program_id(1).to(tl.int64) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = offs_n < n_cols
    x = tl.load(x_ptr + row * stride_xm + offs_n, mask=mask)
    tl.store(out_ptr + offs_n * n_rows + row, x, mask=mask)  # n_rows apart


def transpose_triton(x, out):
    n_rows, n_cols = x.shape
    # Rows on axis 0 (up to 2^31 - 1 programs), stretches of a row on axis 1.
    grid = (n_rows, triton.cdiv(n_cols, 1024))
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_N=1024)
