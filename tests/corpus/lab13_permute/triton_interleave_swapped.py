# impl: triton
# exercise: interleave
# status: fail
# reason: elements differ
# reason: [n=1, two_n=2, float32]
# (The pairs are (b[i], a[i]): every element of out is wrong but for the few where a[i] and
# b[i] happen to be equal.)

# %% edit interleave_triton
# <<<
#     pairs = tl.interleave(a, b)  # [a0, b0, a1, b1, ...]: 2 * BLOCK_SIZE elements
# ===
#     pairs = tl.interleave(b, a)
# >>>
