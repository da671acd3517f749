# impl: triton
# exercise: dequant_int4
# status: fail
# reason: elements differ
# reason: [out_features=3, in_bytes=128, groups=2, in_features=256, bfloat16]
# (The scale's group counted in packed bytes: byte j of a row takes scale j // 128, so a
# scale covers 256 weights instead of 128. Right while a row has a single group (the first
# shape, 128 columns); from the second group of a row on, the wrong scale: the 256-column
# shape fails.)

# %% edit dequant_int4_triton
# <<<
#     s = tl.load(scale_ptr + row * stride_sr + grp, mask=mask).to(tl.float32)
#     lo = ((b & 0xF) - 8).to(tl.float32) * s[:, None]  # elements 2j: the low nibbles
#     hi = ((b >> 4) - 8).to(tl.float32) * s[:, None]  # elements 2j + 1: the high nibbles
# ===
#     # The byte's position in its row, and a group per 128 of them (should be 64: 128 weights).
#     byte_in_row = grp[:, None] * (GROUP_SIZE // 2) + tl.arange(0, GROUP_SIZE // 2)[None, :]
#     s = tl.load(scale_ptr + row[:, None] * stride_sr + byte_in_row // 128,
#                 mask=mask[:, None]).to(tl.float32)
#     lo = ((b & 0xF) - 8).to(tl.float32) * s  # elements 2j: the low nibbles
#     hi = ((b >> 4) - 8).to(tl.float32) * s  # elements 2j + 1: the high nibbles
# >>>
