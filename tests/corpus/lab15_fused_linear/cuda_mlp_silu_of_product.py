# impl: cuda
# exercise: mlp
# status: fail
# reason: elements differ
# reason: [m=16, d=16, f=16, bfloat16]
# (SiLU applied after the product, silu(g * u) for silu(g) * u: another function (its sign is
#  never that of a negative g * u, and it grows like g * u, not like g^2 u for large g), wrong
#  on most elements of y from the first shape on.)

# %% edit mlp_cu
# <<<
#     return __fdividef(g, 1.0f + __expf(-g)) * u;
# ===
#     const float v = g * u;
#     return __fdividef(v, 1.0f + __expf(-v));
# >>>
