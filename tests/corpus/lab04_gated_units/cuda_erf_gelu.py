# impl: cuda
# exercise: geglu_packed
# status: fail
# reason: elements differ
# (GELU's exact erf form instead of the tanh form the lab asks for: at most 4.7e-4 apart, but
# 3% of the value at gate = -2.5 and 11% at -3, far beyond bfloat16's rtol 8e-3. About 1% of
# standard-normal gates are below -2.3, so every case above a few hundred elements fails.)

# %% edit geglu_packed_cu
# <<<
#     const float y = 0.7978845608028654f * (g + 0.044715f * g * g * g);
#     return g / (1.0f + __expf(-2.0f * y));
# ===
#     return 0.5f * g * (1.0f + erff(g * 0.70710678f));  // the exact erf form
# >>>
