# impl: triton
# exercise: attention
# status: fail
# reason: causal=1
# reason: elements differ
# (the causal mask one key late: query r also sees key r + 1. The mask acts on the diagonal's
#  tiles only, which hold key r + 1 for every row but the last of each query tile (and of the
#  head): full heads pass; every other causal row is wrong.)

# %% edit attention_triton
# <<<
#                     keep = keep & (offs_n[None, :] <= offs_m[:, None])
# ===
#                     keep = keep & (offs_n[None, :] <= offs_m[:, None] + 1)  # one key late
# >>>
