"""Reference CUDA launchers of lab08's forward exercises, layer norm and RMSNorm (hidden from
students); kernels in norm.cu. `layernorm_cuda.py` and `rmsnorm_cuda.py` each export one
launcher from here.

Byte ledger: read x once, write out once, read weight (and bias) once: itemsize * (2 * n_rows
* n_cols + 2 * n_cols) for layer norm, itemsize * (2 * n_rows * n_cols + n_cols) for RMSNorm
(lab.toml's `bytes`). One block per row, the row in registers between its statistics and its
normalisation (aligned rows: 16-byte chunks); other rows: a scalar kernel that re-reads the
row from cache.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "norm.cu").read_text()
# Threads per block aim at THREADS_TARGET; the chunks per thread (VPT) grow with the row, up
# to 8. Starting point: lab07's softmax sweep on an H200 chose a 128-thread target (docs/perf.md);
# to be swept for this lab on an H200.
THREADS_TARGET = 128  # swept on an H200 (2026-12-01), docs/perf.md
# FIT_WARPS: among the VPTs whose block holds the row, prefer those that leave no chunk slot
# idle, then the one nearest THREADS_TARGET (bfloat16 x 5120 is 640 chunks: 160 threads of 4,
# where the target alone picks 96 threads of 8, 128 slots idle); False: the target alone. To
# be swept on an H200.
FIT_WARPS = True  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS_TARGET": (64, 128, 256, 512), "FIT_WARPS": (True, False)}
SCALAR_THREADS = 256  # the unaligned fallback (not timed: the perf shapes are aligned)
MAX_THREADS = 512  # the kernels' __launch_bounds__; longer rows take the scalar kernel
VPTS = (1, 2, 4, 8)  # the vector kernels' chunks per thread (norm.cu)
CHUNK_BYTES = 16
SUFFIX = {torch.float32: "f32", torch.bfloat16: "bf16"}
_module = SourceModule(SOURCE, no_extern_c=True)  # cuda_bf16.h is C++: kernels are extern "C"
_kernels: dict = {}


def _kernel(op: str, dtype: torch.dtype, variant: str):
    key = (op, dtype, variant)
    if key not in _kernels:
        _kernels[key] = _module.get_function(f"norm_kernel_{op}_{SUFFIX[dtype]}_{variant}")
    return _kernels[key]


def plan(n_chunks: int) -> tuple[int, int] | None:
    """(chunks per thread, threads per block) holding a row of n_chunks chunks; None when it
    is too long for MAX_THREADS threads of 8 chunks."""
    target = THREADS_TARGET  # read per call: benchmarks/tune_references.py sets them
    threads = {vpt: max(32, (-(-n_chunks // vpt) + 31) // 32 * 32) for vpt in VPTS}  # warps
    fits = [vpt for vpt in VPTS if threads[vpt] <= MAX_THREADS]
    if not fits:
        return None
    if FIT_WARPS:  # fewest idle chunk slots, then nearest the target
        vpt = min(fits, key=lambda v: (threads[v] * v - n_chunks,
                                       abs(math.log2(threads[v] / target))))
    else:  # the fewest chunks per thread that keep the block within the target
        vpt = next((v for v in fits if n_chunks <= target * v), fits[-1])
    return vpt, threads[vpt]


def launch(op: str, x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
           out: torch.Tensor, eps: float) -> None:
    """`op` is "layernorm" or "rmsnorm" (which ignores bias)."""
    assert x.ndim == 2 and x.stride(1) == 1, f"rows must be contiguous columns: {x.stride()}"
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return
    per_chunk = CHUNK_BYTES // x.element_size()
    aligned = (n_cols % per_chunk == 0 and x.stride(0) % per_chunk == 0
               and all(t.data_ptr() % CHUNK_BYTES == 0 for t in (x, weight, bias, out)))
    shape = plan(n_cols // per_chunk) if aligned else None
    if shape is None:
        variant, threads = "scalar", SCALAR_THREADS
    else:
        vpt, threads = shape
        variant = f"v{vpt}"
    _kernel(op, x.dtype, variant)(
        np.uintp(x.data_ptr()), np.uintp(weight.data_ptr()), np.uintp(bias.data_ptr()),
        np.uintp(out.data_ptr()), np.int32(n_cols), np.int64(x.stride(0)), np.float32(eps),
        block=(threads, 1, 1), grid=(n_rows, 1))


def layernorm_cuda(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
                   out: torch.Tensor, eps: float) -> None:
    launch("layernorm", x, weight, bias, out, eps)


def rmsnorm_cuda(x: torch.Tensor, weight: torch.Tensor, out: torch.Tensor, eps: float) -> None:
    launch("rmsnorm", x, weight, weight, out, eps)  # the kernels take a bias; RMSNorm ignores it
