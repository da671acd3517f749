"""Reference CUDA transpose launcher: the perf bar of lab09 (hidden from students).

Byte ledger: read x once, write out once: 2 * n_rows * n_cols * 4 bytes (lab.toml's `bytes`).
TILE x TILE tiles moved as float4s through a bank-conflict-free shared tile where the layout
allows it, else one float per access through a 32 x 33 tile (transpose.cu).
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "transpose.cu").read_text()
TILE = 64  # the float4 kernel's tile: swept on an H200, 2026-12-01 (docs/perf.md)
THREADS = 512  # its threads per block: swept on an H200, 2026-12-01 (docs/perf.md)
# The sweep's candidates (benchmarks/tune_references.py tries each in turn); each pair is a
# kernel of transpose.cu, transpose_kernel_vec_<TILE>x<THREADS>:
TUNE = {"TILE": (32, 64), "THREADS": (128, 256, 512)}
S_TILE, S_BLOCK_ROWS = 32, 8  # S_TILE and S_BLOCK_ROWS in transpose.cu: the scalar kernel
VEC_BYTES = 16  # one float4
_module = SourceModule(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself
_scalar = _module.get_function("transpose_kernel_scalar")
_kernels: dict = {}


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _vec(tile: int, threads: int):
    if (tile, threads) not in _kernels:
        _kernels[tile, threads] = _module.get_function(f"transpose_kernel_vec_{tile}x{threads}")
    return _kernels[tile, threads]


def transpose_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = x.shape
    if n_rows == 0 or n_cols == 0:
        return
    assert x.stride(1) == 1, f"x's rows must be contiguous, got strides {x.stride()}"
    args = (np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int64(n_rows),
            np.int64(n_cols), np.int64(x.stride(0)))
    floats = VEC_BYTES // x.element_size()
    # A float4 of x is 4 columns of a row, one of out 4 rows of a column: both must be whole
    # and 16-byte aligned.
    vec = (n_rows % floats == 0 and n_cols % floats == 0 and x.stride(0) % floats == 0
           and x.data_ptr() % VEC_BYTES == 0 and out.data_ptr() % VEC_BYTES == 0)
    if vec:
        tile, threads = TILE, THREADS  # read per call: benchmarks/tune_references.py sets them
        _vec(tile, threads)(*args, block=(threads, 1, 1),
                            grid=(_cdiv(n_rows, tile) * _cdiv(n_cols, tile), 1))
    else:
        _scalar(*args, block=(S_TILE, S_BLOCK_ROWS, 1),
                grid=(_cdiv(n_rows, S_TILE) * _cdiv(n_cols, S_TILE), 1))
