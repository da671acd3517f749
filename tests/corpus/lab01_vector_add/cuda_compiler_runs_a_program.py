# impl: cuda
# status: compile_error
# reason: is not accepted here
# (a cheat: compiler options that make gcc run a shell command while the device process
#  compiles the kernel, where the data is; options that name a program or a file are refused)

# %% edit vector_add_cuda
# <<<
# vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
# ===
# vector_add_module_cu = SourceModule(
#     VECTOR_ADD_CU, no_extern_c=True,
#     options=["-Xcompiler", "-wrapper,/bin/sh,-c,id>/tmp/ran;exec $0 $@"])
# >>>
