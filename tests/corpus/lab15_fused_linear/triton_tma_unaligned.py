# impl: triton
# exercise: linear_gelu
# device: cpu
# status: exception
# reason: [m=17, k=40, n=33, bfloat16]
# reason: stride must be 16-byte aligned
# (The launcher takes the persistent TMA kernel on every call without testing TMA's rules
#  (bases 16-byte aligned, rows a multiple of 16 bytes apart). The hidden shapes with rows of w
#  padded by 5 have 40 rows, which a launcher that keeps its m > 128 test never sends through
#  the descriptors, so this one drops that test too: every shape goes through them. The first
#  to break the rules is the public 17 x 33 x 40: y's rows are 33 bfloat16s, 66 bytes, apart,
#  and Triton's interpreter refuses the descriptor. On a GPU a descriptor built in the kernel
#  with such a stride is undefined behaviour, with no verdict to promise: CPU only.)

# %% edit linear_gelu_triton
# <<<
#     # TMA's rules: bases 16-byte aligned, rows a multiple of 16 bytes apart (not w's rows
# ~~~
#                              BLOCK_SIZE_K=BLOCK_SIZE_K, num_warps=warps, num_stages=stages)
# ===
#     # Every call through tensor descriptors: neither m nor TMA's rules tested.
#     BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K = 128, 256, 64
#     tiles = triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N)
#     sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
#     programs = min(sms, tiles)  # one program per SM, no more than the tiles
#     linear_gelu_tma_kernel[(programs,)](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
#                                         BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N,
#                                         BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=8,
#                                         PROGRAMS=programs, num_warps=8, num_stages=3)
# >>>
