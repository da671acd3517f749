# impl: cuda
# exercise: attention
# device: gpu
# status: fail
# reason: elements differ
# (the shuffle path, taken where the fragments are in mma.sync's map, combines a row's maxima
#  over lanes 4 g and 4 g + 1 only: lanes 4 g + 2 and 4 g + 3 hold the other 8 columns of the
#  row, and each pair rescales with its own max. p and alpha then differ between the pairs of a
#  row and the sums no longer match the accumulator: wrong wherever the two halves' maxima
#  differ. The CPU backend's own map sends the kernel down the exchange path, which is right,
#  so this runs on a GPU, and on the CPU under TCLAB_WMMA_LAYOUT=mma in
#  tests/test_labs.py.)

# %% edit attention_cu
# <<<
#                     mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
# ===
# >>>
