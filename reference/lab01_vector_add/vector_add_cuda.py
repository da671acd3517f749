"""Reference CUDA vector add launcher (hidden from students): 16-byte chunks per thread,
in float32, float16 and bfloat16 (one kernel per dtype and VEC, see vector_add.cu)."""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "vector_add.cu").read_text()
# Sweep on an H200 at 2^28 fp32 (see docs/perf.md).
VEC = 1
THREADS = 128
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (128, 256, 512)}
CHUNK_BYTES = 16  # one uint4 load per chunk
SUFFIX = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
# The C headers for __half and __nv_bfloat16 need C++ linkage: the kernels are extern "C" each.
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels: dict = {}


def _kernel(dtype: torch.dtype, vec: int):
    key = (dtype, vec)
    if key not in _kernels:
        _kernels[key] = _module.get_function(f"vector_add_kernel_{SUFFIX[dtype]}_v{vec}")
    return _kernels[key]


def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    n = out.numel()
    kernel = _kernel(out.dtype, vec)
    per_block = THREADS * vec * (CHUNK_BYTES // out.element_size())
    blocks = max((n + per_block - 1) // per_block, 1)
    # 16-byte loads need 16-byte aligned pointers: torch allocations are; views might not be.
    assert all(t.data_ptr() % CHUNK_BYTES == 0 for t in (x, y, out)), \
        "reference needs 16-byte alignment"
    kernel(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
           np.int64(n), block=(THREADS, 1, 1), grid=(blocks, 1))
