# impl: triton
# exercise: layernorm
# status: fail
# reason: elements differ
# (weight applied to x before the statistics, normalise(x * weight) + bias, instead of after
# them: the per-feature scale is then normalised away along with the row's own, and every row
# comes out wrong.)

# %% edit layernorm_triton
# <<<
#         acc += x.to(tl.float32)
# ===
#         acc += x.to(tl.float32) * tl.load(w_ptr + c, mask=c < n_cols, other=0.0).to(tl.float32)
# >>>
# <<<
#         if EVEN:
#             d = tl.load(x_row + c).to(tl.float32) - mean
#         else:
#             mask = c < n_cols
#             x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#             d = tl.where(mask, x - mean, 0.0)  # past the row x - mean is -mean: zero it
# ===
#         mask = c < n_cols
#         x = tl.load(x_row + c, mask=mask, other=0.0).to(tl.float32)
#         x *= tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)  # scaled first
#         d = tl.where(mask, x - mean, 0.0)  # past the row x - mean is -mean: zero it
# >>>
# <<<
#             b = tl.load(b_ptr + c).to(tl.float32)
#             y = (x - mean) * rstd * w + b
# ===
#             b = tl.load(b_ptr + c).to(tl.float32)
#             y = (x * w - mean) * rstd + b
# >>>
# <<<
#             b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
#             y = (x - mean) * rstd * w + b
# ===
#             b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
#             y = (x * w - mean) * rstd + b
# >>>
