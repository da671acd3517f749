# impl: triton
# status: fail
# reason: elements differ
# (the row scales applied before the sum: each K tile of a is multiplied by s_row and rounded
#  to bfloat16, then multiplied with b (exact in bfloat16) into a float32 accumulator; s_col in
#  the epilogue. Every term carries its own rounding, up to 2^-8 relative: where the terms of an
#  element cancel, c is small and those errors are many of its ulps. Terms rounded to nearest
#  already miss on about 1 element in 8 of 16^3; on the CPU all 256 of them miss (the
#  interpreter's bfloat16 cast truncates, and its bfloat16 tl.dot is coarser still).)

# %% edit int8_matmul_triton
# <<<
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)  # exact: |sum| <= 2^14 k
# ===
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
#     sr = tl.load(s_row_ptr + offs_m, mask=offs_m < m, other=0.0)
# >>>
# <<<
#         acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.int32)  # int8 in, int32 sum
# ===
#         a_scaled = (a_blk.to(tl.float32) * sr[:, None]).to(tl.bfloat16)
#         acc = tl.dot(a_scaled, b_blk.to(tl.bfloat16), acc)
# >>>
# <<<
#     sr = tl.load(s_row_ptr + offs_m, mask=offs_m < m, other=0.0)
#     sc = tl.load(s_col_ptr + offs_n, mask=offs_n < n, other=0.0)
#     out = acc.to(tl.float32) * sr[:, None] * sc[None, :]
# ===
#     sc = tl.load(s_col_ptr + offs_n, mask=offs_n < n, other=0.0)
#     out = acc * sc[None, :]
# >>>
