# impl: triton
# status: fallback
# reason: the launcher reads device values on the host (Tensor.item())
# (a launcher that reads a device value on the host to size its launch: the host has no device
#  values, and the verdict says so)

# %% edit vector_add_triton
# <<<
#     BLOCK_SIZE = 1024
# ===
#     BLOCK_SIZE = 1024 if x[0].item() < 1e30 else 256
# >>>
