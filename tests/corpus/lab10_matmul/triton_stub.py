# impl: triton
# exercise: matmul_fp32
# status: not_implemented
# reason: not implemented: fill in the Triton matmul_fp32_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released matmul_fp32_triton
