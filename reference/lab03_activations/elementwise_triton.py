"""Reference Triton kernels of lab03's five activations: the perf bar (hidden from students).

One kernel, `activation_kernel`, specialised per op by the constexpr OP (and per dtype by
Triton). `relu_triton.py`, `leaky_relu_triton.py`, ... each export one launcher from here.

Byte ledger (every op): read x once, write out once: 2 * n * itemsize (lab.toml's `bytes`).
Each op is computed in float32 and rounded once to the input's dtype; NaN propagates as in
torch (selects whose comparison is False for NaN, never tl.maximum / tl.minimum), and the
argument of exp is never positive, so it cannot overflow.
"""

import torch
import triton
import triton.language as tl

# A program is NUM_WARPS x 32 threads, each moving BYTES_PER_THREAD of x (BLOCK_SIZE =
# threads x BYTES_PER_THREAD / itemsize elements). 16-bit dtypes have constants of their own:
# at the same bytes per thread they are twice the elements, twice the arithmetic per byte
# (silu: an exponential and a division per element), and the sweep on an H200 found another
# best (fp32's 8 warps x 16 B reached only 87-89% of the roof in float16).
NUM_WARPS = 4  # swept on an H200 (2026-12-01), docs/perf.md
BYTES_PER_THREAD = 16  # swept on an H200 (2026-12-01), docs/perf.md
NUM_WARPS_16 = 4  # swept on an H200 (2026-12-01), docs/perf.md
BYTES_PER_THREAD_16 = 16  # swept on an H200 (2026-12-01), docs/perf.md
# The sweep's candidates (benchmarks/tune_references.py tries each in turn):
# STREAM: x loaded evict-first and out stored streaming (".cs"): nothing is read again. Swept
# on an H200 (2026-12-01): 2% slower over the 15 cases (4172 against 4254 GB/s), so off.
STREAM = False
TUNE = {"NUM_WARPS": (4, 8, 16), "BYTES_PER_THREAD": (16, 32, 64),
        "NUM_WARPS_16": (2, 4, 8, 16), "BYTES_PER_THREAD_16": (16, 32, 64),
        "STREAM": (False, True)}


@triton.jit
def activation_kernel(
    x_ptr,  # input: float32, float16 or bfloat16
    out_ptr,  # output, same dtype and length
    n_elements,  # number of elements
    a,  # first parameter: alpha (leaky_relu), lo (clip); unused otherwise
    b,  # second parameter: hi (clip); unused otherwise
    OP: tl.constexpr,  # "relu" | "leaky_relu" | "sigmoid" | "silu" | "clip"
    BLOCK_SIZE: tl.constexpr,  # elements per program
    STREAM: tl.constexpr,  # streaming cache hints (see STREAM above)
):
    pid = tl.program_id(axis=0).to(tl.int64)  # pid * BLOCK_SIZE passes 2^31 past 2^31 elements
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements  # the last block runs past the end
    if STREAM:
        x = tl.load(x_ptr + offs, mask=mask, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if OP == "relu":
        y = tl.where(x < 0.0, 0.0, x)  # NaN < 0 is False: NaN stays
    elif OP == "leaky_relu":
        y = tl.where(x < 0.0, a * x, x)
    elif OP == "clip":
        y = tl.where(x < a, a, tl.where(x > b, b, x))  # NaN falls through both
    else:  # sigmoid, silu: e = exp(-|x|) is in (0, 1], 1 + e in [1, 2]
        e = tl.exp(-tl.abs(x))
        if OP == "silu":
            # x * sigmoid(x) with one division (Triton's fast one, div.full.f32): x / (1 + e)
            # for x >= 0, x * e / (1 + e) below. In float16 the reciprocal and two products
            # moved 91% of the roof, this 97% (H200, 2026-12-02). NaN and -inf: x * e is NaN,
            # as torch's silu(-inf).
            y = tl.where(x >= 0.0, x, x * e) / (1.0 + e)
        else:
            r = 1.0 / (1.0 + e)  # Triton's float32 division: the fast one (div.full.f32)
            y = tl.where(x >= 0.0, r, e * r)  # NaN: e * r is NaN
    if STREAM:
        tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask, cache_modifier=".cs")
    else:
        tl.store(out_ptr + offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def launch(op: str, x: torch.Tensor, out: torch.Tensor, a: float = 0.0, b: float = 0.0) -> None:
    assert x.shape == out.shape and x.dtype == out.dtype, \
        f"x {x.dtype} {tuple(x.shape)} vs out {out.dtype} {tuple(out.shape)}"
    n = out.numel()
    size = out.element_size()
    warps, nbytes = (NUM_WARPS, BYTES_PER_THREAD) if size == 4 else \
        (NUM_WARPS_16, BYTES_PER_THREAD_16)
    block = warps * 32 * nbytes // size
    grid = (triton.cdiv(n, block),)
    activation_kernel[grid](x, out, n, a, b, OP=op, BLOCK_SIZE=block, STREAM=STREAM,
                            num_warps=warps)


def relu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("relu", x, out)


def leaky_relu_triton(x: torch.Tensor, out: torch.Tensor, alpha: float) -> None:
    launch("leaky_relu", x, out, alpha)


def sigmoid_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("sigmoid", x, out)


def silu_triton(x: torch.Tensor, out: torch.Tensor) -> None:
    launch("silu", x, out)


def clip_triton(x: torch.Tensor, out: torch.Tensor, lo: float, hi: float) -> None:
    launch("clip", x, out, lo, hi)
