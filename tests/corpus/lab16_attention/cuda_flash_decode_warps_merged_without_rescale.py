# impl: cuda
# exercise: flash_decode
# status: fail
# reason: elements differ
# (The block's warps merged by adding their partials as they are, without the weights
#  exp2(m_w - m) that rescale each to the common max: every warp's sums were taken against its
#  own running max, so a warp whose max is below the split's counts as if it were the split's.
#  The split's m is still the max of the warps'. Right where a split has one 16-key tile (one
#  warp with keys), wrong on every shape with a split of more.)

# %% edit flash_decode_cu
# <<<
#             const float wt = exp2f(st[w][1][g] - mx);  // 0 for a warp that had no tile
# ===
#             const float wt = 1.0f;  // each warp's partial as it is
# >>>
