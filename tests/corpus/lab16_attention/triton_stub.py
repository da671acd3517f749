# impl: triton
# exercise: attention
# status: not_implemented
# reason: not implemented
# (The release's Triton stub, as a student first receives it: the grader must say "not
# implemented", in one line, not "wrong output" or a traceback.)

# %% released attention_triton
