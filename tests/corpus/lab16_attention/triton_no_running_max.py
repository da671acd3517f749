# impl: triton
# exercise: attention
# status: fail
# reason: q scale=40.0
# reason: elements differ
# (the softmax without its running max: p = exp2(x) of the raw scores, l and acc summed as they
#  come. Right while the scores are small (every public shape: standard normal), but with q
#  scaled by 40 the scores reach 100 and more, exp overflows float32 to inf, and o becomes
#  inf / inf = NaN on the rows that hold such a score.)

# %% edit attention_triton
# <<<
#             # exp2(-inf - m_new) = 0 (the first tile's alpha, and every masked p).
#             m_new = tl.maximum(m_i, tl.max(x, axis=1))
# ===
#             # exp2(-inf - m_new) = 0 (the first tile's alpha, and every masked p).
#             m_new = tl.zeros((BLOCK_M,), dtype=tl.float32)  # no running max: exp2 of raw scores
# >>>
