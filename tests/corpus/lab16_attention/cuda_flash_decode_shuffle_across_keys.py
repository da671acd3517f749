# impl: cuda
# exercise: flash_decode
# status: fail
# reason: elements differ
# (The scores summed across the whole warp (shuffle offsets 16 down to 1) instead of across
#  the LANES = d / 8 lanes that read one key: the 2 (d = 128) or 4 (d = 64) keys a warp reads
#  at once get one score, the sum of theirs. Wrong on every shape longer than one key.)

# %% edit flash_decode_cu
# <<<
#                 for (int off = LANES / 2; off > 0; off /= 2)  // below LANES: inside the group
# ===
#                 for (int off = 16; off > 0; off /= 2)  // across the whole warp
# >>>
