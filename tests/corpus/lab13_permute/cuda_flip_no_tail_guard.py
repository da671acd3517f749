# impl: cuda
# exercise: flip
# status: fail
# reason: out-of-bounds write
# reason: [n=1, float32]
# (The tail's read is guarded, its store is not: every thread of the grid past the n % PACK
# leftovers writes past the end of out (n = 1: one block of 256 threads, 255 of them).)

# %% edit flip_cu
# <<<
#     if (tail < n) {  // only the first n % PACK threads have one
#         out[tail] = x[n - 1 - tail];
#     }
# ===
#     out[tail] = tail < n ? x[n - 1 - tail] : T(0);
# >>>
