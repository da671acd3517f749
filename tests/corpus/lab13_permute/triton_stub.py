# impl: triton
# exercise: reverse
# status: not_implemented
# reason: not implemented: fill in the Triton reverse_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released reverse_triton
