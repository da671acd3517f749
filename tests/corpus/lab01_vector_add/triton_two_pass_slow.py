# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit vector_add_triton
# <<<
# def vector_add_kernel(
#     x_ptr,  # first input: float32, float16 or bfloat16
# ~~~
#     grid = (triton.cdiv(n, BLOCK_SIZE),)
#     vector_add_kernel[grid](x, y, out, n, BLOCK_SIZE=BLOCK_SIZE)
# ===
# def vector_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
#              mask=mask)
#
#
# @triton.jit
# def copy_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_elements
#     tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
#
#
# def vector_add_triton(x, y, out):
#     # Correct but slow: out = x, then out = out + y: 5 n floats of traffic instead of 3 n.
#     n = out.numel()
#     grid = (triton.cdiv(n, 1024),)
#     copy_kernel[grid](x, out, n, BLOCK_SIZE=1024)
#     vector_add_kernel[grid](out, y, out, n, BLOCK_SIZE=1024)
# >>>
