# impl: triton
# status: timeout
# reason: killed after 10 s
# reason: [n=1, float32]
# timeout: 10

# %% edit vector_add_triton
# <<<
#     pid = tl.program_id(axis=0)
# ===
#     pid = tl.program_id(axis=0)
#     while pid >= 0:  # pid | 1 never turns negative: the kernel never returns
#         pid = pid | 1
#         tl.store(out_ptr, tl.load(x_ptr))  # a side effect: the compiler keeps the loop
# >>>
