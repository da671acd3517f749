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

# %% edit layernorm_triton
# <<<
#     row = tl.program_id(0).to(tl.int64)  # row * stride_xr can pass 2^31 on large inputs
# ===
#     row = tl.program_id(0)  # 32-bit
# >>>
