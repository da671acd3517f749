# impl: cuda
# exercise: matmul_fp16
# status: pass
# (honest work, the step before the notebook's kernel: the notebook's kernel with one K tile
#  buffer (STAGES 1), a 128 x 128 block tile and 8 warps of 64 x 32, staged in shared memory
#  by plain 16-byte loads: load, barrier, multiply, barrier. No cp.async, no overlap of loads
#  and tensor-core work. Slower on a GPU, right everywhere.)

# %% edit matmul_fp16_cu
# <<<
# #define BM 256      // rows of c per block
# #define BN 128      // columns of c per block
# #define BK 32       // depth of one K tile
# #define STAGES 3    // K tile buffers: 2 tiles in flight while one is multiplied
# #define WM 64       // rows of c per warp
# #define WN 64       // columns of c per warp: 4 x 4 fragments, each fragment load feeds 4 products
# ===
# #define BM 128      // rows of c per block
# #define BN 128      // columns of c per block
# #define BK 32       // depth of one K tile
# #define STAGES 1    // one K tile buffer: loaded, multiplied, then loaded again
# #define WM 64       // rows of c per warp
# #define WN 32       // columns of c per warp: 4 x 2 fragments
# >>>
# <<<
# // 1 block per SM: a thread may use up to 255 registers. It needs them: 16 accumulator
# // fragments (128 floats) and two sets of 4 + 4 operand fragments (64 registers). One block of
# // 8 warps has enough independent products (16 per slice per warp) to keep the tensor cores fed.
# ===
# // 8 warps of 64 x 32: 8 accumulator fragments (64 floats) and two sets of 4 + 2 operand
# // fragments per thread.
# >>>
# <<<
#     // Start the copies of the K tile at k0 into buffer buf. A piece outside the matrices (the
#     // block tile past m or n, the K tile past k) is a copy of 0 bytes with 16 bytes of zero
#     // fill (the last argument): every thread makes the same calls, and its source, never read,
#     // is the matrix's start.
# ===
#     // Load the K tile at k0 into buffer buf, 16 bytes at a time through registers (plain
#     // loads and stores, no cp.async). A piece outside the matrices (the block tile past m or
#     // n, the K tile past k) is 16 bytes of zeros.
# >>>
# <<<
#             __pipeline_memcpy_async(&as[buf][ar + p * A_ROWS][ac], inside ? src : a, 16,
#                                     inside ? 0 : 16);
# ===
#             *reinterpret_cast<uint4 *>(&as[buf][ar + p * A_ROWS][ac]) =
#                 inside ? *reinterpret_cast<const uint4 *>(src) : make_uint4(0, 0, 0, 0);
# >>>
# <<<
#             __pipeline_memcpy_async(&bs[buf][br + p * B_ROWS][bc], inside ? src : b, 16,
#                                     inside ? 0 : 16);
# ===
#             *reinterpret_cast<uint4 *>(&bs[buf][br + p * B_ROWS][bc]) =
#                 inside ? *reinterpret_cast<const uint4 *>(src) : make_uint4(0, 0, 0, 0);
# >>>
# <<<
#     // The pipeline: STAGES - 1 K tiles in flight ahead of the one multiplied. Tiles past k
#     // are issued too, all zero fill: every K tile step commits one batch, so
# ~~~
#             else  // ... or slice 0 of the next tile (SLICES is even: set 0)
#                 load(0, next, 0);
# ===
#     // One K tile at a time: loaded, __syncthreads(), multiplied, __syncthreads(), and only
#     // then is the next one loaded (no overlap of the loads with the tensor-core work).
#     const int k_tiles = (k + BK - 1) / BK;
#     for (int t = 0; t < k_tiles; ++t) {
#         issue(0, t * BK);
#         __syncthreads();  // the tile is complete before any warp loads its fragments
#         load(0, 0, 0);
# #pragma unroll
#         for (int s = 0; s < SLICES; ++s) {
#             if (s + 1 < SLICES)  // slice s + 1 into the other register set
#                 load((s + 1) % 2, 0, (s + 1) * 16);
# >>>
# <<<
#         buf = next;
#     }
#     __pipeline_wait_prior(0);  // the zero fills past k have landed too
#     __syncthreads();           // the buffers become the scratch tiles: every warp is done
# ===
#         // Every warp is done with the tile before it is overwritten (by the next tile, or,
#         // after the last, by the scratch tiles).
#         __syncthreads();
#     }
# >>>

# %% edit matmul_fp16_cuda
# <<<
#     per 256 x 128 tile of c.
# ===
#     per 128 x 128 tile of c.
# >>>
# <<<
#     bm, bn, bk, pad, stages = 256, 128, 32, 8, 3  # BM, BN, BK, PAD, STAGES in MATMUL_FP16_CU
# ===
#     bm, bn, bk, pad, stages = 128, 128, 32, 8, 1  # BM, BN, BK, PAD, STAGES in MATMUL_FP16_CU
# >>>
# <<<
#         shared=smem,  # 87552 bytes, over 48 KiB: SourceModule's launch makes the opt-in
# ===
#         shared=smem,  # 18944 bytes
# >>>
