"""Reference CUDA float32 matmul launcher: the perf bar of lab10's `matmul_fp32` (hidden from
students). Register-tiled SGEMM on the CUDA cores (8 x 8 per thread, the next K tile fetched
during this one), float4 global accesses where the layout allows, one float per access where
it does not: matmul_fp32.cu, with its work and byte ledger.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "matmul_fp32.cu").read_text()
TILE = "128x128x8"  # swept on an H200 (2026-12-01), docs/perf.md
MIN_BLOCKS = 2  # swept on an H200 (2026-12-01), docs/perf.md
GROUP_M = 16  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn); each TILE and
# MIN_BLOCKS pair is a kernel of matmul_fp32.cu, matmul_fp32_kernel_vec_<TILE>_<MIN_BLOCKS>:
TUNE = {"TILE": ("128x128x8", "128x128x16", "128x64x8", "64x128x8", "64x64x8", "64x64x16"),
        "MIN_BLOCKS": (1, 2), "GROUP_M": (1, 8, 16)}
S_BM, S_BN = 128, 128  # the scalar kernel's tile (matmul_fp32_kernel_scalar)
VEC_BYTES = 16  # one float4
_module = SourceModule(SOURCE, no_extern_c=True)  # templates: each kernel is extern "C" itself
_scalar = _module.get_function("matmul_fp32_kernel_scalar")
_kernels: dict = {}


def _cdiv(x: int, y: int) -> int:
    return -(-x // y)


def _vec(tile: str, min_blocks: int):
    if (tile, min_blocks) not in _kernels:
        _kernels[tile, min_blocks] = _module.get_function(
            f"matmul_fp32_kernel_vec_{tile}_{min_blocks}")
    return _kernels[tile, min_blocks]


def matmul_fp32_cuda(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0:
        return
    assert a.stride(1) == 1 and b.stride(1) == 1 and c.is_contiguous(), "rows must be contiguous"
    floats = VEC_BYTES // a.element_size()
    # A float4 of a (4 columns of a row), of b and of c must be whole and 16-byte aligned.
    vec = (k % floats == 0 and n % floats == 0 and a.stride(0) % floats == 0
           and b.stride(0) % floats == 0
           and all(t.data_ptr() % VEC_BYTES == 0 for t in (a, b, c)))
    args = (np.uintp(a.data_ptr()), np.uintp(b.data_ptr()), np.uintp(c.data_ptr()), np.int32(m),
            np.int32(n), np.int32(k), np.int32(a.stride(0)), np.int32(b.stride(0)),
            np.int32(GROUP_M))
    if vec:
        tile, min_blocks = TILE, MIN_BLOCKS  # read per call: the tuner sets them
        bm, bn, _ = (int(v) for v in tile.split("x"))
        _vec(tile, min_blocks)(*args, block=(bm // 8 * (bn // 8), 1, 1),
                               grid=(_cdiv(m, bm) * _cdiv(n, bn), 1))
    else:
        _scalar(*args, block=(S_BM // 8 * (S_BN // 8), 1, 1),
                grid=(_cdiv(m, S_BM) * _cdiv(n, S_BN), 1))
