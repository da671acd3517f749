"""Reference CUDA int4 dequantization: the perf bar of lab12's `dequant_int4` (hidden from
students). Kernels in dequant.cu.

Byte ledger: read the packed bytes once (half a byte a weight) and the group scales (2 bytes
per 128 weights), write out once (2 bytes a weight): rows * cols / 2 + 2 * rows * cols / 128
+ 2 * rows * cols (lab.toml's `bytes`, itemsize = 2). Each thread takes VEC chunks of BYTES
packed bytes (2 * BYTES weights, inside one group), one load each, and stores each chunk's
2 * BYTES bfloat16 as BYTES / 4 uint4. BYTES = 16 is the handout's chunk (one uint4 load,
64 bytes stored per thread); 4 makes the stores of a warp one contiguous 512-byte run.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "dequant.cu").read_text()
BYTES = 4  # swept on an H200, 2026-12-01 (docs/perf.md)
VEC = 2  # swept on an H200, 2026-12-01 (docs/perf.md)
THREADS = 512  # swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BYTES": (4, 8, 16), "VEC": (1, 2, 4), "THREADS": (128, 256, 512)}
GROUP_SIZE = 128  # weights per scale
MAX_GRID_Y = 65535  # a grid's y: more rows are looped over in the kernel
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels: dict = {}


def _kernel(nbytes: int, vec: int):
    if (nbytes, vec) not in _kernels:
        _kernels[nbytes, vec] = _module.get_function(f"dequant_int4_kernel_b{nbytes}_v{vec}")
    return _kernels[nbytes, vec]


def dequant_int4_cuda(packed: torch.Tensor, scale: torch.Tensor, out: torch.Tensor) -> None:
    nbytes, vec = BYTES, VEC  # read per call: benchmarks/tune_references.py sets them
    rows, cols = out.shape
    assert cols % GROUP_SIZE == 0, f"cols = {cols} is not a multiple of {GROUP_SIZE}"
    assert packed.shape == (rows, cols // 2) and scale.shape == (rows, cols // GROUP_SIZE), \
        f"packed {tuple(packed.shape)}, scale {tuple(scale.shape)}, out {tuple(out.shape)}"
    assert packed.stride(1) == 1 and scale.stride(1) == 1 and out.is_contiguous(), \
        "rows must be contiguous columns"
    # Chunk loads need every packed row aligned to the chunk (the lab's rows are 16-byte
    # aligned); uint4 stores need a 16-byte aligned out (cols % 128 keeps its rows so).
    assert packed.stride(0) % nbytes == 0 and packed.data_ptr() % nbytes == 0, \
        f"packed rows must start {nbytes}-byte aligned (stride {packed.stride(0)})"
    assert out.data_ptr() % 16 == 0, "out must be 16-byte aligned"
    per_thread = -(-(cols // (2 * nbytes)) // vec)  # threads one row needs
    threads = min(THREADS, max(32, -(-per_thread // 32) * 32))
    _kernel(nbytes, vec)(np.uintp(packed.data_ptr()), np.uintp(scale.data_ptr()),
                         np.uintp(out.data_ptr()), np.int32(rows), np.int32(cols),
                         np.int64(packed.stride(0)), np.int64(scale.stride(0)),
                         block=(threads, 1, 1),
                         grid=(-(-per_thread // threads), max(1, min(rows, MAX_GRID_Y))))
