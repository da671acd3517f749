"""Reference CUDA matrix copy launcher: the perf bar of lab02's matrix_copy (hidden from
students).

Byte ledger: read x once, write out once: 2 * n_rows * n_cols * 4 bytes (lab.toml's `bytes`).
Rows of float4s where the layout allows it, else one float per access (matrix_copy.cu).
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "matrix_copy.cu").read_text()
THREADS_X = 256  # float4 columns per block: swept on an H200, see docs/perf.md
THREADS_Y = 4  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS_X": (32, 64, 128, 256), "THREADS_Y": (1, 2, 4, 8)}
ROWS_PER_THREAD = 2  # ROWS_PER_THREAD in matrix_copy.cu
TILE, BLOCK_ROWS = 32, 8  # TILE and BLOCK_ROWS in matrix_copy.cu: the scalar kernel's block
MAX_GRID_Y = 65535  # gridDim.y's limit: the kernels loop over bands of rows past it
VEC_BYTES = 16  # one float4
_module = SourceModule(SOURCE, no_extern_c=True)  # each kernel is extern "C" itself
_vec = _module.get_function("matrix_copy_kernel_vec")
_scalar = _module.get_function("matrix_copy_kernel_scalar")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def matrix_copy_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = out.shape
    if n_rows == 0 or n_cols == 0:
        return
    args = (np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(n_rows),
            np.int32(n_cols), np.int64(x.stride(0)))
    floats = VEC_BYTES // out.element_size()
    vec = (n_cols % floats == 0 and x.stride(1) == 1 and x.stride(0) % floats == 0
           and x.data_ptr() % VEC_BYTES == 0 and out.data_ptr() % VEC_BYTES == 0)
    if vec:
        bands = _cdiv(n_rows, THREADS_Y * ROWS_PER_THREAD)
        _vec(*args, block=(THREADS_X, THREADS_Y, 1),
             grid=(_cdiv(n_cols // floats, THREADS_X), min(bands, MAX_GRID_Y)))
    else:
        _scalar(*args, block=(TILE, BLOCK_ROWS, 1),
                grid=(_cdiv(n_cols, TILE), min(_cdiv(n_rows, TILE), MAX_GRID_Y)))
