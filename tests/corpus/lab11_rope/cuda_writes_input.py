# impl: cuda
# exercise: rope_qk
# status: fail
# reason: input q was modified by the launch
# (An in-place kernel, as inference engines write RoPE inside their QKV buffer, made
# out-of-place by copying its result out afterwards (on the 16-byte path: every case whose
# rows are whole chunks): the outputs are right, but q and k were rotated where they lie.
# Inputs are read-only here; the grader compares their bits before and after every launch.)

# %% edit rope_qk_cu
# <<<
#         uint4 *dst = reinterpret_cast<uint4 *>(o);
#         dst[j / 8] = o1;
#         dst[(half_dim + j) / 8] = o2;
# ===
#         uint4 *src = reinterpret_cast<uint4 *>(const_cast<__nv_bfloat16 *>(row));
#         src[j / 8] = o1;  // in place
#         src[(half_dim + j) / 8] = o2;
#         uint4 *dst = reinterpret_cast<uint4 *>(o);
#         dst[j / 8] = src[j / 8];  // then copied out
#         dst[(half_dim + j) / 8] = src[(half_dim + j) / 8];
# >>>
