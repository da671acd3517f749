# impl: triton
# exercise: invert
# status: fail
# reason: [h=1, w=1, c=4, uint8] out
# reason: elements differ
# (Inverts every byte, alpha included: one byte in four is wrong (255 - a != a for every
# a).)

# %% edit invert_triton
# <<<
#     is_alpha = offs % 4 == 3  # byte 3 of every pixel
#     tl.store(out_ptr + offs, tl.where(is_alpha, v, 255 - v), mask=mask)
# ===
#     tl.store(out_ptr + offs, 255 - v, mask=mask)
# >>>
