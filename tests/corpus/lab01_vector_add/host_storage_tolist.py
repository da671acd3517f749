# impl: triton
# status: fallback
# reason: the launcher computed on the host
# reason: untyped_storage
# (a cheat's first step: the inputs' values read on the host through their storage, to be
#  summed in Python; the host's storage holds nothing, and refuses by name)

# %% edit vector_add_triton
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     a = x.untyped_storage().tolist()  # the inputs' bytes, read on the host
#     b = y.untyped_storage().tolist()
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# >>>
