# impl: triton
# exercise: rope
# device: gpu
# status: exception
# reason: [tokens=16, heads=2, head_dim=128, half_dim=64, x rows padded by 71600000, bfloat16]
# reason-any: illegal memory access | illegal address
# (Right on every CPU shape; only offsets past 2^31 show it, so it runs on a GPU only.
# tl.program_id is 32-bit, and the token is left so (no .to(tl.int64)): so is token *
# stride_xt. In the view whose tokens are 143200256 elements apart, token 15's offset
# 2148003840 wraps to a negative one, 4 GiB before x, where nothing is mapped. (The CPU
# interpreter would segfault there, which is why this is not a CPU control.))

# %% edit rope_triton
# <<<
#     token = tl.program_id(axis=0).to(tl.int64)  # token * stride_xt can pass 2^31
# ===
#     token = tl.program_id(axis=0)  # 32-bit
# >>>
