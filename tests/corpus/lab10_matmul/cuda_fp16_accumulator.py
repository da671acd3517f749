# impl: cuda
# exercise: matmul_fp16
# status: fail
# reason: [m=48, k=32, n=80, float16]
# reason: elements differ
# (the notebook's kernel (32-deep K tiles) with __half accumulator fragments (and so no
#  conversion in the epilogue: store_matrix_sync writes them to c directly, no scratch tile).
#  Every mma_sync rounds its running sum to float16: with k = 32 each element is rounded
#  twice, once after 16 terms and once at the end, and about 1 element in 100 already misses
#  the tolerance (16 x 16 x 16, one mma, passes); at k = 1024, 64 roundings, a third of them
#  do.)

# %% edit matmul_fp16_cu
# <<<
#     wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
# #pragma unroll
#     for (int i = 0; i < FM; ++i)
# #pragma unroll
#         for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
# ===
#     wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc[FM][FN];
# #pragma unroll
#     for (int i = 0; i < FM; ++i)
# #pragma unroll
#         for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], __float2half(0.0f));
# >>>
# <<<
#     // Epilogue: float accumulator -> scratch tile -> 8 halves per lane, one 16-byte store.
#     float *mine = scratch[warp];
# ===
#     // Epilogue: the accumulator is float16 already: stored straight into c.
# >>>
# <<<
#             wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
#             __syncwarp();  // the lanes read what other lanes stored
# ~~~
#             reinterpret_cast<uint4 *>(c + (long long)(row + r) * n + col)[lane % 2] = out;
#             __syncwarp();  // read before the next fragment overwrites the scratch tile
# ===
#             wmma::store_matrix_sync(c + (long long)row * n + col, acc[i][j], n,
#                                     wmma::mem_row_major);
# >>>
