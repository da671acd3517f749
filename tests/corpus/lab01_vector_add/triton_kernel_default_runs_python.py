# impl: triton
# status: compile_error
# reason: a kernel argument's default must be
# (a cheat: Python in a kernel argument's default, which runs when the function is defined:
#  the device builds kernels from their source and refuses it)

# %% edit vector_add_triton
# <<<
#     BLOCK_SIZE: tl.constexpr,  # elements per program
# ===
#     BLOCK_SIZE: tl.constexpr = __import__("os").getpid() % 1 + 1024,  # elements per program
# >>>
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     vector_add_kernel[grid](x, y, out, n)
# >>>
