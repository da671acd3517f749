# impl: triton
# status: not_implemented
# reason: not implemented: fill in the Triton vector_add_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released vector_add_triton
