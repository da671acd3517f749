# impl: triton
# exercise: flash_decode
# status: fail
# reason: [b=1, hq=8, d=128, hkv=2, s=200
# reason: elements differ
# (The keys past s not masked in the scores: their loads still give zeros, so each scores 0
#  and adds exp2(0 - m) to l (and nothing to acc): o shrinks. Right where s is a multiple of
#  64; wrong on the first public shape, whose last tile holds 8 keys and 56 zeros.)

# %% edit flash_decode_triton
# <<<
#         x = tl.where(offs_n[None, :] < s, x, float("-inf"))  # a zero key would score 0
# ===
# >>>
