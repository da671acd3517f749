# impl: triton
# exercise: relu
# status: not_implemented
# reason: not implemented: fill in the Triton relu_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released relu_triton
