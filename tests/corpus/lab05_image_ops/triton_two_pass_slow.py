# impl: triton
# exercise: invert
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% edit invert_triton
# <<<
# @triton.jit
# def invert_kernel(
# ===
# @triton.jit
# def copy_kernel(src_ptr, dst_ptr, n_bytes, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     mask = offs < n_bytes
#     tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)
#
#
# @triton.jit
# def invert_kernel(
# >>>
# <<<
#     invert_kernel[grid](rgba, out, n_bytes, BLOCK_SIZE=BLOCK_SIZE)
# ===
#     # Correct but slow: out = rgba, then out inverted in place: 16 bytes of traffic per pixel
#     # instead of 8.
#     copy_kernel[grid](rgba, out, n_bytes, BLOCK_SIZE=BLOCK_SIZE)
#     invert_kernel[grid](out, out, n_bytes, BLOCK_SIZE=BLOCK_SIZE)
# >>>
