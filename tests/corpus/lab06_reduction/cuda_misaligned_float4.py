# impl: cuda
# device: gpu
# status: exception
# reason: misaligned address
# reason: [n=1000, x offset]
# (float4 loads straight from x: legal only when x starts on a 16-byte boundary. The public
#  case whose x starts one float into its storage makes the float4 loads misaligned, and a GPU
#  faults. The CPU backend does not: x86 loads need no alignment, so on a CPU this kernel
#  passes; hence a GPU-only control)

# %% edit vector_sum_cu
# <<<
#     int head = (int)((16 - (size_t)x % 16) % 16) / 4;
#     if (head > n) head = n;
# ===
#     const int head = 0;  // assumes x is 16-byte aligned
# >>>
