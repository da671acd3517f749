"""Reference CUDA RoPE (NeoX, rotate half): the launcher both of lab11's references share
(hidden from students). Kernels and their byte ledger in rope.cu: read q and k (or x) once,
write each output once, read both float32 tables once.

One row of blockDim.x threads per token, blockDim.y tokens per block: blockDim.x is the token's
item count (16-byte chunks of every head's halves, or single pairs when the layout does not
allow 16-byte accesses) rounded up to a warp, at most 1024: one pass over a token's items
(320 chunks at 32 + 8 heads of 128); blockDim.y adds tokens up to about THREADS threads.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "rope.cu").read_text()
THREADS = 128  # threads per block (more where one token needs more): swept on an H200, 2026-12-01
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"THREADS": (128, 256, 512, 1024)}
CHUNK = 8  # bfloat16 per 16-byte chunk
WARP = 32
MAX_THREADS = 1024  # a block's limit
_module = SourceModule(SOURCE, no_extern_c=True)  # cuda_bf16.h is C++: kernels extern "C"
_vec = _module.get_function("rope_qk_kernel_vec")
_scalar = _module.get_function("rope_qk_kernel_scalar")


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def rope_pair_cuda(q: torch.Tensor, k: torch.Tensor | None, cos: torch.Tensor,
                   sin: torch.Tensor, q_out: torch.Tensor, k_out: torch.Tensor | None) -> None:
    """Rotate q (and k, if given) by the tables' rows, one launch."""
    threads = THREADS  # read per call: benchmarks/tune_references.py sets it
    tokens, heads, head_dim = q.shape
    half = head_dim // 2
    assert head_dim == 2 * half == 2 * cos.shape[1], "head_dim must be 2 * the tables' width"
    assert cos.is_contiguous() and sin.is_contiguous(), "the tables must be contiguous"
    if k is None:  # one tensor: k is q with no heads, never read
        k, k_out = q, q_out
        kv_heads = 0
    else:
        kv_heads = k.shape[1]
    tensors = (q, k, q_out, k_out)
    assert all(t.stride(2) == 1 for t in tensors) and q_out.is_contiguous() \
        and k_out.is_contiguous(), "head rows must be contiguous, outputs contiguous"
    if tokens == 0:
        return
    strides = (q.stride(0), q.stride(1), k.stride(0), k.stride(1))
    vec = (half % CHUNK == 0 and all(s % CHUNK == 0 for s in strides)
           and all(t.data_ptr() % 16 == 0 for t in (*tensors, cos, sin)))
    items = (heads + kv_heads) * (half // CHUNK if vec else half)
    block_x = min(MAX_THREADS, _cdiv(items, WARP) * WARP)
    block_y = max(1, threads // block_x)
    kernel = _vec if vec else _scalar
    kernel(np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(cos.data_ptr()),
           np.uintp(sin.data_ptr()), np.uintp(q_out.data_ptr()), np.uintp(k_out.data_ptr()),
           np.int32(tokens), np.int32(heads), np.int32(kv_heads), np.int32(half),
           *(np.int64(s) for s in strides),
           block=(block_x, block_y, 1), grid=(_cdiv(tokens, block_y), 1))


def rope_one_cuda(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                  out: torch.Tensor) -> None:
    """One tensor (lab11's `rope`): defined here, beside the constants, so that the tuner finds
    this module's TUNE from either exercise's launcher."""
    rope_pair_cuda(x, None, cos, sin, out, None)
