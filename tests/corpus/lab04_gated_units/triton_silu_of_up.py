# impl: triton
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# (The halves swapped: silu(up) * gate. The first half of each row is the gate.)

# %% edit swiglu_packed_triton
# <<<
#     out = gate * tl.sigmoid(gate) * up
# ===
#     out = up * tl.sigmoid(up) * gate  # gates the wrong half
# >>>
