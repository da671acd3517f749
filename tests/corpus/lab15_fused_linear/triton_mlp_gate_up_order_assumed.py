# impl: triton
# exercise: mlp
# status: fail
# reason: elements differ
# (the TMA kernel reads w_gate and w_up as one tensor from the lower of the two, then takes the
#  gate's sums from the lower half of each pair of columns without asking which weight lies
#  lower: right where w_gate lies below w_up, the up product and the gate swapped where it lies
#  above. The judge lays the two out both ways on consecutive cases: the hidden shapes of more
#  than 128 rows catch it, the public ones (the pointer kernels) do not.)

# %% edit mlp_triton
# <<<
#             g = tl.where(up_first, upper, lower)  # the gate's sums, then the up's
#             u = tl.where(up_first, lower, upper)
# ===
#             g = lower  # the gate's sums, then the up's
#             u = upper
# >>>
