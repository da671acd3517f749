"""Reference CUDA SwiGLU on two separate tensors: the perf bar of lab04's `swiglu` (hidden
from students). Kernels in gated.cu.

Byte ledger: read gate and up once, write out once: 3 * rows * h * 2 bytes (lab.toml's
`bytes`). VEC 16-byte chunks of each tensor per thread; the n % 8 tail by the grid's first
threads.
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
CHUNK = 8  # bfloat16 per 16-byte chunk
# cuda_bf16.h is C++: the kernels are extern "C" one by one.
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels: dict = {}


def _kernel(vec: int):
    if vec not in _kernels:
        _kernels[vec] = _module.get_function(f"swiglu_kernel_v{vec}")
    return _kernels[vec]


def swiglu_cuda(gate: torch.Tensor, up: torch.Tensor, out: torch.Tensor) -> None:
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    assert all(t.is_contiguous() and t.data_ptr() % 16 == 0 for t in (gate, up, out)), \
        "the reference needs contiguous, 16-byte aligned tensors"
    n = out.numel()
    blocks = max(-(-(n // CHUNK) // (THREADS * vec)), 1)  # one block at least, for the tail
    _kernel(vec)(np.uintp(gate.data_ptr()), np.uintp(up.data_ptr()), np.uintp(out.data_ptr()),
                 np.int64(n), block=(THREADS, 1, 1), grid=(blocks, 1))
