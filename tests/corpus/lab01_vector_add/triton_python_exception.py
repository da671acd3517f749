# impl: triton
# status: exception
# reason: TypeError
# reason: [n=1, float32]

# %% edit vector_add_triton
# <<<
#     n = out.numel()
# ===
#     n = out.numel  # a method, not a number: cdiv fails
# >>>
