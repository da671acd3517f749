# impl: cuda
# exercise: matmul_fp32
# device: gpu
# status: exception
# reason: [m=16, k=1000, n=64, a rows padded by 143165000]
# reason-any: illegal memory access | illegal address
# (the notebook's kernel with a's offset in fetch computed in 32 bits: row * stride_am with
#  unsigned factors (as students' index expressions usually are), narrowed to int. Right on
#  every CPU shape; on the GPU suite's first case a's row 15 starts 2147490000 floats in, and
#  the narrowed offset points 8 GiB before a, where nothing is mapped.)

# %% edit matmul_fp32_cu
# <<<
#         const float *pa = a + (long long)arow * stride_am + acol;  // 64-bit: row * stride
# ===
#         const float *pa = a + (int)((unsigned)arow * stride_am + acol);
# >>>
