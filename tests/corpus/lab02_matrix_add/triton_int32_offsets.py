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

# %% edit matrix_copy_triton
# <<<
#     # 64-bit: offs_m * stride_xm passes 2^31 - 1 on a matrix of more than 2^31 elements.
#     pid_m = tl.program_id(axis=0).to(tl.int64)
# ===
#     pid_m = tl.program_id(axis=0)  # 32-bit
# >>>
