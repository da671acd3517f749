# impl: triton
# exercise: linear_gelu
# status: fail
# reason: elements differ
# (the bias added after the activation, gelu(x . w^T) + b: another function than
#  gelu(x . w^T + b), wrong on most elements.)

# %% edit linear_gelu_triton
# <<<
#     v = acc + bias[None, :]
#     u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2 / pi) (v + 0.044715 v^3)
#     out = v / (1.0 + tl.exp(-2.0 * u))
# ===
#     v = acc
#     u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2 / pi) (v + 0.044715 v^3)
#     out = v / (1.0 + tl.exp(-2.0 * u)) + bias[None, :]
# >>>
