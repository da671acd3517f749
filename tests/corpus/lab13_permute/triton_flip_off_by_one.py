# impl: triton
# exercise: flip
# status: fail
# reason: elements differ
# reason: [n=1, float32]
# (out[i] = x[n - i] instead of x[n - 1 - i]: the mirrored tile starts one element late, so
# out[0] reads x[n], one past the end (masked off here only below 0), and every element is its
# neighbour's.)

# %% edit flip_triton
# <<<
#     src = n_elements - pid * BLOCK_SIZE - (r + 1) * PACK + c
# ===
#     src = n_elements + 1 - pid * BLOCK_SIZE - (r + 1) * PACK + c
# >>>
