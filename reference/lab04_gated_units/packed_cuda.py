"""Reference CUDA gated units (SwiGLU, GeGLU with tanh) on a packed [rows, 2h] tensor: the
launcher both packed exercises' references share (hidden from students). Kernels in gated.cu.

Byte ledger: read both halves of x once, write out once: 3 * rows * h * 2 bytes (lab.toml's
`bytes`). Rows 16-byte aligned (h and x.stride(0) multiples of 8): VEC 16-byte chunks of
gate and of up per thread; otherwise one element per thread.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "gated.cu").read_text()
VEC = 1  # swept on an H200, see docs/perf.md
THREADS = 256  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (128, 256, 512)}
SCALAR_THREADS = 256  # the unaligned fallback (not timed: the perf shapes are aligned)
CHUNK = 8  # bfloat16 per 16-byte chunk
MAX_GRID_Y = 65535  # a grid's y: more rows are looped over in the kernel
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels: dict = {}


def _kernel(op: str, name: str):
    if (op, name) not in _kernels:
        _kernels[op, name] = _module.get_function(f"{op}_packed_kernel_{name}")
    return _kernels[op, name]


def gated_packed_cuda(op: str, x: torch.Tensor, out: torch.Tensor) -> None:
    """`op` is "swiglu" or "geglu": the kernels' name prefix in gated.cu."""
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    rows, h = out.shape
    stride = x.stride(0)
    assert x.stride(1) == 1 and out.is_contiguous(), "rows must be contiguous columns"
    aligned = (h % CHUNK == 0 and stride % CHUNK == 0 and x.data_ptr() % 16 == 0
               and out.data_ptr() % 16 == 0)
    if aligned:
        per_thread = -(-(h // CHUNK) // vec)  # threads one row needs
        threads = min(THREADS, max(32, -(-per_thread // 32) * 32))
        kernel, grid_x = _kernel(op, f"v{vec}"), -(-per_thread // threads)
    else:
        threads = min(SCALAR_THREADS, max(32, -(-h // 32) * 32))
        kernel, grid_x = _kernel(op, "scalar"), -(-h // threads)
    kernel(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()), np.int32(rows), np.int32(h),
           np.int64(stride), block=(threads, 1, 1), grid=(grid_x, max(1, min(rows, MAX_GRID_Y))))
