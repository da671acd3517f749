# impl: triton
# exercise: leaky_relu
# status: pass
# (honest work: the leaky_relu cell calls a Python helper and a @triton.jit helper that the
#  relu cell above defined, as a notebook (one namespace) allows; the grader builds the host's
#  module and the device's kernels from the cells above the exercise's too)

# %% edit relu_triton
# <<<
# @triton.jit
# def relu_kernel(
# ===
# @triton.jit
# def load_f32(ptr, offs, mask):
#     return tl.load(ptr + offs, mask=mask).to(tl.float32)
#
#
# def one_dim_grid(n: int, block: int) -> tuple[int]:
#     return (triton.cdiv(n, block),)
#
#
# @triton.jit
# def relu_kernel(
# >>>

# %% edit leaky_relu_triton
# <<<
#     x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
# ===
#     x = load_f32(x_ptr, offs, mask)  # defined in the relu cell
# >>>
# <<<
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
# ===
#     grid = one_dim_grid(n, BLOCK_SIZE)  # defined in the relu cell
# >>>
