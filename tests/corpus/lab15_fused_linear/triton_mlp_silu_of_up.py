# impl: triton
# exercise: mlp
# status: fail
# reason: elements differ
# reason: [m=16, d=16, f=16, bfloat16]
# (The accumulators swapped in the epilogue: silu(x . w_up^T) * (x . w_gate^T). SiLU is not
#  odd, so silu(u) g and silu(g) u differ by about a quarter of h where g and u are of order
#  one: wrong on most elements of y from the first shape on.)

# %% edit mlp_triton
# <<<
#     h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u
# ===
#     h = acc_u / (1.0 + tl.exp(-acc_u)) * acc_g
# >>>
