# impl: cuda
# exercise: swiglu
# status: fail
# reason: out-of-bounds write
# reason: [n_rows=1, h=1, bfloat16]

# %% edit swiglu_cu
# <<<
#     if (tail < n) {  // only the first n % 8 threads have a leftover element
#         out[tail] = __float2bfloat16_rn(silu(__bfloat162float(gate[tail])) *
#                                         __bfloat162float(up[tail]));
#     }
# ===
#     // The reads are guarded, the store is not: every thread past the tail writes past the end.
#     const float v =
#         tail < n ? silu(__bfloat162float(gate[tail])) * __bfloat162float(up[tail]) : 0.0f;
#     out[tail] = __float2bfloat16_rn(v);
# >>>
