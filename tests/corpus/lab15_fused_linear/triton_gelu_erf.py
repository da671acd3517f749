# impl: triton
# exercise: linear_gelu
# status: fail
# reason: elements differ
# (GELU's exact erf form, 0.5 v (1 + erf(v / sqrt 2)), where the layer uses the tanh form
#  (F.gelu(approximate="tanh")): the two curves differ by up to 4.7e-4, which is many bfloat16
#  ulps where y is small, on GELU's negative tail (v around -2 to -4): a few elements of
#  each shape (about 5 of the 256 of 16^3).)

# %% edit linear_gelu_triton
# <<<
#     u = 0.7978845608028654 * (v + 0.044715 * v * v * v)  # sqrt(2 / pi) (v + 0.044715 v^3)
#     out = v / (1.0 + tl.exp(-2.0 * u))
# ===
#     out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
# >>>
