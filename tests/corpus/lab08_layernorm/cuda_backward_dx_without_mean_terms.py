# impl: cuda
# exercise: layernorm_backward
# status: fail
# reason: ] dx:
# reason: elements differ
# (dx = dy * weight * rstd: the gradient of a layer whose mean and rstd were constants. Both
# depend on every element of the row, and their derivatives add the two terms
# -mean(g) - xhat * mean(g * xhat). dw and db, stage 1 and stage 2 are right; dx is wrong in
# every row.)

# %% edit layernorm_backward_cu
# <<<
#                     d[j] = (g - mean_g - xhat * mean_gx) * rs;
# ===
#                     d[j] = g * rs;  // no mean terms
# >>>
