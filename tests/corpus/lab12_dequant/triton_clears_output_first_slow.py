# impl: triton
# exercise: dequant_int8
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (Correct but slow: the output is cleared by a kernel of its own before the dequantising one
#  writes every element of it, a habit from kernels that accumulate. The bfloat16 output is
#  two thirds of the traffic: writing it twice moves 5/3 the minimum bytes. The profile's
#  extra-writes control.)

# %% edit dequant_int8_triton
# <<<
# @triton.jit
# def dequant_int8_kernel(
# ===
# @triton.jit
# def zero_kernel(out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     tl.store(out_ptr + offs, tl.zeros([BLOCK_SIZE], dtype=out_ptr.dtype.element_ty),
#              mask=offs < n_elements)
#
#
# @triton.jit
# def dequant_int8_kernel(
# >>>
# <<<
#     BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))  # not far above cols
# ===
#     zero_kernel[(triton.cdiv(out.numel(), 4096),)](out, out.numel(), BLOCK_SIZE=4096,
#                                                    num_warps=8)
#     BLOCK_SIZE = max(16, min(triton.next_power_of_2(cols), 4096))  # not far above cols
# >>>
