# impl: triton
# exercise: attention
# status: fail
# reason: [b=1, h=2, s=64, d=64
# reason: elements differ
# (1 / sqrt(d) applied to the output instead of the scores: softmax(q k^T) v / sqrt(d) is
#  another function, a sharper softmax shrunk 8 or 11 times; wrong on every shape.)

# %% edit attention_triton
# <<<
#     qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp(x) = exp2(x log2(e))
# ===
#     qk_scale = 1.4426950408889634  # log2(e): the unscaled scores
# >>>
# <<<
#     o = acc / l_i[:, None]
# ===
#     o = acc / l_i[:, None] * sm_scale  # the scale after the softmax
# >>>
