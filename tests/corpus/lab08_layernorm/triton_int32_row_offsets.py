# impl: triton
# exercise: layernorm
# device: gpu
# status: exception
# reason: [n_rows=64, n_cols=4096, x rows padded by 34083339
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape; only offsets past 2^31 show it, so it runs on a GPU only.
# tl.program_id is 32-bit, and so is row * stride_xr: in the view whose rows are 34087435
# elements apart, row 63's offset 2147508405 wraps to a negative one, gigabytes before x, where
# nothing is mapped.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_xr, eps,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)  # 32-bit
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(d * d, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * n_cols + cols, (d * rstd * w + b).to(out_ptr.dtype.element_ty),
             mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=BLOCK_SIZE,
                                num_warps=min(max(BLOCK_SIZE // 1024, 4), 16))
