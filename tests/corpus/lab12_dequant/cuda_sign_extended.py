# impl: cuda
# exercise: dequant_int4
# status: fail
# reason: lab12_dequant/dequant_int4 [
# reason: elements differ
# (Each nibble sign-extended as a 4-bit two's complement number, the shift idiom
# (int)(x << 28) >> 28, instead of the lab's offset of 8: the same range, -8 to 7, but another
# code. 0x0 gives 0 instead of -8, 0xF gives -1 instead of 7: every nibble differs (by 8), so
# every element is wrong, zero weights included.)

# %% edit dequant_int4_cu
# <<<
#         const float lo = (float)((b[j] & 0xF) - 8);
#         const float hi = (float)((b[j] >> 4) - 8);
# ===
#         const float lo = (float)((int)((unsigned)b[j] << 28) >> 28);  // bits 0-3, signed
#         const float hi = (float)((int)((unsigned)b[j] << 24) >> 28);  // bits 4-7, signed
# >>>
