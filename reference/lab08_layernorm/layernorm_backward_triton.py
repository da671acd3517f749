"""Reference Triton layer-norm backward: the perf bar of lab08's `layernorm_backward` (hidden
from students).

Byte ledger: read dy and x once, write dx once: itemsize * 3 * n_rows * n_cols; read weight
once: itemsize * n_cols; read the float32 mean and rstd once: 4 * 2 * n_rows; write the
float32 dw and db once: 4 * 2 * n_cols (lab.toml's `bytes`). Beyond the ledger: the partial
rows, 2 * n_groups * n_cols float32 written by stage 1 and read by stage 2, n_groups =
n_rows / ROWS_PER_GROUP (or GROUPS_PER_SM per SM in float32, GROUPS_PER_SM_BF16 in bfloat16).

Stage 1: a program per group of consecutive rows (one wave of them: a program or two per SM),
a whole row in registers at a time (BLOCK_N = next power of two >= n_cols, or SPLIT into a
power-of-two head and a power-of-two tail where the two take fewer lanes: 5120 columns as
4096 + 1024, where one block of 8192 leaves 3/8 of its lanes idle), weight and the dw and db
accumulators in registers for the whole group. With PREFETCH, the next row's x, dy, mean and
rstd are loaded before this row's reductions (a software pipeline: they are in flight while
the program waits on its sums), issued after this row is widened to float32, so that its raw
registers are free again when the loads take theirs. xhat and dx are computed as FMAs; dx is
stored streaming (STREAM_DX: cache modifier ".cs", written once and never read back). Stage 2:
each program sums SUM_BLOCK_N columns of the partial rows, SUM_BLOCK_G rows at a time.
"""

import torch
import triton
import triton.language as tl

# Rows per program where GROUPS_PER_SM is 0 (16384 rows / 64 = 256 programs, about 2 per SM of an
# H200); otherwise as many groups as the GPU has SMs times GROUPS_PER_SM (float32) or
# GROUPS_PER_SM_BF16 (bfloat16): one wave of programs, no tail. Row values per thread by dtype set
# num_warps: float32 8 (16 warps at 4096 and 5120 columns, one program per SM), bfloat16 32 (4
# warps, two programs per SM). ptxas for sm_90a (Triton 3.9) at 4096 / 5120 columns: float32 100 /
# 128 registers, no spills; bfloat16 255, with 108 / 436 bytes spilled. SPLIT, PREFETCH and
# STREAM_DX as above; stage 2's columns per program. Against the previous reference (two programs
# per SM in both dtypes, 16 float32 values a thread, the next row loaded before this one was
# widened, dx stored plainly), measured on an H200, 2026-12-02, in one run: float32 1.04x at 4096
# columns and 1.03x at 5120, bfloat16 1.08x at 4096 (77% of the copy roof, the target being 75%) and
# 0.99x at 5120 (the candidate, as a variant of the lab's notebook; this module is to be timed).
ROWS_PER_GROUP = 64  # swept on an H200 (2026-12-01), docs/perf.md
GROUPS_PER_SM = 1  # a candidate timed on an H200 (2026-12-02), docs/perf.md
GROUPS_PER_SM_BF16 = 2  # a candidate timed on an H200 (2026-12-02), docs/perf.md
ELEMS_PER_THREAD = 8  # a candidate timed on an H200 (2026-12-02), docs/perf.md
ELEMS_PER_THREAD_BF16 = 32  # swept on an H200 (2026-12-01), docs/perf.md
SPLIT = True  # swept on an H200 (2026-12-01), docs/perf.md
PREFETCH = True  # swept on an H200 (2026-12-01), docs/perf.md
STREAM_DX = True  # a candidate timed on an H200 (2026-12-02), docs/perf.md
SUM_BLOCK_N = 32  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ROWS_PER_GROUP": (16, 32, 64, 128), "GROUPS_PER_SM": (0, 1, 2, 4),
        "GROUPS_PER_SM_BF16": (0, 1, 2, 4), "ELEMS_PER_THREAD": (8, 16, 32),
        "ELEMS_PER_THREAD_BF16": (8, 16, 32), "SPLIT": (True, False),
        "PREFETCH": (True, False), "STREAM_DX": (True, False), "SUM_BLOCK_N": (32, 64, 128)}
SUM_BLOCK_G = 32  # stage 2's partial rows per step
MAX_WARPS = 16
CPU_SMS = 4  # the SM count assumed off a GPU (the CPU backend's tests: any count is right)


@triton.jit
def ln_bwd_kernel(
    dy_ptr,  # n_rows x n_cols, rows stride_dyr apart
    x_ptr,  # n_rows x n_cols, rows stride_xr apart
    mean_ptr,  # n_rows float32
    rstd_ptr,  # n_rows float32
    w_ptr,  # n_cols
    dx_ptr,  # output: n_rows x n_cols, contiguous
    partial_dw_ptr,  # output: n_groups x n_cols float32
    partial_db_ptr,  # output: n_groups x n_cols float32
    n_rows,
    n_cols,
    stride_dyr,
    stride_xr,
    rows_per_group,
    BLOCK_N: tl.constexpr,  # a power of two: the row's first columns (all of them if no tail)
    TAIL_N: tl.constexpr,  # 0, or a power of two holding columns BLOCK_N .. n_cols - 1
    PREFETCH: tl.constexpr,  # load the next row before this row's reductions
    DX_CACHE: tl.constexpr,  # dx's store cache modifier: ".cs" (streaming) or "" (the default)
):
    group = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols  # the block is wider than the row
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)  # 0 past the row: g = 0
    acc_w = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_N], dtype=tl.float32)
    if TAIL_N > 0:  # the same for the tail's columns
        t_cols = BLOCK_N + tl.arange(0, TAIL_N)
        t_mask = t_cols < n_cols
        wt = tl.load(w_ptr + t_cols, mask=t_mask, other=0.0).to(tl.float32)
        acc_wt = tl.zeros([TAIL_N], dtype=tl.float32)
        acc_bt = tl.zeros([TAIL_N], dtype=tl.float32)
    first = group.to(tl.int64) * rows_per_group  # 64-bit rows: row * stride can pass 2^31
    last = tl.minimum(first + rows_per_group, n_rows)
    if PREFETCH:  # the first row, loaded as the next one of the loop below
        ok = first < last
        x_n = tl.load(x_ptr + first * stride_xr + cols, mask=mask & ok, other=0.0,
                      eviction_policy="evict_first")
        dy_n = tl.load(dy_ptr + first * stride_dyr + cols, mask=mask & ok, other=0.0,
                       eviction_policy="evict_first")
        mean_n = tl.load(mean_ptr + first, mask=ok, other=0.0)
        rstd_n = tl.load(rstd_ptr + first, mask=ok, other=0.0)
        if TAIL_N > 0:
            xt_n = tl.load(x_ptr + first * stride_xr + t_cols, mask=t_mask & ok, other=0.0,
                           eviction_policy="evict_first")
            dyt_n = tl.load(dy_ptr + first * stride_dyr + t_cols, mask=t_mask & ok, other=0.0,
                            eviction_policy="evict_first")
    for row in range(first, last):
        if PREFETCH:
            # This row, widened to float32 first: its raw registers are free again by the time
            # the next row's loads take theirs (loads issued before the widening hold both rows
            # raw at once). Then the next row's loads, in flight during this row's sums.
            x = x_n.to(tl.float32)
            dy = dy_n.to(tl.float32)
            mean = mean_n
            rstd = rstd_n
            if TAIL_N > 0:
                xt = xt_n.to(tl.float32)
                dyt = dyt_n.to(tl.float32)
            ok = row + 1 < last  # the group's last row has no next one
            x_n = tl.load(x_ptr + (row + 1) * stride_xr + cols, mask=mask & ok, other=0.0,
                          eviction_policy="evict_first")
            dy_n = tl.load(dy_ptr + (row + 1) * stride_dyr + cols, mask=mask & ok, other=0.0,
                           eviction_policy="evict_first")
            mean_n = tl.load(mean_ptr + row + 1, mask=ok, other=0.0)
            rstd_n = tl.load(rstd_ptr + row + 1, mask=ok, other=0.0)
            if TAIL_N > 0:
                xt_n = tl.load(x_ptr + (row + 1) * stride_xr + t_cols, mask=t_mask & ok,
                               other=0.0, eviction_policy="evict_first")
                dyt_n = tl.load(dy_ptr + (row + 1) * stride_dyr + t_cols, mask=t_mask & ok,
                                other=0.0, eviction_policy="evict_first")
        else:
            x = tl.load(x_ptr + row * stride_xr + cols, mask=mask, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
            dy = tl.load(dy_ptr + row * stride_dyr + cols, mask=mask, other=0.0,
                         eviction_policy="evict_first").to(tl.float32)
            mean = tl.load(mean_ptr + row)
            rstd = tl.load(rstd_ptr + row)
            if TAIL_N > 0:
                xt = tl.load(x_ptr + row * stride_xr + t_cols, mask=t_mask, other=0.0,
                             eviction_policy="evict_first").to(tl.float32)
                dyt = tl.load(dy_ptr + row * stride_dyr + t_cols, mask=t_mask, other=0.0,
                              eviction_policy="evict_first").to(tl.float32)
        nmr = -mean * rstd  # xhat = (x - mean) * rstd = x * rstd + nmr: one FMA a value
        xhat = x * rstd + nmr
        g = dy * w
        sum_g = tl.sum(g, axis=0)
        sum_gx = tl.sum(g * xhat, axis=0)
        if TAIL_N > 0:
            xhat_t = xt * rstd + nmr
            g_t = dyt * wt
            sum_g += tl.sum(g_t, axis=0)
            sum_gx += tl.sum(g_t * xhat_t, axis=0)
        # dx = (g - mean(g) - xhat * mean(g * xhat)) * rstd = g * rstd + (xhat * ca + cb),
        # with ca and cb the row's constants: two FMAs a value.
        ca = -rstd * (sum_gx / n_cols)
        cb = -rstd * (sum_g / n_cols)
        dx = g * rstd + (xhat * ca + cb)
        tl.store(dx_ptr + row * n_cols + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask,
                 cache_modifier=DX_CACHE)
        acc_w += dy * xhat
        acc_b += dy
        if TAIL_N > 0:
            dx_t = g_t * rstd + (xhat_t * ca + cb)
            tl.store(dx_ptr + row * n_cols + t_cols, dx_t.to(dx_ptr.dtype.element_ty),
                     mask=t_mask, cache_modifier=DX_CACHE)
            acc_wt += dyt * xhat_t
            acc_bt += dyt
    tl.store(partial_dw_ptr + group * n_cols + cols, acc_w, mask=mask)
    tl.store(partial_db_ptr + group * n_cols + cols, acc_b, mask=mask)
    if TAIL_N > 0:
        tl.store(partial_dw_ptr + group * n_cols + t_cols, acc_wt, mask=t_mask)
        tl.store(partial_db_ptr + group * n_cols + t_cols, acc_bt, mask=t_mask)


@triton.jit
def column_sum_kernel(
    partial_dw_ptr,  # n_groups x n_cols float32
    partial_db_ptr,
    dw_ptr,  # output: n_cols float32
    db_ptr,
    n_groups,
    n_cols,
    BLOCK_G: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the last program runs past the last column
    acc_w = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_G, BLOCK_N], dtype=tl.float32)
    for g0 in range(0, n_groups, BLOCK_G):
        groups = g0 + tl.arange(0, BLOCK_G)
        mask = (groups < n_groups)[:, None] & col_mask[None, :]  # the last step runs past
        offs = groups[:, None] * n_cols + cols[None, :]
        acc_w += tl.load(partial_dw_ptr + offs, mask=mask, other=0.0)
        acc_b += tl.load(partial_db_ptr + offs, mask=mask, other=0.0)
    tl.store(dw_ptr + cols, tl.sum(acc_w, axis=0), mask=col_mask)  # one reduction at the end
    tl.store(db_ptr + cols, tl.sum(acc_b, axis=0), mask=col_mask)


def config(n_cols: int, itemsize: int) -> tuple[int, int, int]:
    """(BLOCK_N, TAIL_N, num_warps) for stage 1."""
    block_n = triton.next_power_of_2(n_cols)
    tail_n = 0
    if SPLIT and block_n != n_cols:  # a head of half the block and a tail, if narrower
        tail = max(16, triton.next_power_of_2(n_cols - block_n // 2))
        if block_n // 2 + tail < block_n:  # 5120: 4096 + 1024; 1536: 1024 + 512; 1000: 1024
            block_n, tail_n = block_n // 2, tail
    per_thread = ELEMS_PER_THREAD if itemsize == 4 else ELEMS_PER_THREAD_BF16
    warps = min(MAX_WARPS, max(1, (block_n + tail_n) // (32 * per_thread)))
    return block_n, tail_n, 1 << (warps.bit_length() - 1)  # a power of two, rounded down


def layernorm_backward_triton(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                              rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                              dw: torch.Tensor, db: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1, "rows must be contiguous columns"
    # Read per call: benchmarks/tune_references.py sets the constants.
    itemsize = x.element_size()
    per_sm = GROUPS_PER_SM if itemsize == 4 else GROUPS_PER_SM_BF16
    if per_sm:
        sms = (torch.cuda.get_device_properties(x.device).multi_processor_count
               if x.is_cuda else CPU_SMS)
        rows_per_group = triton.cdiv(n_rows, sms * per_sm)
    else:
        rows_per_group = ROWS_PER_GROUP
    n_groups = triton.cdiv(n_rows, rows_per_group)
    partial = torch.empty((2, n_groups, n_cols), dtype=torch.float32, device=x.device)
    block_n, tail_n, warps = config(n_cols, itemsize)
    ln_bwd_kernel[(n_groups,)](dy, x, mean, rstd, weight, dx, partial[0], partial[1], n_rows,
                               n_cols, dy.stride(0), x.stride(0), rows_per_group,
                               BLOCK_N=block_n, TAIL_N=tail_n, PREFETCH=PREFETCH,
                               DX_CACHE=".cs" if STREAM_DX else "", num_warps=warps)
    column_sum_kernel[(triton.cdiv(n_cols, SUM_BLOCK_N),)](
        partial[0], partial[1], dw, db, n_groups, n_cols, BLOCK_G=SUM_BLOCK_G,
        BLOCK_N=SUM_BLOCK_N, num_warps=4)
