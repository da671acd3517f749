# impl: triton
# exercise: linear_gelu
# status: fail
# reason: [m=16, k=16, n=16, bfloat16]
# reason: elements differ
# (the loads masked by rows and columns only, not by k: where k is not a multiple of the
#  32-deep K tile (16^3, the first public shape: half a tile), the last tile reads past the end
#  of each row of x and w, the next row's first elements (or the guard past the last row), and
#  adds their products.)

# %% edit linear_gelu_triton
# <<<
#                         mask=(offs_m[:, None] < m) & (offs_k[None, :] < k), other=0.0)
# ===
#                         mask=offs_m[:, None] < m, other=0.0)
# >>>
# <<<
#                         mask=(offs_k[:, None] < k) & (offs_n[None, :] < n), other=0.0)
# ===
#                         mask=offs_n[None, :] < n, other=0.0)
# >>>
