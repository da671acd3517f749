# impl: triton
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (The nibbles used as they are, 0 to 15, without subtracting the offset 8: every weight is
# 8 * scale too large, so every element is wrong.)

# %% edit dequant_int4_triton
# <<<
#     lo = ((b & 0xF) - 8).to(tl.float32) * s[:, None]  # elements 2j: the low nibbles
#     hi = ((b >> 4) - 8).to(tl.float32) * s[:, None]  # elements 2j + 1: the high nibbles
# ===
#     lo = (b & 0xF).to(tl.float32) * s[:, None]  # 0 to 15: no offset
#     hi = (b >> 4).to(tl.float32) * s[:, None]
# >>>
