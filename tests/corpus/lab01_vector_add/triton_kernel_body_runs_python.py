# impl: triton
# status: compile_error
# reason: is not part of Triton's language
# (a cheat: a kernel body that reaches Python's os module through triton's own modules; Triton's
#  front end would call it while compiling, and the interpreter would run it, in the process
#  that holds the data: the device refuses to build it)

# %% edit vector_add_triton
# <<<
#     pid = tl.program_id(axis=0)
# ===
#     triton.knobs.os.system("echo from the kernel")
#     pid = tl.program_id(axis=0)
# >>>
