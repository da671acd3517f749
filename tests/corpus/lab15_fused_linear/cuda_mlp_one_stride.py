# impl: cuda
# exercise: mlp
# status: fail
# reason: elements differ
# reason: [m=20, d=40, f=36, w_gate rows padded by 3, w_up rows padded by 8
# (The interleaved copy reads w_up's rows with w_gate's stride: right wherever the two weights'
#  rows are equally far apart (every public shape), wrong on the hidden shape whose w_gate is
#  padded by 3 and w_up by 8: row j of w_up read from 43 j elements in, not 48 j, across the
#  padding between rows (NaN): every element of y.)

# %% edit mlp_cu
# <<<
#     const int stride = second ? stride1 : stride0;
# ===
#     const int stride = stride0;
# >>>
