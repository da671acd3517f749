"""Reference CUDA matrix add launcher: the perf bar of lab02's matrix_add (hidden from students).

Byte ledger: read x and y once, write out once: 3 * n_rows * n_cols * 4 bytes (lab.toml's
`bytes`). Rows of float4s where the layouts allow it, else one float per access
(matrix_add.cu).
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "matrix_add.cu").read_text()
# The float4 kernel's block: THREADS_X float4 columns (a warp reads 512 contiguous bytes) by
# THREADS_Y rows of threads, each moving ROWS_PER_THREAD rows.
THREADS_X = 256  # float4 columns per block: swept on an H200, see docs/perf.md
THREADS_Y = 4  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS_X": (32, 64, 128, 256), "THREADS_Y": (1, 2, 4, 8)}
ROWS_PER_THREAD = 2  # ROWS_PER_THREAD in matrix_add.cu
TILE, BLOCK_ROWS = 32, 8  # TILE and BLOCK_ROWS in matrix_add.cu: the scalar kernel's block
MAX_GRID_Y = 65535  # gridDim.y's limit: the kernels loop over bands of rows past it
VEC_BYTES = 16  # one float4
_module = SourceModule(SOURCE, no_extern_c=True)  # each kernel is extern "C" itself
_vec = _module.get_function("matrix_add_kernel_vec")
_scalar = _module.get_function("matrix_add_kernel_scalar")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def matrix_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    n_rows, n_cols = out.shape
    if n_rows == 0 or n_cols == 0:
        return
    ptrs = (np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()))
    sizes = (np.int32(n_rows), np.int32(n_cols))
    floats = VEC_BYTES // out.element_size()
    vec = (n_cols % floats == 0 and all(t.stride(1) == 1 and t.stride(0) % floats == 0
                                        for t in (x, y))
           and all(t.data_ptr() % VEC_BYTES == 0 for t in (x, y, out)))
    if vec:
        bands = _cdiv(n_rows, THREADS_Y * ROWS_PER_THREAD)
        _vec(*ptrs, *sizes, np.int64(x.stride(0)), np.int64(y.stride(0)),
             block=(THREADS_X, THREADS_Y, 1),
             grid=(_cdiv(n_cols // floats, THREADS_X), min(bands, MAX_GRID_Y)))
    else:
        _scalar(*ptrs, *sizes, *(np.int64(s) for s in (*x.stride(), *y.stride())),
                block=(TILE, BLOCK_ROWS, 1),
                grid=(_cdiv(n_cols, TILE), min(_cdiv(n_rows, TILE), MAX_GRID_Y)))
