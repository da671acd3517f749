# impl: triton
# exercise: attention
# status: fail
# reason: causal=1
# reason: elements differ
# (the causal mask one key late: query r also sees key r + 1. Full heads pass; every causal row
#  but the last is wrong.)

# %% edit attention_triton
# <<<
#             keep = keep & (offs_n[None, :] <= offs_m[:, None])
# ===
#             keep = keep & (offs_n[None, :] <= offs_m[:, None] + 1)  # one key in the future
# >>>
