# impl: cuda
# exercise: relu
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]
# (The tail element's read is guarded, its store is not: every thread of the grid past the
# n % PACK leftovers writes past the end of out (n = 1: one block of 256 threads, 255 of
# them).)

# %% edit relu_cu
# <<<
#     if (tail < n) {  // only the first n % PACK threads have a leftover element
#         out[tail] = from_float<T>(op(to_float(x[tail])));
#     }
# ===
#     out[tail] = tail < n ? from_float<T>(op(to_float(x[tail]))) : from_float<T>(0.0f);
# >>>
