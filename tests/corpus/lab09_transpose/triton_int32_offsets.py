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

# %% edit transpose_triton
# <<<
#     # 64-bit on both axes: offs_m * stride_xm and offs_n * n_rows each pass 2^31 - 1 on a
#     # matrix of more than 2^31 elements.
#     pid_m = tl.program_id(axis=0).to(tl.int64)
#     pid_n = tl.program_id(axis=1).to(tl.int64)
# ===
#     pid_m = tl.program_id(axis=0)  # 32-bit
#     pid_n = tl.program_id(axis=1)
# >>>
