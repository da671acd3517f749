# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (correct but slow: one program per 128 elements, each with its own atomic add: 2^21 atomics
#  at 2^28 elements, all to one address, which the memory system performs one after another;
#  the notebook's hint 3 says why a fixed grid of looping programs is faster)

# %% edit vector_sum_triton
# <<<
# def vector_sum_kernel(
#     x_ptr,  # input, n_elements float32, contiguous
# ~~~
#     out.zero_()  # the programs add into out: it arrives full of NaN
#     vector_sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
# ===
# def vector_sum_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
#     offs = tl.program_id(axis=0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
#     x = tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
#     tl.atomic_add(out_ptr, tl.sum(x, axis=0))
#
#
# def vector_sum_triton(x, out):
#     n = x.numel()
#     out.zero_()
#     vector_sum_kernel[(triton.cdiv(n, 128),)](x, out, n, BLOCK_SIZE=128, num_warps=4)
# >>>
