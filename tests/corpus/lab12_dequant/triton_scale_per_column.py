# impl: triton
# exercise: dequant_int8
# status: fail
# reason: elements differ
# reason: [out_features=3, in_features=7, bfloat16]
# (One scale per column instead of per row: scale[c] instead of scale[r]. Right for the
# single weight of the first shape; wrong on the next, where row 1 takes scale[0] for its
# first column (and columns past the last row read beyond the scales).)

# %% edit dequant_int8_triton
# <<<
#     s = tl.load(scale_ptr + row).to(tl.float32)  # a scalar: the same scale for the whole row
# ===
#     s = tl.load(scale_ptr + cols, mask=mask).to(tl.float32)  # a scale per output column
# >>>
