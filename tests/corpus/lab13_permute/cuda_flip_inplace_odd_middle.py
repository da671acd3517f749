# impl: cuda
# exercise: flip_inplace
# status: fail
# reason: elements differ
# reason: [n=4099, float32]
# (The back half taken to start at n / 2, as if n were even: thread i swaps out[i] with
# out[n / 2 + (n / 2 - 1 - i)]. For an even n that is n - 1 - i; for an odd n it is
# n - 2 - i: every pair is off by one, the middle element swaps with the one before it, and
# the last element never moves: every element of out is its neighbour's (4099 of 4099
# differ). Right on every even size; n = 1 has no pair at all, so n = 4099 is the first miss.)

# %% edit flip_inplace_cu
# <<<
#         int j = n - 1 - i;
# ===
#         int half = n / 2;
#         int j = half + (half - 1 - i);  // the mirror within the back half [n / 2, n)
# >>>
