"""Reference CUDA layer-norm backward: the perf bar of lab08's `layernorm_backward` (hidden from
students); kernels in layernorm_backward.cu.

Byte ledger: read dy and x once, write dx once: itemsize * 3 * n_rows * n_cols; read weight
once: itemsize * n_cols; read the float32 mean and rstd once: 4 * 2 * n_rows; write the
float32 dw and db once: 4 * 2 * n_cols (lab.toml's `bytes`). Beyond the ledger: the partial
rows, 2 * n_groups * n_cols float32 written by stage 1 and read by stage 2, n_groups =
n_rows / ROWS_PER_GROUP.

Stage 1: a block per group of ROWS_PER_GROUP rows, each thread holding VPT 16-byte chunks of
every row (the same columns in every row: its dw and db accumulators stay in registers), the
next row prefetched during the current one's reductions; unaligned rows take a scalar kernel.
Stage 2: column sums of the partial rows.
"""

from pathlib import Path

import numpy as np
import torch

from grader.cuda import SourceModule

SOURCE = (Path(__file__).parent / "layernorm_backward.cu").read_text()
# Rows per block (16384 rows / 32 = 512 blocks, about 4 per SM of an H200; the partial rows
# are then 1/32 of dy's) and the threads-per-block target for a row. To be swept on an H200.
ROWS_PER_GROUP = 32
THREADS_TARGET = 128
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"ROWS_PER_GROUP": (16, 32, 64, 128), "THREADS_TARGET": (64, 128, 256)}
SCALAR_THREADS = 256  # the fallback: unaligned rows, or too long for MAX_THREADS x MAX_VPT
SUM_ROWS = 16  # SUM_ROWS in layernorm_backward.cu: column_sum_kernel's blockDim.y
MAX_THREADS = 256  # the vector kernels' __launch_bounds__ (layernorm_backward.cu)
MAX_VPT = {torch.float32: 8, torch.bfloat16: 4}  # chunks per thread that fit the registers
CHUNK_BYTES = 16
SUFFIX = {torch.float32: "f32", torch.bfloat16: "bf16"}
_module = SourceModule(SOURCE, no_extern_c=True)  # cuda_bf16.h is C++: kernels are extern "C"
_column_sum = _module.get_function("column_sum_kernel")
_kernels: dict = {}


def _kernel(dtype: torch.dtype, variant: str):
    if (dtype, variant) not in _kernels:
        _kernels[dtype, variant] = _module.get_function(f"ln_bwd_kernel_{SUFFIX[dtype]}_{variant}")
    return _kernels[dtype, variant]


def plan(n_chunks: int, max_vpt: int) -> tuple[int, int] | None:
    """(chunks per thread, threads per block) for a row of n_chunks chunks; None when too long
    for MAX_THREADS threads of max_vpt chunks."""
    target = THREADS_TARGET  # read per call: benchmarks/tune_references.py sets it
    vpt = 1
    while vpt < max_vpt and n_chunks > target * vpt:
        vpt *= 2
    threads = -(-n_chunks // vpt)
    if threads > MAX_THREADS:
        return None
    return vpt, max(32, -(-threads // 32) * 32)


def layernorm_backward_cuda(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                            rstd: torch.Tensor, weight: torch.Tensor, dx: torch.Tensor,
                            dw: torch.Tensor, db: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    assert x.stride(1) == 1 and dy.stride(1) == 1, "rows must be contiguous columns"
    rows_per_group = ROWS_PER_GROUP  # read per call: benchmarks/tune_references.py sets it
    n_groups = -(-n_rows // rows_per_group)
    partial = torch.empty((2, n_groups, n_cols), dtype=torch.float32, device=x.device)
    per_chunk = CHUNK_BYTES // x.element_size()
    aligned = (n_cols % per_chunk == 0 and x.stride(0) % per_chunk == 0
               and dy.stride(0) % per_chunk == 0
               and all(t.data_ptr() % CHUNK_BYTES == 0 for t in (dy, x, weight, dx)))
    shape = plan(n_cols // per_chunk, MAX_VPT[x.dtype]) if aligned else None
    if shape is None:
        variant, threads = "scalar", SCALAR_THREADS
    else:
        vpt, threads = shape
        variant = f"v{vpt}"
    _kernel(x.dtype, variant)(
        np.uintp(dy.data_ptr()), np.uintp(x.data_ptr()), np.uintp(mean.data_ptr()),
        np.uintp(rstd.data_ptr()), np.uintp(weight.data_ptr()), np.uintp(dx.data_ptr()),
        np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()), np.int32(n_rows),
        np.int32(n_cols), np.int64(dy.stride(0)), np.int64(x.stride(0)),
        np.int32(rows_per_group), block=(threads, 1, 1), grid=(n_groups, 1))
    _column_sum(np.uintp(partial[0].data_ptr()), np.uintp(partial[1].data_ptr()),
                np.uintp(dw.data_ptr()), np.uintp(db.data_ptr()), np.int32(n_groups),
                np.int32(n_cols), block=(32, SUM_ROWS, 1), grid=(-(-n_cols // 32), 1))
