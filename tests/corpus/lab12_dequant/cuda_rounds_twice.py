# impl: cuda
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (The output rounded twice: n * s - 8 * s with n * s kept in a bfloat16 variable, as a kernel
# that folds the offset into a precomputed bias would. n * s (up to 12 significant bits) is
# rounded to bfloat16 before the subtraction, which is rounded again; where n - 8 is small the
# first rounding's error is several ulp of the result (n = 9: up to 4.5 ulp). About one element
# in eight fails the one-ulp tolerance. The roundings are explicit conversions: written with
# __nv_bfloat16 operators instead (`bf16(n) * sb - bias`), nvcc contracts the multiply and the
# subtraction into one fma that rounds once, and that kernel is correct on a GPU (measured on
# an H200: 17/17 shapes), while the CPU backend rounds after each operator.)

# %% edit dequant_int4_cu
# <<<
#         const float lo = (float)((b[j] & 0xF) - 8);
#         const float hi = (float)((b[j] >> 4) - 8);
#         o2[j] = __floats2bfloat162_rn(lo * s, hi * s);  // exact products, one rounding each
# ===
#         const float bias = 8.0f * s;  // the offset, scaled (exact)
#         // n * s kept in bfloat16 (one rounding), then the bias subtracted (a second one)
#         const __nv_bfloat16 lo_ns = __float2bfloat16_rn((float)(b[j] & 0xF) * s);
#         const __nv_bfloat16 hi_ns = __float2bfloat16_rn((float)(b[j] >> 4) * s);
#         o2[j] = __floats2bfloat162_rn(__bfloat162float(lo_ns) - bias,
#                                       __bfloat162float(hi_ns) - bias);
# >>>
