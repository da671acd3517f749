# impl: triton
# exercise: rope
# status: fail
# reason: elements differ
# reason: [tokens=3, heads=2, head_dim=8, half_dim=4, bfloat16]
# (The GPT-J pairing: x[2i] with x[2i + 1], adjacent elements, instead of NeoX's x[i] with
# x[i + half_dim], rotated by the same table entry i. A rotation all the same (norms kept,
# nothing overflows): the silent mistake of running a checkpoint with the other convention.
# It passes the first case, head_dim 2, where the two pairings are one pair.)

# %% edit rope_triton
# <<<
#         x1_ptrs = x_ptr + token * stride_xt + h[:, None] * stride_xh + d[None, :]
#         x1 = tl.load(x1_ptrs, mask=mask).to(tl.float32)
# ~~~
#         tl.store(out_ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty),
#                  mask=mask)
# ===
#         x1_ptrs = x_ptr + token * stride_xt + h[:, None] * stride_xh + 2 * d[None, :]  # x[2i]
#         x1 = tl.load(x1_ptrs, mask=mask).to(tl.float32)
#         x2 = tl.load(x1_ptrs + 1, mask=mask).to(tl.float32)  # x[2i + 1]
#         out_ptrs = out_ptr + (token * n_heads + h[:, None]) * (2 * half_dim) + 2 * d[None, :]
#         tl.store(out_ptrs, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
#         tl.store(out_ptrs + 1, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty),
#                  mask=mask)
# >>>
