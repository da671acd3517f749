# impl: cuda
# perf: yes
# device: gpu
# status: fail
# reason: x the reference
# (The naive transpose, the first step of the notebook's staircase: one element per thread,
#  no shared memory. threadIdx.x runs along a row of x, so a warp's load is 128 contiguous
#  bytes, and its store is 32 floats n_rows apart in out: 32 sectors of 32 bytes for 128
#  useful bytes. Correct everywhere, 64-bit offsets included.)

# %% edit transpose_cu
# <<<
#     // One column of padding: column c of the tile spans all 32 banks instead of one.
#     __shared__ float tile[TILE][TILE + 1];
# ~~~
#             out[(long long)out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
#     }
# ===
#     // One element per thread, no shared memory: threadIdx.x along a row of x, so a warp
#     // reads 32 neighbouring floats and writes 32 floats n_rows apart in out.
#     const long long col = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // along a row
#     const long long row = (long long)blockIdx.y * blockDim.y + threadIdx.y;
#     if (row < n_rows && col < n_cols) out[col * n_rows + row] = x[row * stride_xm + col];
# >>>

# %% edit transpose_cuda
# <<<
#     grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, tile))
#     assert grid[1] <= 65535, f"{n_rows} rows need {grid[1]} tiles down: gridDim.y <= 65535"
# ===
#     grid = (triton.cdiv(n_cols, tile), triton.cdiv(n_rows, block_rows))  # a thread an element
#     assert grid[1] <= 65535, f"{n_rows} rows need {grid[1]} blocks down: gridDim.y <= 65535"
# >>>
