# impl: triton
# exercise: invert
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit invert_triton
# <<<
# def invert_kernel(
#     rgba_ptr,  # input: n_pixels pixels of 4 bytes, R G B A
# ~~~
#     grid = (triton.cdiv(n_bytes, BLOCK_SIZE),)
#     invert_kernel[grid](rgba, out, n_bytes, BLOCK_SIZE=BLOCK_SIZE)
# ===
# def copy_kernel(src_ptr, dst_ptr, n_bytes, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_bytes
#     tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)
#
#
# @triton.jit
# def invert_kernel(rgba_ptr, out_ptr, n_bytes, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_bytes
#     v = tl.load(rgba_ptr + offs, mask=mask)
#     tl.store(out_ptr + offs, tl.where(offs % 4 == 3, v, 255 - v), mask=mask)
#
#
# def invert_triton(rgba, out):
#     # Correct but slow: out = rgba, then out inverted in place: 16 bytes of traffic per pixel
#     # instead of 8.
#     n_bytes = out.numel()
#     grid = (triton.cdiv(n_bytes, 4096),)
#     copy_kernel[grid](rgba, out, n_bytes, BLOCK_SIZE=4096)
#     invert_kernel[grid](out, out, n_bytes, BLOCK_SIZE=4096)
# >>>
