# impl: cuda
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]

# %% edit vector_add_cu
# <<<
#     if (tail < n) {  // only the first n % PACK threads have a leftover element
#         out[tail] = from_float<T>(to_float(x[tail]) + to_float(y[tail]));
#     }
# ===
#     // Reads are guarded, the store is not: every thread past the tail writes past the end.
#     out[tail] = tail < n ? from_float<T>(to_float(x[tail]) + to_float(y[tail]))
#                          : from_float<T>(0.0f);
# >>>
