# impl: triton
# status: timeout
# reason: killed after 10 s
# timeout: 10

# %% edit vector_add_triton
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     while True:  # a Python loop that never ends, before any launch
#         pass
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# >>>
