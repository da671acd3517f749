# impl: cuda
# status: fail
# reason: [n_rows=3, n_cols=7]
# reason: still hold the fill value
# (An early return for the threads whose first element of x is outside the matrix. Those
#  threads still had elements of out to write: thread (tx, ty) loads x[ty + k][tx] but
#  stores out[ty + k][tx] = x[tx][ty + k], and on 3 x 7 thread (1, 3) loads nothing (x has
#  3 rows) while out[3][1] = x[1][3] is inside. Returned threads count as arrived at
#  __syncthreads() (sm_70 and later, and the CPU backend), so nothing hangs: those elements
#  of out are simply never written.)

# %% edit transpose_cu
# <<<
#     const int col = col0 + threadIdx.x;
# ===
#     const int col = col0 + threadIdx.x;
#     if (row0 + threadIdx.y >= n_rows || col >= n_cols) return;  // nothing to load: done?
# >>>
