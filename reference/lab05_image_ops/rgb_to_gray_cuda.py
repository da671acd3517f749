"""Reference CUDA RGB -> gray launcher (hidden from students): 16 pixels per group, three
uint4 loads and one uint4 store each (see rgb_to_gray.cu for the kernels and byte ledger)."""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "rgb_to_gray.cu").read_text()
VEC = 1  # swept on an H200, see docs/perf.md
THREADS = 128  # swept on an H200, see docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (64, 128, 256, 512)}
PIXELS_PER_GROUP = 16  # 48 bytes in = 3 uint4
# Templates inside: the kernels are extern "C" each, the rest C++.
_module = SourceModule(SOURCE, no_extern_c=True)
_kernels = {v: _module.get_function(f"rgb_to_gray_kernel_v{v}") for v in (1, 2, 4)}


def rgb_to_gray_cuda(rgb: torch.Tensor, gray: torch.Tensor) -> None:
    vec = VEC  # read per call: benchmarks/tune_references.py sets it
    assert rgb.shape == (*gray.shape, 3), f"want an h x w x 3 image, got {tuple(rgb.shape)}"
    assert rgb.is_contiguous() and gray.is_contiguous(), "pixels must be contiguous"
    # uint4 accesses need 16-byte aligned pointers: torch allocations are; views might not be.
    assert rgb.data_ptr() % 16 == 0 and gray.data_ptr() % 16 == 0, "need 16-byte alignment"
    n = gray.numel()
    per_block = THREADS * vec
    blocks = max(-(-(n // PIXELS_PER_GROUP) // per_block), 1)  # one at least, for the tail
    _kernels[vec](np.uintp(rgb.data_ptr()), np.uintp(gray.data_ptr()), np.int64(n),
                  block=(THREADS, 1, 1), grid=(blocks, 1))
