"""Reference CUDA RGBA invert launcher (hidden from students): one uint4 (4 pixels) per
thread and step, XOR 0x00FFFFFF (see invert.cu for the kernels and byte ledger)."""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "invert.cu").read_text()
VEC = 1  # swept on an H200, see docs/perf.md
THREADS = 256  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (128, 256, 512)}
PIXELS_PER_CHUNK = 4  # one uint4
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels = {v: _module.get_function(f"invert_kernel_v{v}") for v in (1, 2, 4)}


def invert_cuda(rgba: torch.Tensor, out: torch.Tensor) -> None:
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    assert rgba.shape == out.shape and rgba.shape[-1] == 4, f"want h x w x 4, {rgba.shape}"
    assert rgba.is_contiguous() and out.is_contiguous(), "pixels must be contiguous"
    assert rgba.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0, "need 16-byte alignment"
    n = out.numel() // 4
    per_block = THREADS * vec
    blocks = max(-(-(n // PIXELS_PER_CHUNK) // per_block), 1)  # one at least, for the tail
    _kernels[vec](np.uintp(rgba.data_ptr()), np.uintp(out.data_ptr()), np.int64(n),
                  block=(THREADS, 1, 1), grid=(blocks, 1))
