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
#     BLOCK_SIZE = 4096
#     max_programs = 1024  # a few per SM: few atomics, every SM busy
#     grid = (min(triton.cdiv(n, BLOCK_SIZE), max_programs),)
#     out.zero_()  # the programs add into out: it arrives full of NaN
#     vector_sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=8)
# ===
#     BLOCK_SIZE = 128
#     grid = (triton.cdiv(n, BLOCK_SIZE),)  # one program per tile: its loop runs once
#     out.zero_()  # the programs add into out: it arrives full of NaN
#     vector_sum_kernel[grid](x, out, n, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
# >>>
