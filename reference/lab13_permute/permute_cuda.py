"""Reference CUDA launchers of lab13's permutations (hidden from students): one 16-byte chunk
of the output side per thread, uint4 loads and stores on both sides (flip_inplace: one scalar
pair per thread, not yet widened); kernels in permute.cu, one per element size.
`flip_cuda.py`, `flip_inplace_cuda.py`, `interleave_cuda.py` and `deinterleave_cuda.py` each
export one launcher from here.

Byte ledgers (lab.toml's bytes): reverse 2 * n * itemsize; interleave and deinterleave
4 * n * itemsize (2n elements read, 2n written); reverse in place 4 * n * itemsize (the copy
of x into out, 2n, plus the swap, 2n).
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "permute.cu").read_text()
# Swept on an H100 (2026-12-06, `benchmarks/tune_references.py lab13`): threads per block
# hardly matter for float32 (128, 256, 512 within 1%); 16-bit flip_inplace one pair a thread
# wanted 256 (2600 GB/s against 2176 at 128), and its chunk pairs ran 3044 GB/s at 256.
# NARROW (interleave and deinterleave move 8 bytes a thread on their narrow side, every access
# fully coalesced, instead of 16 bytes on both sides, whose 32 bytes a thread on the wide side
# reach memory as two half-coalesced uint4 accesses; see permute.cu): 3064-3077 GB/s against
# 2960-2991 for interleave; deinterleave within 1% either way.
THREADS = 128
THREADS_16 = 256
NARROW = True
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS": (128, 256, 512), "THREADS_16": (64, 128, 256, 512), "NARROW": (False, True)}
CHUNK_BYTES = 16  # one uint4 per chunk
SUFFIX = {4: "b32", 2: "b16"}
_modules: dict = {}  # NARROW -> module: compiled on first use
_kernels: dict = {}


def _kernel(op: str, itemsize: int, narrow: bool):
    key = (op, itemsize, narrow)
    if key not in _kernels:
        if narrow not in _modules:
            # The templates need C++ linkage: each kernel is extern "C" itself.
            _modules[narrow] = SourceModule(f"#define NARROW {int(narrow)}\n" + SOURCE,
                                            no_extern_c=True)
        _kernels[key] = _modules[narrow].get_function(f"{op}_kernel_{SUFFIX[itemsize]}")
    return _kernels[key]


def _launch(op: str, tensors, n: int, itemsize: int) -> None:
    # 16-byte loads need 16-byte aligned pointers: torch allocations are; views might not be.
    assert all(t.data_ptr() % CHUNK_BYTES == 0 for t in tensors), \
        "reference needs 16-byte alignment"
    threads = THREADS if itemsize == 4 else THREADS_16  # read per call: the tuner sets them
    narrow = NARROW and op in ("interleave", "deinterleave")
    # elements per thread on the narrow side (x of reverse, a and b of the others): a
    # uint4's, or a uint2's with NARROW
    per_block = threads * ((CHUNK_BYTES // 2 if narrow else CHUNK_BYTES) // itemsize)
    blocks = max((n + per_block - 1) // per_block, 1)
    _kernel(op, itemsize, narrow)(*(np.uintp(t.data_ptr()) for t in tensors), np.int64(n),
                                  block=(threads, 1, 1), grid=(blocks, 1))


def flip_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    assert x.shape == out.shape and x.dtype == out.dtype
    _launch("flip", (x, out), out.numel(), out.element_size())


def flip_inplace_cuda(x: torch.Tensor, out: torch.Tensor) -> None:
    assert x.shape == out.shape and x.dtype == out.dtype
    out.copy_(x)
    n, itemsize = out.numel(), out.element_size()
    assert out.data_ptr() % CHUNK_BYTES == 0, "reference needs 16-byte alignment"
    threads = THREADS if itemsize == 4 else THREADS_16
    pack, pairs = CHUNK_BYTES // itemsize, n // 2
    # One thread per pair of chunks and per pair left between them; per pair without chunks.
    work = pairs // pack + pairs % pack if n % pack == 0 else pairs
    blocks = max((work + threads - 1) // threads, 1)  # one block at least
    _kernel("flip_inplace", itemsize, False)(np.uintp(out.data_ptr()), np.int64(n),
                                             block=(threads, 1, 1), grid=(blocks, 1))


def interleave_cuda(a: torch.Tensor, b: torch.Tensor, out: torch.Tensor) -> None:
    assert a.dtype == b.dtype == out.dtype and out.numel() == 2 * a.numel() == 2 * b.numel()
    _launch("interleave", (a, b, out), a.numel(), a.element_size())


def deinterleave_cuda(x: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> None:
    assert x.dtype == a.dtype == b.dtype and x.numel() == 2 * a.numel() == 2 * b.numel()
    _launch("deinterleave", (x, a, b), a.numel(), a.element_size())
