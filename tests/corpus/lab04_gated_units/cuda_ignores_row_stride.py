# impl: cuda
# exercise: swiglu_packed
# status: fail
# reason: elements differ
# reason: [n_rows=127, two_h=256, h=128, bfloat16]
# (Row r's gate taken at r * h, the output's row stride, instead of r * stride_xr (2h): row 0
# is right, every other row reads the wrong columns. The first case has one row: it passes.)

# %% edit swiglu_packed_cu
# <<<
#     const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * stride_xr;  // 64-bit row offsets
# ===
#     const __nv_bfloat16 *gate = x + (size_t)blockIdx.x * h;  // should be * stride_xr
# >>>
