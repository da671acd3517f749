"""Reference CUDA layer-norm backward: the perf bar of lab08's `layernorm_backward` (hidden from
students); kernels in layernorm_backward.cu.

Byte ledger: read dy and x once, write dx once: itemsize * 3 * n_rows * n_cols; read weight
once: itemsize * n_cols; read the float32 mean and rstd once: 4 * 2 * n_rows; write the
float32 dw and db once: 4 * 2 * n_cols (lab.toml's `bytes`). Beyond the ledger: the partial
rows, 2 * n_groups * n_cols float32 written by stage 1 and read by stage 2, n_groups =
n_rows / ROWS_PER_GROUP (or GROUPS_PER_SM per SM).

Stage 1: a block per group of consecutive rows, each thread holding VPT 16-byte chunks of
every row as read (the same columns in every row: its dw and db accumulators stay in
registers), the next ROWS_AHEAD rows loaded during the current one's reductions; unaligned
rows take a scalar kernel. Stage 2: column sums of the partial rows.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.cuda import SourceModule

SOURCE = (Path(__file__).parent / "layernorm_backward.cu").read_text()
# Rows per block (16384 rows / 32 = 512 blocks, about 4 per SM of an H200; the partial rows
# are then 1/32 of dy's), or, where GROUPS_PER_SM is not 0, as many groups as the GPU has SMs
# times it (a block or two per SM is what the registers allow: one wave, no tail), and the
# threads-per-block target for a row. To be swept on an H200.
ROWS_PER_GROUP = 64  # swept on an H200 (2026-12-01), docs/perf.md
GROUPS_PER_SM = 2  # swept on an H200 (2026-12-01), docs/perf.md
THREADS_TARGET = 256  # swept on an H200 (2026-12-01), docs/perf.md
# ROWS_AHEAD, by dtype: rows loaded before their turn, 1 or 2 (the _a2 kernels: two rows in
# flight per block while it reduces one, for the registers of one more row; 2 where no _a2
# kernel holds the row falls back to 1). A bfloat16 row has half the bytes to keep in flight.
# FIT_WARPS: the VPT that leaves no chunk slot idle first, then the target (norm_cuda.py's).
# To be swept on an H200.
ROWS_AHEAD = 1  # swept on an H200 (2026-12-01), docs/perf.md
ROWS_AHEAD_BF16 = 2  # swept on an H200 (2026-12-01), docs/perf.md
FIT_WARPS = True  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ROWS_PER_GROUP": (16, 32, 64, 128), "GROUPS_PER_SM": (0, 1, 2, 3),
        "THREADS_TARGET": (64, 128, 256), "ROWS_AHEAD": (1, 2), "ROWS_AHEAD_BF16": (1, 2),
        "FIT_WARPS": (True, False)}
SCALAR_THREADS = 256  # the fallback: unaligned rows, or too long for MAX_THREADS x the VPTs
SUM_ROWS = 16  # SUM_ROWS in layernorm_backward.cu: column_sum_kernel's blockDim.y
MAX_THREADS = {1: 512, 2: 512, 4: 256, 8: 256}  # by VPT: the kernels' __launch_bounds__
# The VPTs built (layernorm_backward.cu), by dtype and rows ahead: those that fit 255
# registers without spilling.
VPTS = {(torch.float32, 1): (1, 2, 4, 8), (torch.float32, 2): (1, 2, 4),
        (torch.bfloat16, 1): (1, 2, 4), (torch.bfloat16, 2): (1, 2, 4)}
CHUNK_BYTES = 16
CPU_SMS = 4  # the SM count assumed off a GPU (the CPU backend's tests: any count is right)
SUFFIX = {torch.float32: "f32", torch.bfloat16: "bf16"}
_module = SourceModule(SOURCE, no_extern_c=True)  # cuda_bf16.h is C++: kernels are extern "C"
_column_sum = _module.get_function("column_sum_kernel")
_kernels: dict = {}


def _kernel(dtype: torch.dtype, variant: str):
    if (dtype, variant) not in _kernels:
        _kernels[dtype, variant] = _module.get_function(f"ln_bwd_kernel_{SUFFIX[dtype]}_{variant}")
    return _kernels[dtype, variant]


def plan(n_chunks: int, vpts: tuple) -> tuple[int, int] | None:
    """(chunks per thread, threads per block) for a row of n_chunks chunks; None when too long
    for the kernels that vpts names."""
    target = THREADS_TARGET  # read per call: benchmarks/tune_references.py sets them
    threads = {vpt: max(32, (-(-n_chunks // vpt) + 31) // 32 * 32) for vpt in vpts}  # warps
    fits = [vpt for vpt in vpts if threads[vpt] <= MAX_THREADS[vpt]]
    if not fits:
        return None
    if FIT_WARPS:  # fewest idle chunk slots, then nearest the target
        vpt = min(fits, key=lambda v: (threads[v] * v - n_chunks,
                                       abs(math.log2(threads[v] / target))))
    else:  # the fewest chunks per thread that keep the block within the target
        vpt = next((v for v in fits if n_chunks <= target * v), fits[-1])
    return vpt, threads[vpt]


def layernorm_backward_cuda(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                            rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                            dw: torch.Tensor, db: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1, "rows must be contiguous columns"
    if GROUPS_PER_SM:  # read per call: benchmarks/tune_references.py sets the constants
        sms = (torch.cuda.get_device_properties(x.device).multi_processor_count
               if x.is_cuda else CPU_SMS)
        rows_per_group = -(-n_rows // (sms * GROUPS_PER_SM))
    else:
        rows_per_group = ROWS_PER_GROUP
    n_groups = -(-n_rows // rows_per_group)
    partial = torch.empty((2, n_groups, n_cols), dtype=torch.float32, device=x.device)
    per_chunk = CHUNK_BYTES // x.element_size()
    aligned = (n_cols % per_chunk == 0 and x.stride(0) % per_chunk == 0
               and dy.stride(0) % per_chunk == 0
               and all(t.data_ptr() % CHUNK_BYTES == 0 for t in (dy, x, weight, dx)))
    ahead = ROWS_AHEAD if x.dtype == torch.float32 else ROWS_AHEAD_BF16
    shape = plan(n_cols // per_chunk, VPTS[x.dtype, ahead]) if aligned else None
    if shape is None and aligned and ahead == 2:
        ahead, shape = 1, plan(n_cols // per_chunk, VPTS[x.dtype, 1])
    if shape is None:
        variant, threads = "scalar", SCALAR_THREADS
    else:
        vpt, threads = shape
        variant = f"v{vpt}" + ("_a2" if ahead == 2 else "")
    _kernel(x.dtype, variant)(
        np.uintp(dy.data_ptr()), np.uintp(x.data_ptr()), np.uintp(mean.data_ptr()),
        np.uintp(rstd.data_ptr()), np.uintp(weight.data_ptr()), np.uintp(dx.data_ptr()),
        np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()), np.int32(n_rows),
        np.int32(n_cols), np.int64(dy.stride(0)), np.int64(x.stride(0)),
        np.int32(rows_per_group), block=(threads, 1, 1), grid=(n_groups, 1))
    _column_sum(np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()),
                np.uintp(dw.data_ptr()), np.uintp(db.data_ptr()), np.int32(n_groups),
                np.int32(n_cols), block=(32, SUM_ROWS, 1), grid=(-(-n_cols // 32), 1))
