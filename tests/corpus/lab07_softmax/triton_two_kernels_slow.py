# impl: triton
# perf: yes
# device: gpu
# status: fail
# reason: x the reference

# %% nbgrader={"grade_id": "softmax_triton", "solution": true}
@triton.jit
def softmax_kernel(x_ptr, out_ptr, stats_ptr, n_cols, stride_xr, BLOCK_SIZE: tl.constexpr,
                   WRITE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * stride_xr + offs, mask=mask, other=-float("inf"))
    if WRITE:
        m = tl.load(stats_ptr + 2 * row)
        s = tl.load(stats_ptr + 2 * row + 1)
        tl.store(out_ptr + row * n_cols + offs, tl.exp(x - m) / s, mask=mask)
    else:
        m = tl.max(x, axis=0)
        tl.store(stats_ptr + 2 * row, m)
        tl.store(stats_ptr + 2 * row + 1, tl.sum(tl.exp(x - m), axis=0))


def softmax_triton(x, out):
    # Correct but slow: one kernel for the statistics, another for the output: x read twice.
    n_rows, n_cols = x.shape
    stats = torch.empty(2 * n_rows, device=x.device, dtype=torch.float32)
    block = triton.next_power_of_2(n_cols)
    for write in (False, True):
        softmax_kernel[(n_rows,)](x, out, stats, n_cols, x.stride(0), BLOCK_SIZE=block,
                                  WRITE=write)
