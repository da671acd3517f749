# impl: triton
# status: fail
# reason: [n_rows=64, n_cols=781, x scale=200.0]
# reason: elements differ

# %% edit softmax_triton
# <<<
#     x = x - tl.max(x, axis=0)
#     e = tl.exp(x)
# ===
#     e = tl.exp(x)  # no max subtraction: exp(200) overflows float32
# >>>
