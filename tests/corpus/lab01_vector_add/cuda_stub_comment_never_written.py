# impl: cuda
# status: fail
# reason: never written
# (the release's `// YOUR CODE HERE` is still there above a body that never stores: that is
#  "never written", not "not implemented")

# %% edit vector_add_cu
# <<<
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
# ===
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
#     // YOUR CODE HERE
# >>>
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
