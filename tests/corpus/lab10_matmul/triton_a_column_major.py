# impl: triton
# exercise: matmul_fp32
# status: fail
# reason: [m=17, k=65, n=33]
# reason: elements differ
# (a read with its strides swapped: element [i, kk] taken at kk * m + i, as if a were stored
#  column by column. Inside a's buffer everywhere (the largest offset is m k - 1), so nothing
#  faults: the values are simply a's, shuffled. Right on 1 x 1 x 1 only.)

# %% edit matmul_fp32_triton
# <<<
#         a_blk = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :],
# ===
#         a_blk = tl.load(a_ptr + offs_k[None, :] * m + offs_m[:, None],
# >>>
