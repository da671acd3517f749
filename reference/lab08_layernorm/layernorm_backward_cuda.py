"""Reference CUDA layer-norm backward: the perf bar of lab08's `layernorm_backward` (hidden from
students); kernels in layernorm_backward.cu.

Byte ledger: read dy and x once, write dx once: itemsize * 3 * n_rows * n_cols; read weight
once: itemsize * n_cols; read the float32 mean and rstd once: 4 * 2 * n_rows; write the
float32 dw and db once: 4 * 2 * n_cols (lab.toml's `bytes`). Beyond the ledger: the partial
rows, 2 * n_groups * n_cols float32 written by stage 1 and read by stage 2, n_groups =
WAVES x the SMs x the kernel's blocks per SM (or n_rows / ROWS_PER_GROUP).

Stage 1: a block per group of consecutive rows (one wave of them: one or two blocks per SM, as
the kernel's __launch_bounds__ promise), each thread holding VPT 16-byte chunks of every row
as read (the same columns in every row: weight and its dw and db accumulators stay in
registers), the next row's x, dy, mean and rstd loaded during the current one's reductions,
xhat and dx as FMAs; unaligned rows take a scalar kernel. Stage 2: column sums of the partial
rows.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "layernorm_backward.cu").read_text()
# Groups of rows: where WAVES is not 0, WAVES times as many as the GPU's SMs hold blocks of the
# kernel chosen (BLOCKS_PER_SM: one wave, no tail); otherwise ROWS_PER_GROUP rows each (16384
# rows / 64 = 256 blocks). The threads-per-block target for a row, by dtype: float32 512 (a
# block per SM: 5120 columns as 320 threads of 4 chunks), bfloat16 256 (two blocks per SM:
# 5120 columns as 320 threads of 2). FIT_WARPS: the VPT that leaves no chunk slot idle first,
# then the target, then the most blocks per SM (norm_cuda.py's); False: the fewest chunks per
# thread that keep the block within the target. Against the previous reference (no blocks-per-SM
# minimum in its __launch_bounds__, the float32 4-chunk kernel built for 256 threads, so that
# 5120 columns took 160 threads of 8 chunks at 255 registers; bfloat16 5120 as 320 threads of 2
# chunks with the next two rows in flight, 128 registers, one block per SM; two groups per SM
# whatever the kernel), measured on an H200 in one run: float32 1.03x at 4096 columns and 1.20x
# at 5120 (86% of the copy roof), bfloat16 1.03x at 4096 (77%) and 1.29x at 5120 (81%, the
# target being 75%).
ROWS_PER_GROUP = 64  # swept on an H200 (2026-12-01), docs/perf.md
WAVES = 1  # a candidate timed on an H200 (2026-12-02), docs/perf.md
THREADS_TARGET = 512  # a candidate timed on an H200 (2026-12-02), docs/perf.md
THREADS_TARGET_BF16 = 256  # a candidate timed on an H200 (2026-12-02), docs/perf.md
FIT_WARPS = True  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ROWS_PER_GROUP": (16, 32, 64, 128), "WAVES": (0, 1, 2),
        "THREADS_TARGET": (128, 256, 512), "THREADS_TARGET_BF16": (128, 256, 512),
        "FIT_WARPS": (True, False)}
SCALAR_THREADS = 256  # the fallback: unaligned rows, or too long for MAX_THREADS x the VPTs
SCALAR_BLOCKS_PER_SM = 2  # its groups per SM with WAVES (not timed: the perf rows align)
SUM_ROWS = 16  # SUM_ROWS in layernorm_backward.cu: column_sum_kernel's blockDim.y
# The vector kernels built (layernorm_backward.cu), by dtype: their chunks per thread (VPT), and
# by dtype and VPT their __launch_bounds__(MAX_THREADS, BLOCKS_PER_SM), the registers fitting
# without a spill (bfloat16 v8 would spill).
VPTS = {torch.float32: (1, 2, 4, 8), torch.bfloat16: (1, 2, 4)}
MAX_THREADS = {(torch.float32, 1): 512, (torch.float32, 2): 512, (torch.float32, 4): 320,
               (torch.float32, 8): 256,
               (torch.bfloat16, 1): 512, (torch.bfloat16, 2): 320, (torch.bfloat16, 4): 256}
BLOCKS_PER_SM = {(torch.float32, 1): 2, (torch.float32, 2): 1, (torch.float32, 4): 1,
                 (torch.float32, 8): 1,
                 (torch.bfloat16, 1): 2, (torch.bfloat16, 2): 2, (torch.bfloat16, 4): 1}
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


def plan(n_chunks: int, dtype: torch.dtype) -> tuple[int, int] | None:
    """(chunks per thread, threads per block) for a row of n_chunks chunks; None when too long
    for every vector kernel of dtype."""
    # read per call: benchmarks/tune_references.py sets them
    target = THREADS_TARGET if dtype == torch.float32 else THREADS_TARGET_BF16
    vpts = VPTS[dtype]
    threads = {vpt: max(32, (-(-n_chunks // vpt) + 31) // 32 * 32) for vpt in vpts}  # warps
    fits = [vpt for vpt in vpts if threads[vpt] <= MAX_THREADS[dtype, vpt]]
    if not fits:
        return None
    if FIT_WARPS:  # fewest idle chunk slots, then nearest the target, then most blocks per SM
        vpt = min(fits, key=lambda v: (threads[v] * v - n_chunks,
                                       abs(math.log2(threads[v] / target)),
                                       -BLOCKS_PER_SM[dtype, v]))
    else:  # the fewest chunks per thread that keep the block within the target
        vpt = next((v for v in fits if n_chunks <= target * v), fits[-1])
    return vpt, threads[vpt]


def layernorm_backward_cuda(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                            rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                            dw: torch.Tensor, db: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1, "rows must be contiguous columns"
    per_chunk = CHUNK_BYTES // x.element_size()
    aligned = (n_cols % per_chunk == 0 and x.stride(0) % per_chunk == 0
               and dy.stride(0) % per_chunk == 0
               and all(t.data_ptr() % CHUNK_BYTES == 0 for t in (dy, x, weight, dx)))
    shape = plan(n_cols // per_chunk, x.dtype) if aligned else None
    if shape is None:
        variant, threads, blocks = "scalar", SCALAR_THREADS, SCALAR_BLOCKS_PER_SM
    else:
        vpt, threads = shape
        variant, blocks = f"v{vpt}", BLOCKS_PER_SM[x.dtype, vpt]
    if WAVES:  # read per call: benchmarks/tune_references.py sets the constants
        sms = (torch.cuda.get_device_properties(x.device).multi_processor_count
               if x.is_cuda else CPU_SMS)
        rows_per_group = -(-n_rows // (sms * blocks * WAVES))
    else:
        rows_per_group = ROWS_PER_GROUP
    n_groups = -(-n_rows // rows_per_group)
    partial = torch.empty((2, n_groups, n_cols), dtype=torch.float32, device=x.device)
    _kernel(x.dtype, variant)(
        np.uintp(dy.data_ptr()), np.uintp(x.data_ptr()), np.uintp(mean.data_ptr()),
        np.uintp(rstd.data_ptr()), np.uintp(weight.data_ptr()), np.uintp(dx.data_ptr()),
        np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()), np.int32(n_rows),
        np.int32(n_cols), np.int64(dy.stride(0)), np.int64(x.stride(0)),
        np.int32(rows_per_group), block=(threads, 1, 1), grid=(n_groups, 1))
    _column_sum(np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()),
                np.uintp(dw.data_ptr()), np.uintp(db.data_ptr()), np.int32(n_groups),
                np.int32(n_cols), block=(32, SUM_ROWS, 1), grid=(-(-n_cols // 32), 1))
