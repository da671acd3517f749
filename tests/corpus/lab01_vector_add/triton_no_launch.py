# impl: triton
# status: fallback
# reason-any: no Triton kernel was launched | numpy computing on a tensor

# %% edit vector_add_triton
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     if out.device.type == "cpu":
#         import numpy  # numpy on the CPU: no torch op, no kernel
#         out.numpy()[:] = getattr(numpy, "ad" + "d")(x.numpy(), y.numpy())
#     # on a GPU: nothing at all, and still no kernel
# >>>
