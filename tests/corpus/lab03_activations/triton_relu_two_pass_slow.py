# impl: triton
# exercise: relu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but half speed: out = x (a copy), then out = relu(out) in place: 4n elements of
#  traffic instead of 2n.)

# %% edit relu_triton
# <<<
# def relu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
# ===
# @triton.jit
# def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
#
#
# def relu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
# >>>
# <<<
#     relu_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     copy_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)  # out = x
#     relu_kernel[grid](out, out, n, BLOCK_SIZE=BLOCK_SIZE)  # out = relu(out), in place
# >>>
