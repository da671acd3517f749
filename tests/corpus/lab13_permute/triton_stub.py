# impl: triton
# exercise: flip
# status: not_implemented
# reason: not implemented: fill in the Triton flip_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released flip_triton
