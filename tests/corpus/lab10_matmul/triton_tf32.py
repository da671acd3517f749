# impl: triton
# exercise: matmul_fp32
# status: fail
# reason: [m=17, k=65, n=33]
# reason: elements differ
# (tl.dot without input_precision="ieee": TF32, the default for float32 blocks. Each input
#  keeps 10 of its 23 mantissa bits, so each product is off by up to 2^-10 relative: 17 x 33 x
#  65 is off by about 1e-2 where the tolerance is 5e-4. 1 x 1 x 1 passes (one product, within
#  rtol of the exact one); every other public shape fails. On a GPU the tensor cores do this;
#  without one, the grader's interpreter cuts the inputs to TF32 as they do.)

# %% edit matmul_fp32_triton
# <<<
#         acc = tl.dot(a_blk, b_blk, acc, input_precision="ieee")
# ===
#         acc = tl.dot(a_blk, b_blk, acc)
# >>>
