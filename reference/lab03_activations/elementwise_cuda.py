"""Reference CUDA launchers of lab03's five activations (hidden from students): 16-byte chunks
per thread, in float32, float16 and bfloat16; kernels in elementwise.cu. `relu_cuda.py`,
`leaky_relu_cuda.py`, ... each export one launcher from here.

Byte ledger (every op): read x once, write out once: 2 * n * itemsize (lab.toml's `bytes`).
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "elementwise.cu").read_text()
# Starting point: lab01's H200 sweep (one float4 per thread, 128 threads: 4388 GB/s, every
# VEC x THREADS variant within 2%, docs/perf.md). The sweep over these ops on an
# H200 chose VEC 1 with 128 threads (2026-12-01, read flush; 256 before).
VEC = 1  # swept on an H200, see docs/perf.md
THREADS = 128  # swept on an H200, see docs/perf.md
# 16-bit dtypes have constants of their own (as the Triton reference's): a 16-byte chunk is
# twice the elements; where torch's own kernel moves 98% of the roof in 16 bits, the
# constants shared with float32 left relu and leaky_relu 0.1-0.3% behind it (2026-12-03).
VEC_16 = 1  # swept on an H200, see docs/perf.md
THREADS_16 = 128  # swept on an H200, see docs/perf.md
# STREAM: loads and stores marked streaming (__ldcs / __stcs: evict first, nothing of x or out
# is read again) instead of __ldg and plain stores. Swept on an H200 (2026-12-01): 2% slower
# over the 15 cases (4181 against 4278 GB/s), so off.
STREAM = False
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"VEC": (1, 2, 4), "THREADS": (128, 256, 512), "STREAM": (False, True),
        "VEC_16": (1, 2, 4), "THREADS_16": (64, 128, 256, 512)}
CHUNK_BYTES = 16  # one uint4 load per chunk
SUFFIX = {torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16"}
_modules: dict = {}  # (VEC, STREAM) -> module: compiled on first use
_kernels: dict = {}


def _kernel(op: str, dtype: torch.dtype, vec: int, stream: bool):
    key = (op, dtype, vec, stream)
    if key not in _kernels:
        if (vec, stream) not in _modules:
            # The C headers for __half and __nv_bfloat16 need C++ linkage: each kernel is
            # extern "C" itself.
            defines = f"#define VEC {vec}\n#define STREAM {int(stream)}\n"
            _modules[vec, stream] = SourceModule(defines + SOURCE, no_extern_c=True)
        _kernels[key] = _modules[vec, stream].get_function(f"{op}_kernel_{SUFFIX[dtype]}")
    return _kernels[key]


def launch(op: str, x: torch.Tensor, out: torch.Tensor, *params) -> None:
    assert x.shape == out.shape and x.dtype == out.dtype, \
        f"x {x.dtype} {tuple(x.shape)} vs out {out.dtype} {tuple(out.shape)}"
    # 16-byte loads need 16-byte aligned pointers: torch allocations are; views might not be.
    assert x.data_ptr() % CHUNK_BYTES == 0 and out.data_ptr() % CHUNK_BYTES == 0, \
        "reference needs 16-byte alignment"
    # read per call: benchmarks/tune_references.py sets them
    vec, threads = (VEC, THREADS) if out.element_size() == 4 else (VEC_16, THREADS_16)
    n = out.numel()
    per_block = threads * vec * (CHUNK_BYTES // out.element_size())
    blocks = max((n + per_block - 1) // per_block, 1)
    _kernel(op, out.dtype, vec, STREAM)(np.uintp(x.data_ptr()), np.uintp(out.data_ptr()),
                                        np.int64(n), *(np.float32(p) for p in params),
                                        block=(threads, 1, 1), grid=(blocks, 1))


def relu_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("relu", x, out)


def leaky_relu_cuda(x: torch.Tensor, out: torch.Tensor, alpha: float) -> None:
    launch("leaky_relu", x, out, alpha)


def sigmoid_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("sigmoid", x, out)


def silu_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("silu", x, out)


def clip_cuda(x: torch.Tensor, out: torch.Tensor, lo: float, hi: float) -> None:
    launch("clip", x, out, lo, hi)
