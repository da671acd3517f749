# impl: triton
# exercise: swiglu
# status: not_implemented
# reason: not implemented: fill in the Triton swiglu_kernel
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released swiglu_triton
