V1 = [  # one barrier per K tile: it certifies tile t landed AND tile t - 1's buffer free
    ("""    for (int t = 0; t < k_tiles; ++t) {
        if (t + 1 < k_tiles) load_tile((t + 1) % 2, (t + 1) * BK);  // the next tile travels...
        __pipeline_commit();  // (an empty batch on the last step keeps the count uniform)
        __pipeline_wait_prior(1);  // ... while this one, landed, is multiplied
        __syncthreads();           // every thread's copies of tile t are visible
""", """    for (int t = 0; t < k_tiles; ++t) {
        __pipeline_wait_prior(0);  // tile t has landed (this thread's copies)
        __syncthreads();  // every thread's, and every warp is done with tile t - 1's buffer
        if (t + 1 < k_tiles) load_tile((t + 1) % 2, (t + 1) * BK);  // the next tile travels...
        __pipeline_commit();  // ... while this one is multiplied (an empty batch at the end)
"""),
    ("""        __syncthreads();  // buffer t % 2 is refilled at step t + 1: everyone is done with it
    }
""", """    }
"""),
]
V2 = V1 + [  # and K tiles 64 deep (half the barriers again): 70 KiB, dynamic shared memory
    ("#define BK 32       // depth of one K tile", "#define BK 64       // depth of one K tile"),
    ('extern "C" __global__ void __launch_bounds__(THREADS)',  # 136 registers would allow 1 block
     'extern "C" __global__ void __launch_bounds__(THREADS, 2)'),  # per SM: 2 need <= 128
    ("""    __shared__ __align__(32) __half as[2][BM][BK + PAD];
    __shared__ __align__(32) __half bs[2][BK][BN + PAD];
    __shared__ __align__(32) float scratch[THREADS / 32][16 * 16];
""", """    // Over the 48 KiB of static shared memory: dynamic (the launcher's shared=), cut into the
    // same arrays; the epilogue's scratch tiles reuse the first buffer.
    extern __shared__ __align__(128) unsigned char smem[];
    __half(*as)[BM][BK + PAD] = reinterpret_cast<__half(*)[BM][BK + PAD]>(smem);
    __half(*bs)[BK][BN + PAD] = reinterpret_cast<__half(*)[BK][BN + PAD]>(as + 2);
    float(*scratch)[16 * 16] = reinterpret_cast<float(*)[16 * 16]>(smem);
"""),
    ("""    // Epilogue: float accumulator -> scratch tile -> 8 halves per lane, one 16-byte store.
""", """    // Epilogue: float accumulator -> scratch tile -> 8 halves per lane, one 16-byte store.
    __syncthreads();  // the scratch tiles overwrite buffer 0: every warp is done reading it
"""),
    ("""    matmul_fp16_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(256, 1, 1),
        grid=(tiles, 1),
    )""", """    matmul_fp16_kernel_cu(
        np.uintp(a.data_ptr()),
        np.uintp(b.data_ptr()),
        np.uintp(c.data_ptr()),
        np.int32(m),
        np.int32(n),
        np.int32(k),
        np.int32(a.stride(0)),
        np.int32(b.stride(0)),
        block=(256, 1, 1),
        grid=(tiles, 1),
        shared=2 * (bm * (64 + 8) + 64 * (bn + 8)) * 2,  # 2 buffers of as and bs, in bytes
    )"""),
]
VARIANTS = {("lab10_matmul", "matmul_fp16", "cuda"): {"base": [], "one_barrier": V1,
                                                        "bk64_dynamic": V2}}
