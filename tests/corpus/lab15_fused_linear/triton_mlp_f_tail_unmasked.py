# impl: triton
# exercise: mlp
# status: fail
# reason: elements differ
# reason: [m=16, d=16, f=16, bfloat16]
# (The down kernel's loads masked by rows and columns only, not by f: where f is not a multiple
#  of the K block (256 deep at these batches: every public shape), the last block reads past
#  the end of each row of h, into the next rows, and past each row of w_down, past the last
#  into memory that is not the weights': at 16^3, 255 of the 256 elements of y are NaN.)

# %% edit mlp_triton
# <<<
#         h_blk = tl.load(h_ptr + offs_m[:, None] * f + offs_k[None, :],
#                         mask=(offs_m[:, None] < m) & (offs_k[None, :] < f), other=0.0)
#         w_blk = tl.load(w_down_ptr + offs_n[None, :] * stride_down + offs_k[:, None],
#                         mask=(offs_k[:, None] < f) & (offs_n[None, :] < d), other=0.0)
# ===
#         h_blk = tl.load(h_ptr + offs_m[:, None] * f + offs_k[None, :],
#                         mask=offs_m[:, None] < m, other=0.0)
#         w_blk = tl.load(w_down_ptr + offs_n[None, :] * stride_down + offs_k[:, None],
#                         mask=offs_n[None, :] < d, other=0.0)
# >>>
