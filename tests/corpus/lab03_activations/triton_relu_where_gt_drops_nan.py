# impl: triton
# exercise: relu
# status: fail
# reason: [n=997, x holds nan, inf, -inf, float32]
# reason: 1 of 997 elements differ
# (relu written as "x if x > 0 else 0": NaN > 0 is False, so the NaN goes to the 0 branch
# (torch.relu(nan) is nan). tl.maximum(x, 0.0) drops it the same way.)

# %% edit relu_triton
# <<<
#     # x < 0 is False for NaN: a NaN takes the x branch and comes out NaN, as in torch.relu.
#     # (tl.maximum(x, 0.0) would return 0.0 for it.)
#     y = tl.where(x < 0.0, 0.0, x)
# ===
#     y = tl.where(x > 0.0, x, 0.0)
# >>>
