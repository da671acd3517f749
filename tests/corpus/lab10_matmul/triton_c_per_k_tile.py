# impl: triton
# exercise: matmul_fp32
# status: fail
# reason: [m=17, k=65, n=33]
# reason: elements differ
# (c written inside the loop over k, each K tile's product on its own: every store overwrites
#  the last, and c ends up holding the product of the last K tile only. Right while k fits in
#  one K tile (1 x 1 x 1); 17 x 33 x 65 has three.)

# %% edit matmul_fp32_triton
# <<<
#         acc = tl.dot(a_blk, b_blk, acc, input_precision="ieee")
#     # The last tiles of rows and columns run past c.
#     mask = (offs_m[:, None] < m) & (offs_n[None, :] < n)
#     tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc, mask=mask)
# ===
#         acc = tl.dot(a_blk, b_blk, input_precision="ieee")
#         tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], acc,
#                  mask=(offs_m[:, None] < m) & (offs_n[None, :] < n))
# >>>
