# impl: triton
# status: fail
# reason: never written
# reason: returned a float16 tensor of shape (1,)

# %% edit vector_add_triton
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     result = torch.empty(x.shape, dtype=torch.float16, device=x.device)  # its own output
#     vector_add_kernel[grid](x, y, result, n, BLOCK_SIZE=BLOCK_SIZE)
#     return result
# >>>
