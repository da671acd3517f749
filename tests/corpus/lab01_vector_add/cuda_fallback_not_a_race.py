# impl: cuda
# device: cpu
# status: fallback
# reason: the launcher computed on the host
# (without a GPU every CUDA launch runs again in reverse thread order; that rerun must not
#  turn a fallback into a "race")

# %% edit vector_add_cu
# <<<
#         reinterpret_cast<uint4 *>(out)[i] = c;
# ===
#         (void)c;  // the store is missing
# >>>
# <<<
#         out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]));
# ===
#         (void)tail;
# >>>

# %% edit vector_add_cuda
# <<<
#     blocks = max(triton.cdiv(n // pack, threads), 1)
# ===
#     blocks = max(triton.cdiv(n // pack, threads), 1)
#     getattr(out, "co" + "py_")(x + y)  # torch does the work, out of the scan's sight
# >>>
