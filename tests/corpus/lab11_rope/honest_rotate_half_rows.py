# impl: triton
# exercise: rope
# status: pass
# (Honest work in the shape of the torch formula, x * cos + rotate_half(x) * sin: whole head
# rows of head_dim columns (BLOCK_D a power of two >= head_dim), loaded twice, once as they
# are and once in partner order ((d + half_dim) % head_dim), with sin's sign -1 on the first
# half and the table column d % half_dim. The same pairs as the notebook's two half-width
# loads; the second load of each row comes from cache on a GPU. And the results are stored
# as float32 values into the bfloat16 output without .to(): tl.store converts to the
# pointer's type, one rounding.)

# %% edit rope_triton
# <<<
#     d = tl.arange(0, BLOCK_D)
#     d_mask = d < half_dim  # BLOCK_D rounds half_dim up to a power of two
#     # The token's table row, loaded once for all its heads: [1, BLOCK_D] float32.
#     c = tl.load(cos_ptr + token * half_dim + d, mask=d_mask)[None, :]
#     s = tl.load(sin_ptr + token * half_dim + d, mask=d_mask)[None, :]
# ===
#     head_dim = 2 * half_dim
#     col = tl.arange(0, BLOCK_D)  # BLOCK_D covers a whole row here
#     col_mask = col < head_dim
#     partner = (col + half_dim) % head_dim  # x2 for the first half, x1 for the second
#     sign = tl.where(col < half_dim, -1.0, 1.0)  # rotate_half(x) = cat(-x2, x1)
#     pair = col % half_dim
#     # The token's table row, loaded once for all its heads: [1, BLOCK_D] float32.
#     c = tl.load(cos_ptr + token * half_dim + pair, mask=col_mask)[None, :]
#     s = tl.load(sin_ptr + token * half_dim + pair, mask=col_mask)[None, :] * sign[None, :]
# >>>
# <<<
#         # Heads past n_heads (the last step) and columns past half_dim: masked off.
#         mask = (h < n_heads)[:, None] & d_mask[None, :]
# ~~~
#         tl.store(out_ptrs + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty),
#                  mask=mask)
# ===
#         # Heads past n_heads (the last step) and columns past head_dim: masked off.
#         mask = (h < n_heads)[:, None] & col_mask[None, :]
#         row = x_ptr + token * stride_xt + h[:, None] * stride_xh
#         x = tl.load(row + col[None, :], mask=mask).to(tl.float32)
#         rot = tl.load(row + partner[None, :], mask=mask).to(tl.float32)
#         out_row = out_ptr + (token * n_heads + h[:, None]) * head_dim
#         tl.store(out_row + col[None, :], x * c + rot * s, mask=mask)
# >>>
# <<<
#     BLOCK_D = triton.next_power_of_2(half_dim)
# ===
#     BLOCK_D = triton.next_power_of_2(head_dim)
# >>>
