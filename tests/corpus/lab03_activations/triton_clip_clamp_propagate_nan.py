# impl: triton
# exercise: clip
# status: pass
# (A positive control for the handout's advice: tl.clamp with propagate_nan=ALL keeps NaN,
# under the interpreter as on a GPU, so this clip is right.)

# %% edit clip_triton
# <<<
#     # Both comparisons are False for NaN: it falls through to x. (tl.maximum / tl.minimum
#     # would turn it into lo.)
#     y = tl.where(x < lo, lo, tl.where(x > hi, hi, x))
# ===
#     y = tl.clamp(x, lo, hi, propagate_nan=tl.PropagateNan.ALL)
# >>>
