# impl: triton
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# reason: [n_rows=33, two_h=258, h=129, x rows padded by 31, bfloat16]
# (Rows taken as 2h apart: right for a fresh [rows, 2h] tensor, wrong for a view with padded
# rows, whose x.stride(0) is larger.)

# %% edit swiglu_packed_triton
# <<<
#     swiglu_packed_kernel[grid](x, out, h, x.stride(0), BLOCK_SIZE=BLOCK_SIZE,
# ===
#     swiglu_packed_kernel[grid](x, out, h, 2 * h, BLOCK_SIZE=BLOCK_SIZE,  # not x.stride(0)
# >>>
