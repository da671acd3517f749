# impl: cuda
# exercise: matmul_fp16
# device: cpu
# status: race
# reason: [m=16, k=16, n=16, float16]
# reason: A missing __syncthreads()?
# (the notebook's kernel without the __syncthreads() after the first
#  __pipeline_wait_prior(STAGES - 2), before K tile 0's first fragments are loaded: a thread
#  waits for its own copies only, and then loads fragments that other threads' copies fill.
#  The CPU backend lands each copy at its thread's wait and starts shared memory as NaN, so
#  in one thread order a warp reads pieces not yet landed and in the other different ones: the
#  two runs differ. On a GPU the copies land whenever they do: a CPU-only control.)

# %% edit matmul_fp16_cu
# <<<
#     __pipeline_wait_prior(STAGES - 2);  // tile 0 has landed (this thread's copies)
#     __syncthreads();                    // ... every thread's
#     load(0, 0, 0);
# ===
#     __pipeline_wait_prior(STAGES - 2);  // tile 0 has landed (this thread's copies)
#     load(0, 0, 0);
# >>>
