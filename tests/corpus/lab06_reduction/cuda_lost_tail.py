# impl: cuda
# status: fail
# reason: [n=1]
# reason: elements differ
# (float4 loads over n / 4 whole float4s, and nothing for the n % 4 floats after them: n = 1
#  sums nothing; the kernel also handles the unaligned head, so only the tail is lost)

# %% edit vector_sum_cu
# <<<
#     if (i < n - tail) v += x[tail + i];
# ===
# >>>
