# impl: triton
# exercise: flash_decode
# status: not_implemented
# reason: not implemented: fill in the Triton flash_decode_kernel
# (The release's Triton cell of the second exercise, its two kernels and launcher stubbed: the
# grader must say "not implemented", in one line, not "wrong output" or a traceback.)

# %% released flash_decode_triton
