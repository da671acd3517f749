# exercise: matrix_copy
# impl: triton
# device: gpu
# status: exception
# reason: [n_rows=16, n_cols=1000, x rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape and on the smaller GPU ones — only offsets past 2^31 show it, so it
# runs on a GPU only. tl.program_id is 32-bit, and so is offs_m * stride_xm — on the view whose
# rows are 143166000 elements apart, row 15's offset 2147490000 wraps to a negative one, 8 GiB
# before x, where nothing is mapped — the load faults. (On the CPU the interpreter segfaults
# there, which is why this is not a CPU control.))

# %% nbgrader={"grade_id": "matrix_copy_triton", "solution": true}
@triton.jit
def matrix_copy_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_xm, BLOCK_SIZE_M: tl.constexpr,
                       BLOCK_SIZE_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)  # 32-bit
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < n_rows) & (offs_n[None, :] < n_cols)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask)
    tl.store(out_ptr + offs_m[:, None] * n_cols + offs_n[None, :], x, mask=mask)


def matrix_copy_triton(x, out):
    n_rows, n_cols = x.shape
    grid = (triton.cdiv(n_rows, 32), triton.cdiv(n_cols, 128))
    matrix_copy_kernel[grid](x, out, n_rows, n_cols, x.stride(0), BLOCK_SIZE_M=32,
                             BLOCK_SIZE_N=128)
