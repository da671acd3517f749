# impl: triton
# exercise: flash_decode
# status: fail
# reason: q scale=40.0
# reason: elements differ
# (The splits' partials combined without their max: each weighted by exp2(m_t) of its raw max
#  instead of exp2(m_t - m). The same function in exact arithmetic, and right while the scores
#  are small (every public shape: standard normal, m_t below 10 in base 2). With q scaled by 40
#  the maxima reach 100 to 200 (base 2), exp2 overflows float32 past 128, and o becomes
#  inf / inf or (inf - inf) / inf = NaN.)

# %% edit flash_decode_triton
# <<<
#     w = tl.exp2(m_t - m)  # at most 1; 0 on the rows past splits
# ===
#     w = tl.exp2(m_t)  # each split weighted by exp of its raw max: no common max
# >>>
