# impl: triton
# status: fail
# reason: elements differ
# (the running sum kept in int16: each K tile's int32 dot is cut to 16 bits and added to an
#  int16 accumulator, which wraps modulo 2^16. A product of two int8s is up to 2^14, so a sum of
#  a few terms can pass 32767: 31 of the 256 elements of 16^3 (16 terms) are wrong already,
#  and most elements wherever k is larger.)

# %% edit int8_matmul_triton
# <<<
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int32)  # exact: |sum| <= 2^14 k
# ===
#     acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.int16)
# >>>
# <<<
#         acc = tl.dot(a_blk, b_blk, acc, out_dtype=tl.int32)  # int8 in, int32 sum
# ===
#         acc += tl.dot(a_blk, b_blk, out_dtype=tl.int32).to(tl.int16)
# >>>
