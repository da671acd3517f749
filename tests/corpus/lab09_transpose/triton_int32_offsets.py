# impl: triton
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape (the hidden ones too): the program ids stay 32-bit, and so
#  does offs_m * stride_xm. On the view whose rows are 143166000 elements apart, row 15's
#  offset 2147490000 wraps around to a negative one, 8 GiB before x, where nothing is mapped,
#  and the load faults. That view is in the GPU suite only (its storage is 9 GB): a GPU-only
#  control.)

# %% nbgrader={"grade_id": "transpose_triton", "solution": true}
@triton.jit
def transpose_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_M: tl.constexpr,
                     BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # 32-bit
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_n[None, :] * n_rows + offs_m[:, None], x, mask=mask)


def transpose_triton(x, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 64), triton.cdiv(n_cols, 64))
    transpose_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=64,
                           BLOCK_SIZE_N=64)
