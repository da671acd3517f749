"""Reference Triton layer norm and RMSNorm: the perf bar of lab08's forward exercises (hidden
from students). `layernorm_triton.py` and `rmsnorm_triton.py` each export one launcher from
here.

Byte ledger: read x once, write out once, read weight (and bias) once: itemsize * (2 * n_rows
* n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows * n_cols + n_cols) for RMSNorm
(lab.toml's `bytes`). Every row is read from memory once and held in registers from its load to
its store; the statistics are reductions over registers, layer norm's variance a second pass
around the mean (no cancellation). Two kernels:

- `layernorm_chunks_kernel`, layer-norm rows of at least CHUNK columns (the perf shapes), one
  row a program: the row as N_CHUNKS chunks of BLOCK_N columns (CHUNK; wider for rows of more
  than MAX_CHUNKS chunks), a tuple of tensors in x's dtype built by a `tl.static_range` loop
  (unrolled at compile time), every load issued before the first reduction, each chunk widened
  to float32 where it is used, nothing read twice. 5120 columns are 5 chunks of 1024, no lane
  masked; each thread issues one 16-byte load per chunk.
- `norm_kernel`, RMSNorm and shorter layer-norm rows: ROWS whole rows a program, BLOCK_N = the
  next power of two >= n_cols columns each, or (SPLIT) a power-of-two head and a power-of-two
  tail where that masks fewer lanes (5120 = 4096 + 1024). Short rows go several to a program,
  so that a program still moves enough bytes.

Why chunks, measured on an H200: `norm_kernel`'s layer norm, one block of 8192 lanes for a row
of 5120 (37.5% of them masked, holding registers all the same), moved 89 / 92 / 89% of the copy
roof at float32 x 4096, float32 x 5120 and bfloat16 x 4096, but 78% at bfloat16 x 5120 (the
lab's target is 85%). Its 63 registers at 8 warps fit 4 programs an SM, 40 KB of x in flight;
the chunks' 62-63 registers at 4 warps fit 8, 80 KB (offline sm_90 compile, Triton 3.6 and
3.9). The chunked kernel, timed against it in the same run (as the lab's solution, with this
launcher's configs): 1.03 / 1.00 / 1.03 / 1.21x.
"""

import torch
import triton
import triton.language as tl

# norm_kernel. Row values per thread, by dtype: sets num_warps, the program's values / (32 x
# it), 1 to 16. A 16-bit row holds half the bytes per value, and may want more values per
# thread. Start: lab07's softmax sweep on an H200 (4 warps up to 2048 columns, 16 at 16384:
# docs/perf.md), and this lab's Triton solutions, 4 warps at 4096 columns and 8 at 5120 (32
# values a thread), which measured 1.05-1.19x the reference at 16 (docs/perf.md, "Launch
# constants: how they were chosen").
ELEMS_PER_THREAD = 32  # swept on an H200 (2026-12-01), docs/perf.md
ELEMS_PER_THREAD_BF16 = 32  # swept on an H200 (2026-12-01), docs/perf.md
# SPLIT: rows of one program each, not a power of two, held as a head and a tail block (above)
# when that masks fewer lanes than one block. Since the chunked layer norm, RMSNorm's only.
SPLIT = False  # swept on an H200 (2026-12-01), docs/perf.md
# layernorm_chunks_kernel. CHUNK: columns per chunk, a power of two; layer-norm rows of at
# least CHUNK columns take the chunked kernel. 1024 divides both perf widths (4096, 5120: no
# chunk masked) and makes one 16-byte load per thread at 4 warps in bfloat16, 8 in float32.
# Measured on an H200 at 1024 only: 512 and 2048 are for the sweep.
CHUNK = 1024
# The most chunks a row is cut into: longer rows take wider chunks (and more warps), so that a
# thread holds at most MAX_CHUNKS 16-byte loads of its row (16384 columns: 8 chunks of 2048).
MAX_CHUNKS = 8
LOAD_BYTES = 16  # a thread's share of a chunk: the widest load it issues
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ELEMS_PER_THREAD": (8, 16, 32), "ELEMS_PER_THREAD_BF16": (16, 32, 64),
        "SPLIT": (True, False), "CHUNK": (512, 1024, 2048)}
# The smallest tile a program of norm_kernel holds: rows shorter than this go several to a
# program (ROWS = MIN_TILE / BLOCK_N). Not swept: the perf shapes' rows (4096, 5120) are one to
# a program either way; it shapes the sweep plot's short rows only.
MIN_TILE = 2048
MAX_WARPS = 16
MAX_BLOCK_N = 65536  # longer rows would need a streaming kernel: no lab shape comes close


@triton.jit
def layernorm_chunks_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    w_ptr,  # weight, n_cols
    b_ptr,  # bias, n_cols
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_cols,  # columns per row
    stride_xr,  # elements between the starts of two rows of x
    eps,  # inside the square root
    BLOCK_N: tl.constexpr,  # a power of two: the columns of one chunk
    N_CHUNKS: tl.constexpr,  # cdiv(n_cols, BLOCK_N): the loops unroll at compile time
    EVEN: tl.constexpr,  # n_cols % BLOCK_N == 0: no chunk runs past the row, no mask
):
    row = tl.program_id(0).to(tl.int64)  # 64-bit: row * stride_xr
    x_row = x_ptr + row * stride_xr
    out_row = out_ptr + row * n_cols
    cols = tl.arange(0, BLOCK_N)
    # The row's chunks as read, in x's dtype: a bfloat16 chunk holds half the registers of a
    # widened one, and registers decide how many programs (bytes in flight) an SM holds. Every
    # load is issued here, before the first reduction waits on any of them. (A tuple grown in
    # an unrolled loop: compiled for sm_90 with Triton 3.6 and 3.9, and runs in the interpreter.)
    xs = ()
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)  # per lane: sum of x
    for k in tl.static_range(N_CHUNKS):
        c = k * BLOCK_N + cols
        if EVEN:
            x = tl.load(x_row + c, eviction_policy="evict_first")  # streamed: read once
        else:  # the last chunk runs past the row: 0 there, which adds 0
            x = tl.load(x_row + c, mask=c < n_cols, other=0.0, eviction_policy="evict_first")
        xs = xs + (x,)
        acc += x.to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)  # per lane: sum of (x - mean)^2
    for k in tl.static_range(N_CHUNKS):
        d = xs[k].to(tl.float32) - mean
        if not EVEN:
            d = tl.where(k * BLOCK_N + cols < n_cols, d, 0.0)  # past the row: 0, not -mean
        acc += d * d
    rstd = tl.rsqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for k in tl.static_range(N_CHUNKS):
        c = k * BLOCK_N + cols
        if EVEN:
            w = tl.load(w_ptr + c).to(tl.float32)
            b = tl.load(b_ptr + c).to(tl.float32)
            y = (xs[k].to(tl.float32) - mean) * rstd * w + b
            tl.store(out_row + c, y.to(out_ptr.dtype.element_ty))
        else:
            mask = c < n_cols  # the last chunk runs past the row
            w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
            b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
            y = (xs[k].to(tl.float32) - mean) * rstd * w + b
            tl.store(out_row + c, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def norm_kernel(
    x_ptr,  # input, n_rows x n_cols, rows stride_xr apart
    w_ptr,  # weight, n_cols
    b_ptr,  # bias, n_cols (not read when RMS)
    out_ptr,  # output, n_rows x n_cols, contiguous
    n_rows,  # rows
    n_cols,  # columns per row
    stride_xr,  # elements between the starts of two rows of x
    eps,  # inside the square root
    RMS: tl.constexpr,  # RMSNorm instead of layer norm
    ROWS: tl.constexpr,  # rows per program
    BLOCK_N: tl.constexpr,  # a power of two: the row's first columns (all of them if no tail)
    TAIL_N: tl.constexpr,  # 0, or a power of two holding columns BLOCK_N .. n_cols - 1
):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)  # 64-bit: row * stride
    row_mask = rows < n_rows  # the last program runs past the rows
    cols = tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols  # the block is wider than the row
    mask = row_mask[:, None] & col_mask[None, :]
    x = tl.load(x_ptr + rows[:, None] * stride_xr + cols[None, :], mask=mask, other=0.0,
                eviction_policy="evict_first").to(tl.float32)  # streamed: read once
    s = tl.sum(x * x if RMS else x, axis=1)
    if TAIL_N > 0:  # a second register block: the same steps on the tail's columns
        t_cols = BLOCK_N + tl.arange(0, TAIL_N)
        t_col_mask = t_cols < n_cols
        t_mask = row_mask[:, None] & t_col_mask[None, :]
        xt = tl.load(x_ptr + rows[:, None] * stride_xr + t_cols[None, :], mask=t_mask,
                     other=0.0, eviction_policy="evict_first").to(tl.float32)
        s += tl.sum(xt * xt if RMS else xt, axis=1)
    if RMS:
        mean = tl.zeros([ROWS], dtype=tl.float32)
        rstd = tl.rsqrt(s / n_cols + eps)
    else:
        mean = s / n_cols
        d = tl.where(mask, x - mean[:, None], 0.0)  # not the zeros past the row
        q = tl.sum(d * d, axis=1)
        if TAIL_N > 0:
            dt = tl.where(t_mask, xt - mean[:, None], 0.0)
            q += tl.sum(dt * dt, axis=1)
        rstd = tl.rsqrt(q / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)
    y = (x - mean[:, None]) * rstd[:, None] * w[None, :]
    if not RMS:
        y += tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    tl.store(out_ptr + rows[:, None] * n_cols + cols[None, :], y.to(out_ptr.dtype.element_ty),
             mask=mask)
    if TAIL_N > 0:
        wt = tl.load(w_ptr + t_cols, mask=t_col_mask, other=0.0).to(tl.float32)
        yt = (xt - mean[:, None]) * rstd[:, None] * wt[None, :]
        if not RMS:
            yt += tl.load(b_ptr + t_cols, mask=t_col_mask, other=0.0).to(tl.float32)[None, :]
        tl.store(out_ptr + rows[:, None] * n_cols + t_cols[None, :],
                 yt.to(out_ptr.dtype.element_ty), mask=t_mask)


def config(n_cols: int, itemsize: int) -> tuple[int, int, int, int]:
    """norm_kernel's (BLOCK_N, TAIL_N, rows per program, num_warps)."""
    block_n = triton.next_power_of_2(n_cols)
    assert block_n <= MAX_BLOCK_N, f"n_cols = {n_cols}: rows up to {MAX_BLOCK_N} columns"
    tail_n = 0
    if SPLIT and block_n >= 2 * MIN_TILE and block_n != n_cols:
        head = block_n // 2
        block_n, tail_n = head, max(16, triton.next_power_of_2(n_cols - head))  # < 2 head
    rows = max(1, MIN_TILE // block_n)
    per_thread = ELEMS_PER_THREAD if itemsize == 4 else ELEMS_PER_THREAD_BF16
    warps = min(MAX_WARPS, max(1, rows * (block_n + tail_n) // (32 * per_thread)))
    return block_n, tail_n, rows, 1 << (warps.bit_length() - 1)  # a power of two, rounded down


def chunks_config(n_cols: int, itemsize: int) -> tuple[int, int, int]:
    """layernorm_chunks_kernel's (BLOCK_N, N_CHUNKS, num_warps), for n_cols >= CHUNK."""
    assert n_cols <= MAX_BLOCK_N, f"n_cols = {n_cols}: rows up to {MAX_BLOCK_N} columns"
    block_n = max(CHUNK, triton.next_power_of_2(triton.cdiv(n_cols, MAX_CHUNKS)))
    warps = min(MAX_WARPS, max(1, block_n * itemsize // (32 * LOAD_BYTES)))  # a power of two
    return block_n, triton.cdiv(n_cols, block_n), warps


def launch(rms: bool, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
           out: torch.Tensor, eps: float) -> None:
    assert x.ndim == 2 and x.stride(1) == 1, f"rows must be contiguous columns: {x.stride()}"
    n_rows, n_cols = x.shape
    if not rms and n_cols >= CHUNK:
        block_n, n_chunks, warps = chunks_config(n_cols, x.element_size())
        layernorm_chunks_kernel[(n_rows,)](
            x, weight, bias, out, n_cols, x.stride(0), eps, BLOCK_N=block_n,
            N_CHUNKS=n_chunks, EVEN=n_cols % block_n == 0, num_warps=warps)
        return
    block_n, tail_n, rows, warps = config(n_cols, x.element_size())
    norm_kernel[(triton.cdiv(n_rows, rows),)](
        x, weight, bias, out, n_rows, n_cols, x.stride(0), eps, RMS=rms, ROWS=rows,
        BLOCK_N=block_n, TAIL_N=tail_n, num_warps=warps)


def layernorm_triton(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                     out: torch.Tensor, eps: float) -> None:
    launch(False, x, weight, bias, out, eps)


def rmsnorm_triton(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    launch(True, x, weight, weight, out, eps)  # the kernel takes a bias; RMSNorm never reads it
