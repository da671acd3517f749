# impl: triton
# status: pass
# (honest work: @triton.autotune with a grid lambda, the tutorials' pattern; without a GPU the
#  interpreter cannot time configs, and every config must still run)

# %% edit vector_add_triton
# <<<
# @triton.jit
# ===
# @triton.autotune(
#     configs=[triton.Config({"BLOCK_SIZE": 512}), triton.Config({"BLOCK_SIZE": 1024})],
#     key=["n_elements"],
# )
# @triton.jit
# >>>
# <<<
#     BLOCK_SIZE = 1024
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
#     vector_add_kernel[grid](x, y, out, n)
# >>>
