# impl: triton
# status: compile_error
# reason: is not available in a Triton kernel
# (a cheat: the kernel body calls a plain Python function of the cell, which Triton's front end
#  would call while compiling and the interpreter would run, in the process that holds the
#  data: the device builds kernels from their source and refuses the call)

# %% edit softmax_triton
# <<<
# @triton.jit
# ===
# import torch as _torch
#
#
# def _answer(x_ptr):
#     return _torch.softmax(_torch.zeros(1), 0)
#
#
# @triton.jit
# >>>
# <<<
#     row = tl.program_id(0).to(tl.int64)  # row * stride can pass 2^31 on large inputs
# ===
#     _answer(x_ptr)
#     row = tl.program_id(0).to(tl.int64)  # row * stride can pass 2^31 on large inputs
# >>>
