# impl: triton
# exercise: rope_qk
# status: fail
# reason: out-of-bounds write
# reason: [tokens=3, heads=4, head_dim=8, kv_heads=2, half_dim=4, bfloat16] k_out
# (k rotated with q's head count, a copy-paste of the q call: token t's k heads are written at
# (t * n_heads + h) * head_dim for h < n_heads, past the end of k_out for the last token, and
# read past the end of k. The first case has as many kv heads as q heads: it passes.)

# %% edit rope_qk_triton
# <<<
#     rotate_heads(k_ptr, k_out_ptr, token, n_kv_heads, half_dim, stride_kt, stride_kh, c, s,
#                  BLOCK_HK, BLOCK_D)
# ===
#     rotate_heads(k_ptr, k_out_ptr, token, n_heads, half_dim, stride_kt, stride_kh, c, s,
#                  BLOCK_HQ, BLOCK_D)  # n_heads: q's head count
# >>>
