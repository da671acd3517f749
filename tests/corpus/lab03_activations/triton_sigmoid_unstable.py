# impl: triton
# exercise: sigmoid
# status: fail
# reason: [n=1999, x scale=100.0, float32]
# reason: elements differ
# (sigmoid as e^x / (1 + e^x), in float32: exp overflows past x = 88.7 and the quotient is
# inf / inf = NaN. Inputs scaled by 100 put about a fifth of the elements there.)

# %% edit sigmoid_triton
# <<<
#     e = tl.exp(-tl.abs(x))  # in (0, 1]: underflows to 0 for large |x|, never overflows
#     r = 1.0 / (1.0 + e)  # sigmoid(|x|); 1 + e is in [1, 2]
#     y = tl.where(x >= 0.0, r, e * r)  # sigmoid(-|x|) = e / (1 + e); NaN: e * r is NaN
# ===
#     e = tl.exp(x)
#     y = e / (1.0 + e)
# >>>
