# impl: triton
# exercise: mlp
# status: not_implemented
# reason: not implemented: fill in the Triton mlp_gate_up_kernel
# (The release's Triton cell of the second exercise, its two kernels and launcher stubbed: the
# grader must say "not implemented", in one line, not "wrong output" or a traceback.)

# %% released mlp_triton
