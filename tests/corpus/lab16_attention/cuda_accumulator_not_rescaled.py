# impl: cuda
# exercise: attention
# status: fail
# reason: elements differ
# (the accumulator's fragments never multiplied by alpha: l follows the running max, the sums
#  of p . v already in the accumulator do not. Right where a head is one K/V tile long
#  (s <= 64), wrong on the rows whose max moves in a later tile: on standard-normal scores it
#  moves little (a few hundred elements off by about 1e-2 at s = 80), with q scaled by 40 (a
#  hidden shape) by tens, and the old terms then outweigh the new ones entirely. The shuffle
#  path moves a max only where it passes the old by more than 8 (lazy rescaling): on
#  standard-normal scores at the first tile alone, where the accumulator is zero, so there
#  the q-scaled shapes fail it.)

# %% edit attention_cu
# ... the shuffle path (the GPU's fragment map)
# <<<
# #pragma unroll
#                     for (int j = 0; j < D / 16; ++j)
# #pragma unroll
#                         for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e / 2 % 2];
# ===
# >>>
# ... the exchange path (any other map: the CPU backend's)
# <<<
# #pragma unroll
#                 for (int j = 0; j < D / 16; ++j)
# #pragma unroll
#                     for (int e = 0; e < E; ++e) acc[mt][j].x[e] *= alpha[e];
# ===
# >>>
