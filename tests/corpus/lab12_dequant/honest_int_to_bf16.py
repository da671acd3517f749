# impl: triton
# exercise: dequant_int4
# status: pass
# (honest work: each int32 nibble converted straight to bfloat16, which is exact; without a
#  GPU the Triton interpreter must convert the value, not reinterpret its bits)

# %% edit dequant_int4_triton
# <<<
#     lo = ((b & 0xF) - 8).to(tl.float32) * s[:, None]  # elements 2j: the low nibbles
#     hi = ((b >> 4) - 8).to(tl.float32) * s[:, None]  # elements 2j + 1: the high nibbles
# ===
#     # Each nibble converted straight to bfloat16 (exact: -8..7), widened for the product.
#     lo = ((b & 0xF) - 8).to(tl.bfloat16).to(tl.float32) * s[:, None]
#     hi = ((b >> 4) - 8).to(tl.bfloat16).to(tl.float32) * s[:, None]
# >>>
