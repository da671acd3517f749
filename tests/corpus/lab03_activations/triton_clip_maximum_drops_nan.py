# impl: triton
# exercise: clip
# status: fail
# reason: [n=997, x holds nan, inf, -inf, float32]
# reason: 1 of 997 elements differ
# (clip as tl.minimum(tl.maximum(x, lo), hi): by default (propagate_nan=NONE) tl.maximum
# returns the other operand for a NaN, under the interpreter (numpy's fmax) as on a GPU
# (max.f32), so clip(nan) comes out lo; torch.clamp(nan, lo, hi) is nan.)

# %% edit clip_triton
# <<<
#     # Both comparisons are False for NaN: it falls through to x. (tl.maximum / tl.minimum
#     # would turn it into lo.)
#     y = tl.where(x < lo, lo, tl.where(x > hi, hi, x))
# ===
#     y = tl.minimum(tl.maximum(x, lo), hi)
# >>>
