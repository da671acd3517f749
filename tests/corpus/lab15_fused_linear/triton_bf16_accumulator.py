# impl: triton
# exercise: linear_gelu
# status: fail
# reason: elements differ
# (the running sum kept in bfloat16: each K tile's float32 dot is added to a bfloat16
#  accumulator and rounded back to 8 significant bits, so every K tile costs up to half an ulp
#  of the partial sum, and the rounding before the bias and GELU is a second one. With one
#  K tile (16^3) the second rounding alone misses on about 12 of the 256 elements; more K
#  tiles, more misses.)

# %% edit linear_gelu_triton
# <<<
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
# ===
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.bfloat16)
# >>>
# <<<
#         acc = tl.dot(x_blk, w_blk, acc)  # bfloat16 products, exact; a float32 sum
# ===
#         acc = (acc.to(tl.float32) + tl.dot(x_blk, w_blk)).to(tl.bfloat16)
# >>>
# <<<
#     v = acc + bias[None, :]
# ===
#     v = acc.to(tl.float32) + bias[None, :]
# >>>
