# impl: triton
# exercise: relu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit relu_triton
# <<<
# @triton.jit
# def relu_kernel(
# ~~~
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     relu_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
# # Correct but half speed: out = x (a copy), then out = relu(out) in place: 4n elements of
# # traffic instead of 2n.
# @triton.jit
# def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
#     tl.store(out_ptr + offs, tl.where(x < 0.0, 0.0, x).to(out_ptr.dtype.element_ty), mask=mask)
#
#
# @triton.jit
# def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
#
#
# def relu_triton(x, out):
#     n = out.numel()
#     grid = (triton.cdiv(n, 1024),)
#     copy_kernel[grid](x, out, n, BLOCK_SIZE=1024)
#     relu_kernel[grid](out, out, n, BLOCK_SIZE=1024)
# >>>
