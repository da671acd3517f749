"""Reference Triton RoPE (NeoX, rotate half): the kernel and launcher that both of lab11's
references share (hidden from students). rope_triton.py rotates one tensor, rope_qk_triton.py
q and k in one launch.

Byte ledger (lab.toml's `bytes`): read x (or q and k) once, write each output once (bfloat16),
read the float32 cos and sin tables once: itemsize * 2 * tokens * (heads + kv_heads) *
head_dim + 4 * 2 * tokens * half_dim. Every element of a head is loaded once: x1 = x[..., :half]
and x2 = x[..., half:] as two half-width tiles; each table row is loaded once per program and
used for every head of both tensors.

A program owns BLOCK_T consecutive tokens: a [BLOCK_T, BLOCK_H, BLOCK_D] tile of x1 and one of
x2 per step, heads in steps of BLOCK_H (one step when BLOCK_H covers them). Along the last axis
the halves are contiguous: when half_dim, the strides and the pointers are multiples of 16
elements / bytes (Triton specializes on that), each thread moves 16-byte vectors.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 4  # swept on an H200, 2026-12-01 (docs/perf.md)
TILE = 2048  # x1 elements of q per program (x2 as many): swept on an H200, 2026-12-01
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
TUNE = {"NUM_WARPS": (2, 4, 8), "TILE": (1024, 2048, 4096, 8192)}
MAX_BLOCK_H = 64  # heads per step: more heads loop (a tile stays within registers)


@triton.jit
def _rotate(x_ptr, out_ptr, t, t_mask, n_heads, half_dim, stride_t, stride_h, c, s,
            BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    """Rotate every head of the tokens `t` ([BLOCK_T], int64) of x into out (contiguous);
    c, s: the tokens' table rows, [BLOCK_T, 1, BLOCK_D] float32."""
    d = tl.arange(0, BLOCK_D)[None, None, :]
    row_t = t[:, None, None]
    for h0 in range(0, n_heads, BLOCK_H):
        h = (h0 + tl.arange(0, BLOCK_H))[None, :, None]
        # Tokens past the end, heads past n_heads, columns past half_dim: all masked off.
        mask = t_mask[:, None, None] & (h < n_heads) & (d < half_dim)
        src = x_ptr + row_t * stride_t + h * stride_h + d
        x1 = tl.load(src, mask=mask).to(tl.float32)
        x2 = tl.load(src + half_dim, mask=mask).to(tl.float32)
        dst = out_ptr + (row_t * n_heads + h) * (2 * half_dim) + d
        tl.store(dst, (x1 * c - x2 * s).to(out_ptr.dtype.element_ty), mask=mask)
        tl.store(dst + half_dim, (x2 * c + x1 * s).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def rope_qk_kernel(
    q_ptr,  # [tokens, heads, 2 * half_dim] bfloat16, rows stride_qt / stride_qh apart
    k_ptr,  # [tokens, kv_heads, 2 * half_dim] bfloat16 (unused when not HAS_K)
    cos_ptr,  # [tokens, half_dim] float32, contiguous
    sin_ptr,  # [tokens, half_dim] float32, contiguous
    q_out_ptr,  # [tokens, heads, 2 * half_dim] bfloat16, contiguous
    k_out_ptr,  # [tokens, kv_heads, 2 * half_dim] bfloat16, contiguous
    n_tokens,
    n_heads,
    n_kv_heads,
    half_dim,
    stride_qt,
    stride_qh,
    stride_kt,
    stride_kh,
    HAS_K: tl.constexpr,  # rotate k too (rope_qk), or only q (rope)
    BLOCK_T: tl.constexpr,  # tokens per program
    BLOCK_HQ: tl.constexpr,  # q heads per step
    BLOCK_HK: tl.constexpr,  # k heads per step
    BLOCK_D: tl.constexpr,  # columns of a half (a power of two >= half_dim)
):
    # 64-bit tokens: token * stride_qt passes 2^31 on large (or padded) tensors.
    t = tl.program_id(axis=0).to(tl.int64) * BLOCK_T + tl.arange(0, BLOCK_T)
    t_mask = t < n_tokens  # the last program runs past the last token
    d = tl.arange(0, BLOCK_D)
    tab_mask = t_mask[:, None] & (d < half_dim)[None, :]
    tab = t[:, None] * half_dim + d[None, :]
    c = tl.load(cos_ptr + tab, mask=tab_mask)[:, None, :]  # one row per token, for all heads
    s = tl.load(sin_ptr + tab, mask=tab_mask)[:, None, :]
    _rotate(q_ptr, q_out_ptr, t, t_mask, n_heads, half_dim, stride_qt, stride_qh, c, s,
            BLOCK_HQ, BLOCK_D)
    if HAS_K:
        _rotate(k_ptr, k_out_ptr, t, t_mask, n_kv_heads, half_dim, stride_kt, stride_kh, c, s,
                BLOCK_HK, BLOCK_D)


def _heads_block(heads: int, block_d: int) -> int:
    return max(1, min(triton.next_power_of_2(heads), MAX_BLOCK_H, max(1, 8192 // block_d)))


def rope_pair_triton(q: torch.Tensor, k: torch.Tensor | None, cos: torch.Tensor,
                     sin: torch.Tensor, q_out: torch.Tensor, k_out: torch.Tensor | None) -> None:
    """Rotate q (and k, if given) by the tables' rows, one launch."""
    tokens, heads, head_dim = q.shape
    half = head_dim // 2
    assert head_dim == 2 * half == 2 * cos.shape[1], "head_dim must be 2 * the tables' width"
    assert q.stride(2) == 1 and q_out.is_contiguous(), "head rows must be contiguous"
    assert cos.is_contiguous() and sin.is_contiguous(), "the tables must be contiguous"
    kv_heads = k.shape[1] if k is not None else 0
    if k is not None:
        assert k.stride(2) == 1 and k_out.is_contiguous(), "head rows must be contiguous"
    if tokens == 0:
        return
    block_d = triton.next_power_of_2(half)
    block_hq = _heads_block(heads, block_d)
    block_hk = _heads_block(max(kv_heads, 1), block_d)
    block_t = max(1, TILE // (block_hq * block_d))  # a power of two: TILE and both factors are
    grid = (triton.cdiv(tokens, block_t),)
    rope_qk_kernel[grid](
        q, k if k is not None else q, cos, sin, q_out, k_out if k_out is not None else q_out,
        tokens, heads, kv_heads, half, q.stride(0), q.stride(1),
        k.stride(0) if k is not None else 0, k.stride(1) if k is not None else 0,
        HAS_K=k is not None, BLOCK_T=block_t, BLOCK_HQ=block_hq, BLOCK_HK=block_hk,
        BLOCK_D=block_d, num_warps=NUM_WARPS)


def rope_one_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                    out: torch.Tensor) -> None:
    """One tensor (lab11's `rope`): defined here, beside the constants, so that the tuner finds
    this module's TUNE from either exercise's launcher."""
    rope_pair_triton(x, None, cos, sin, out, None)
