"""Reference Triton float32 matmul: the perf bar of lab10's `matmul_fp32` (hidden from
students). IEEE float32 (`input_precision="ieee"`: fused multiply-adds on the CUDA cores, not
TF32); the kernel, its work and byte ledger: matmul_triton.py.
"""

import torch

from grader.lab.reference import shared

BLOCK_SIZE_M = 64  # swept on an H200 (2026-12-01), docs/perf.md
BLOCK_SIZE_N = 128  # swept on an H200 (2026-12-01), docs/perf.md
BLOCK_SIZE_K = 32  # swept on an H200 (2026-12-01), docs/perf.md
GROUP_SIZE_M = 16  # swept on an H200 (2026-12-01), docs/perf.md
NUM_WARPS = 4  # swept on an H200 (2026-12-01), docs/perf.md
NUM_STAGES = 4  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"BLOCK_SIZE_M": (32, 64, 128), "BLOCK_SIZE_N": (32, 64, 128),
        "BLOCK_SIZE_K": (8, 16, 32), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4)}
_kernel = shared(__file__, "matmul_triton")


def matmul_fp32_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    # The constants are read per call: benchmarks/tune_references.py sets them.
    _kernel.launch(a, b, c, True, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M,
                   NUM_WARPS, NUM_STAGES)
