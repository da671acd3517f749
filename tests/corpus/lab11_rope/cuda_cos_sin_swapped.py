# impl: cuda
# exercise: rope
# status: fail
# reason: elements differ
# (The two tables swapped: x1 * s - x2 * c and x2 * s + x1 * c. The tables are drawn
# independently, so every case shows it.)

# %% edit rope_cu
# <<<
#                  stride_xh, cos + token * half_dim, sin + token * half_dim, aligned);
# ===
#                  stride_xh, sin + token * half_dim, cos + token * half_dim, aligned);  // swapped
# >>>
