# impl: triton
# exercise: layernorm
# status: pass
# (Honest work for rows of any length: the row in chunks of at most 1024 columns, twice.
# The first loop merges each chunk's count, mean and sum of squared deviations into running
# ones (Welford's update, in Chan's form for a whole chunk: no sum of squares of raw values,
# no cancellation); the second normalises. It reads x twice (the second time from cache), as
# the solution's unrolled chunks do, but in a loop at run time, and passes every check.)

# %% nbgrader={"grade_id": "layernorm_triton", "solution": true}
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, stride_xr, eps,
                     BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xr
    count = tl.full([], 0.0, tl.float32)
    mean = tl.full([], 0.0, tl.float32)
    m2 = tl.full([], 0.0, tl.float32)  # sum of squared deviations from the running mean
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols  # the last chunk runs past the row
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        n_b = tl.sum(mask.to(tl.float32), axis=0)
        mean_b = tl.sum(x, axis=0) / n_b
        d = tl.where(mask, x - mean_b, 0.0)
        total = count + n_b
        delta = mean_b - mean
        mean += delta * (n_b / total)
        m2 += tl.sum(d * d, axis=0) + delta * delta * (count * n_b / total)
        count = total
    rstd = tl.rsqrt(m2 / n_cols + eps)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(out_ptr + row * n_cols + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def layernorm_triton(x, weight, bias, out, eps):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = min(triton.next_power_of_2(n_cols), 1024)
    layernorm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), eps,
                                BLOCK_SIZE=BLOCK_SIZE)
