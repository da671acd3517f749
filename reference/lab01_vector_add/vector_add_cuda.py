"""Reference CUDA vector add launcher (hidden from students): float4 per thread."""

from pathlib import Path

import numpy as np
import torch

from grader.cuda import SourceModule

SOURCE = (Path(__file__).parent / "vector_add.cu").read_text()
# Sweep on an H200 at 2^28 fp32 (see docs/perf.md).
VEC = 1
THREADS = 128
_module = SourceModule(SOURCE, no_extern_c=True)
_kernel = _module.get_function(f"vector_add_kernel_v{VEC}")


def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor, vec: int = VEC) -> None:
    n = out.numel()
    kernel = _kernel if vec == VEC else _module.get_function(f"vector_add_kernel_v{vec}")
    per_block = THREADS * vec * 4
    blocks = max((n + per_block - 1) // per_block, 1)
    # 16-byte loads need 16-byte aligned pointers: torch allocations are; views might not be.
    assert all(t.data_ptr() % 16 == 0 for t in (x, y, out)), "reference needs 16-byte alignment"
    kernel(np.uintp(x.data_ptr()), np.uintp(y.data_ptr()), np.uintp(out.data_ptr()),
           np.int64(n), block=(THREADS, 1, 1), grid=(blocks, 1))
