# impl: cuda
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (The nibbles read high first: element 2j from bits 4-7, element 2j + 1 from bits 0-3. Every
# pair comes out swapped, so about 15 of 16 elements are wrong on every shape.)

# %% edit dequant_int4_cu
# <<<
#         const float lo = (float)((b[j] & 0xF) - 8);
#         const float hi = (float)((b[j] >> 4) - 8);
# ===
#         const float lo = (float)((b[j] >> 4) - 8);  // the high nibble taken as element 2j
#         const float hi = (float)((b[j] & 0xF) - 8);
# >>>
