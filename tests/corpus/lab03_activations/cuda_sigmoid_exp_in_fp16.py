# impl: cuda
# exercise: sigmoid
# status: fail
# reason: [n=1999, x scale=100.0, float16]
# reason: elements differ
# ("Compute in the storage type": exp(-x) is computed and kept in T, with hexp for __half.
# float32 is right; in float16 exp(-x) overflows to inf for x < -11.09 (65504 = e^11.09), so
# sigmoid(x) comes out 0 where it is 1.5e-5 .. 1e-6, beyond float16's atol (1e-6). About 1%
# of inputs scaled by 100 fall there (~20 of 1999). bfloat16 has float32's range: it would
# only lose precision.)

# %% edit sigmoid_cu
# <<<
# // out = sigmoid(x) for n elements of type T.
# ===
# // exp in the storage type.
# __device__ __forceinline__ float exp_t(float v) { return __expf(v); }
# __device__ __forceinline__ __half exp_t(__half v) { return hexp(v); }
# __device__ __forceinline__ __nv_bfloat16 exp_t(__nv_bfloat16 v)
# {
#     return __float2bfloat16_rn(__expf(__bfloat162float(v)));
# }
#
# // out = sigmoid(x) for n elements of type T.
# >>>
# <<<
#     auto op = [](float v) {
#         float e = __expf(-fabsf(v));            // in (0, 1]: never overflows
#         float r = __fdividef(1.0f, 1.0f + e);   // sigmoid(|v|); the divisor is in [1, 2]
#         return v >= 0.0f ? r : e * r;           // NaN: v >= 0 is False and e * r is NaN
#     };
# ===
#     auto op = [](float v) {
#         T e = exp_t(from_float<T>(-v));  // exp(-x), in T
#         return 1.0f / (1.0f + to_float(e));
#     };
# >>>
