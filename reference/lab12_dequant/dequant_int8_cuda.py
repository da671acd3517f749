"""Reference CUDA int8 dequantization: the perf bar of lab12's `dequant_int8` (hidden from
students). Kernels in dequant.cu.

Byte ledger: read w once (1 byte a weight) and the row scales (2 bytes a row), write out once
(2 bytes a weight): 3 * rows * cols + 2 * rows (lab.toml's `bytes`, itemsize = 2). Rows
16-byte aligned (cols and w.stride(0) multiples of 16): VEC chunks of 16 weights per thread,
one uint4 load and two uint4 stores each; otherwise one weight per thread.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "dequant.cu").read_text()
VEC = 1  # swept on an H200, 2026-12-01 (docs/perf.md)
THREADS = 512  # swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (128, 256, 512)}
SCALAR_THREADS = 256  # the unaligned fallback (not timed: the perf shapes are aligned)
CHUNK = 16  # int8 weights per 16-byte load
MAX_GRID_Y = 65535  # a grid's y: more rows are looped over in the kernel
# cuda_bf16.h is C++: the kernels are extern "C" one by one.
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels: dict = {}


def _kernel(name: str):
    if name not in _kernels:
        _kernels[name] = _module.get_function(f"dequant_int8_kernel_{name}")
    return _kernels[name]


def dequant_int8_cuda(w: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    rows, cols = out.shape
    assert w.shape == (rows, cols) and scale.shape == (rows,), \
        f"w {tuple(w.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert w.stride(1) == 1 and scale.is_contiguous() and out.is_contiguous(), \
        "rows must be contiguous columns"
    stride = w.stride(0)
    aligned = (cols % CHUNK == 0 and stride % CHUNK == 0 and w.data_ptr() % 16 == 0
               and out.data_ptr() % 16 == 0)
    if aligned:
        per_thread = -(-(cols // CHUNK) // vec)  # threads one row needs
        threads = min(THREADS, max(32, -(-per_thread // 32) * 32))
        kernel, grid_x = _kernel(f"v{vec}"), -(-per_thread // threads)
    else:
        threads = min(SCALAR_THREADS, max(32, -(-cols // 32) * 32))
        kernel, grid_x = _kernel("scalar"), -(-cols // threads)
    kernel(np.uintp(w.data_ptr()), np.uintp(scale.data_ptr()), np.uintp(out.data_ptr()),
           np.int32(rows), np.int32(cols), np.int64(stride), block=(threads, 1, 1),
           grid=(grid_x, max(1, min(rows, MAX_GRID_Y))))
