# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: out = x with a copy kernel, then out = out + y: 5 n elements of traffic
#  instead of 3 n.)

# %% edit vector_add_triton
# <<<
# def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
# ===
# @triton.jit
# def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
#
#
# def vector_add_triton(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
# >>>
# <<<
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     copy_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # out = x
#     vector_add_kernel[grid](out, y, out, n, BLOCK_SIZE=BLOCK_SIZE)  # out = out + y
# >>>
