"""Reference Triton float16 matmul: the perf bar of lab10's `matmul_fp16` (hidden from
students). float16 in and out, float32 accumulation, on the tensor cores; the kernel, its
work and byte ledger: matmul_triton.py. Target (lab.toml): 0.9x cuBLAS at 4096^3 and 8192^3.
"""

import torch

from grader.lab.reference import shared

BLOCK_SIZE_M = 128  # swept on an H200 (2026-12-01), docs/perf.md
BLOCK_SIZE_N = 256  # swept on an H200 (2026-12-01), docs/perf.md
BLOCK_SIZE_K = 64  # swept on an H200 (2026-12-01), docs/perf.md
GROUP_SIZE_M = 16  # swept on an H200 (2026-12-01), docs/perf.md
NUM_WARPS = 8  # swept on an H200 (2026-12-01), docs/perf.md
NUM_STAGES = 3  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory fails to launch and is skipped):
TUNE = {"BLOCK_SIZE_M": (64, 128, 256), "BLOCK_SIZE_N": (64, 128, 256),
        "BLOCK_SIZE_K": (32, 64, 128), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4, 5)}
_kernel = shared(__file__, "matmul_triton")


def matmul_fp16_triton(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> None:
    _kernel.launch(a, b, c, False, BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M,
                   NUM_WARPS, NUM_STAGES)
