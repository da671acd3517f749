# impl: cuda
# exercise: silu
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (The lab's silu with double literals and exp(): `1.0 / (1.0 + exp(-a))` promotes the
#  exponential, the addition and the division to double precision. The result is correct (more
#  accurate, if anything), so no CPU check can honestly refuse it; on the GPU the double-
#  precision units (on an H200 half as many as float32's; exp and division are each tens of
#  double instructions) make it compute-bound: slower than the reference, above all in 16-bit
#  dtypes, where the memory time to hide it behind is half as long.)

# %% edit silu_cu
# <<<
#     auto op = [](float v) {
#         float e = __expf(-fabsf(v));           // in (0, 1]: never overflows
#         float r = __fdividef(1.0f, 1.0f + e);  // the divisor is in [1, 2]
#         return v * (v >= 0.0f ? r : e * r);    // -inf * 0 = NaN, as in torch
#     };
# ===
#     auto op = [](float v) {
#         double a = fabs(v);
#         double r = 1.0 / (1.0 + exp(-a));      // double: 1.0 and exp(double)
#         double s = v >= 0.0 ? r : (1.0 - r);
#         return (float)(v * s);
#     };
# >>>
