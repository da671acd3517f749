# impl: triton
# exercise: attention
# status: fail
# reason: elements differ
# (acc never multiplied by alpha: l is rescaled when a row's max grows, the terms already in acc
#  keep their old, larger weights. Right where a head is one K/V tile long (s <= 64), wrong
#  on the rows whose max moves in a later tile: on standard-normal scores it moves little (a
#  few hundred elements off by about 1e-2 at s = 80), with q scaled by 40 (a hidden shape) by
#  tens, and the old terms then outweigh the new ones entirely.)

# %% edit attention_triton
# <<<
#             acc = acc * alpha[:, None]
# ===
# >>>
