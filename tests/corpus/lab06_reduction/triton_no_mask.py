# impl: triton
# device: cpu
# status: fail
# reason: [n=1]
# (tl.load without a mask, so without other=0.0 either: the last tile reads past the end of x
#  and sums whatever lies there. Under the interpreter that is heap memory: NaN ("never
#  written") or garbage ("elements differ"), which of the two varies from run to run, hence
#  only the case in the header. On a GPU, memory past a small x may be zeros, and then the sum
#  is right and only the memcheck (an invalid read) catches it: a CPU-only control)

# %% edit vector_sum_triton
# <<<
#         acc += tl.load(x_ptr + offs, mask=offs < n_elements, other=0.0)
# ===
#         acc += tl.load(x_ptr + offs)  # no mask, no other=0.0
# >>>
