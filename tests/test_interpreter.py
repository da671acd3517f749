"""Triton under the interpreter (CPU), as the grader patches it: libdevice's numpy versions give
what torch gives and refuse what a GPU refuses; a scalar comparison is a mask; a float32 tl.dot
is TF32 unless its input_precision says otherwise; bfloat16 arithmetic computes on numbers,
not on their bit patterns."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = r"""
from grader.backends import interpreter
interpreter.ensure("cpu")
import torch, triton, triton.language as tl
from triton.language.extra import libdevice

@triton.jit
def mix(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = libdevice.tanh(x) + libdevice.erf(x) + libdevice.pow(x, 2.0) + libdevice.rsqrt(x * x + 1.0)
    tl.store(out_ptr + offs, y + libdevice.isnan(x).to(tl.float32), mask=mask)

x = torch.randn(100, generator=torch.Generator().manual_seed(0))
out = torch.empty(100)
mix[(1,)](x, out, 100, BLOCK=128)
want = torch.tanh(x) + torch.erf(x) + x * x + torch.rsqrt(x * x + 1)
print("err", float((out - want).abs().max()))

@triton.jit
def tanh16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, libdevice.tanh(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)

xb = torch.randn(10).bfloat16()
try:
    tanh16[(1,)](xb, torch.empty_like(xb), 10, BLOCK=16)
    print("bf16 accepted")
except Exception as exc:
    print("bf16 refused:", exc)

@triton.jit
def two_rows(x_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in tl.static_range(2):  # a scalar row test joins a block mask
        row = tl.program_id(0).to(tl.int64) * 2 + i
        ok = (offs < n_cols) & (row < n_rows)
        tl.store(x_ptr + row * n_cols + offs, tl.load(x_ptr + row * n_cols + offs, mask=ok) + 1,
                 mask=ok)

rows = torch.zeros(3, 5)
two_rows[(2,)](rows, 3, 5, BLOCK=8)
print("rows", int(rows.sum()))

@triton.jit
def to_bf16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, x.to(tl.bfloat16), mask=offs < n)

xf = torch.randn(1000, generator=torch.Generator().manual_seed(1)) * 3
xf[:4] = torch.tensor([1.9577, float("nan"), float("inf"), -0.0])
ob = torch.empty(1000, dtype=torch.bfloat16)
to_bf16[(1,)](xf, ob, 1000, BLOCK=1024)
print("bf16 off", int((ob.view(torch.int16) != xf.to(torch.bfloat16).view(torch.int16)).sum()))

@triton.jit
def int_to_bf16(x_ptr, out_ptr, back_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n).to(tl.bfloat16)
    tl.store(out_ptr + offs, v, mask=offs < n)
    tl.store(back_ptr + offs, v.to(tl.int32), mask=offs < n)

nib = torch.tensor([1, -3, 7, 100, 0, -8], dtype=torch.int32)
ib, iback = torch.empty(6, dtype=torch.bfloat16), torch.empty(6, dtype=torch.int32)
int_to_bf16[(1,)](nib, ib, iback, 6, BLOCK=8)
print("int bf16", ib.tolist() == nib.to(torch.bfloat16).tolist(), iback.tolist() == nib.tolist())
from triton.runtime.interpreter import InterpreterBuilder
patched = InterpreterBuilder.cast_impl
InterpreterBuilder.cast_impl = patched.shipped
int_to_bf16[(1,)](nib, ib, iback, 6, BLOCK=8)
InterpreterBuilder.cast_impl = patched
print("int bf16 shipped", ib.tolist() == nib.to(torch.bfloat16).tolist())

@triton.jit
def dot(a_ptr, b_ptr, c_ptr, PRECISION: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    c = tl.dot(a, b) if PRECISION == "default" else tl.dot(a, b, input_precision=PRECISION)
    tl.store(c_ptr + r[:, None] * 32 + r[None, :], c)

def tf32(t):  # what a GPU's tensor cores read of a float32: its top 19 bits
    return (t.view(torch.int32) & ~0x1FFF).view(torch.float32)

g = torch.Generator().manual_seed(2)
a, b, c = torch.randn(32, 32, generator=g), torch.randn(32, 32, generator=g), torch.empty(32, 32)
exact, cut = a.double() @ b.double(), tf32(a).double() @ tf32(b).double()
for precision in ("default", "tf32", "ieee", "tf32x3"):
    dot[(1,)](a, b, c, PRECISION=precision)
    print("dot", precision, float((c - exact).abs().max()), float((c - cut).abs().max()))
half = torch.empty(32, 32)
dot[(1,)](a.half(), b.half(), half, PRECISION="default")
print("dot fp16", float((half - a.half().double() @ b.half().double()).abs().max()))
dot[(1,)](a.bfloat16(), b.bfloat16(), half, PRECISION="default")
print("dot bf16", float((half - a.bfloat16().double() @ b.bfloat16().double()).abs().max()))
from triton.runtime.interpreter import InterpreterBuilder as _IB
_patched_dot, _IB.create_dot = _IB.create_dot, _IB.create_dot.shipped
dot[(1,)](a.bfloat16(), b.bfloat16(), half, PRECISION="default")
_IB.create_dot = _patched_dot
print("dot bf16-shipped", float((half - a.bfloat16().double() @ b.bfloat16().double()).abs().max()))

@triton.jit
def bf16_math(x_ptr, y_ptr, out_ptr, red_ptr, idx_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    tl.store(out_ptr + offs, tl.where(x < y, tl.maximum(x, y) * -x + y, x / y - tl.abs(x)))
    tl.store(out_ptr + BLOCK + offs, tl.cumsum(x, axis=0))
    tl.store(red_ptr, tl.sum(x, axis=0))
    tl.store(red_ptr + 1, tl.max(x, axis=0))
    tl.store(red_ptr + 2, tl.min(x, axis=0))
    tl.store(idx_ptr, tl.argmax(x, axis=0))

g = torch.Generator().manual_seed(3)
xb, yb = torch.randn(64, generator=g).bfloat16(), torch.randn(64, generator=g).bfloat16()
outb, red = torch.empty(128, dtype=torch.bfloat16), torch.empty(3, dtype=torch.bfloat16)
idx = torch.empty(1, dtype=torch.int32)

def bf16_ulps():  # worst error in units of the bfloat16 result's last place (2^-7 relative)
    bf16_math[(1,)](xb, yb, outb, red, idx, BLOCK=64)
    xs = xb.float()
    want = torch.cat([torch.where(xb < yb, torch.maximum(xb, yb) * -xb + yb,
                                  xb / yb - xb.abs()).float(), xs.cumsum(0),
                      torch.stack([xs.sum(), xs.max(), xs.min()])])
    got = torch.cat([outb.float(), red.float()])
    ulps = (got - want).abs() / (want.abs() * 2.0 ** -7).clamp_min(2.0 ** -126)
    return float(ulps.max()), int(idx) == int(xs.argmax())

print("bf16 math", *bf16_ulps())
from triton.runtime.interpreter import InterpreterBuilder, ReduceOps, ScanOps
for cls in (InterpreterBuilder, ReduceOps, ScanOps):  # the interpreter as Triton ships it
    for name, fn in list(vars(cls).items()):
        if getattr(fn, "tclab_bf16", False):
            setattr(cls, name, fn.__wrapped__)
print("bf16 raw", *bf16_ulps())
"""


def test_libdevice_runs_under_the_interpreter():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    err = float(proc.stdout.split("err", 1)[1].split()[0])
    assert err < 1e-5, proc.stdout
    assert "bf16 refused" in proc.stdout and "convert with .to(tl.float32)" in proc.stdout, \
        proc.stdout
    assert "rows 15" in proc.stdout, proc.stdout  # every element of 3 x 5 once, none past
    assert "bf16 off 0" in proc.stdout, proc.stdout  # rounded to nearest even, as torch and a GPU
    # Integers to bfloat16 and back by value (the interpreter as shipped reinterprets the bits:
    # int32 1 becomes 9.2e-41, -3 a NaN).
    assert "int bf16 True True" in proc.stdout, proc.stdout
    assert "int bf16 shipped False" in proc.stdout, proc.stdout
    dots = {line.split()[1]: [float(v) for v in line.split()[2:]]
            for line in proc.stdout.splitlines() if line.startswith("dot")}
    # tl.dot on float32 is TF32 unless told otherwise, as on a GPU: off from the float64 result
    # by what TF32's 10 mantissa bits lose (about 1e-2 here), equal to the product of the
    # TF32-cut inputs up to float32 rounding; "ieee" and "tf32x3" (the negative control) stay
    # float32-accurate; float16 inputs (exact in TF32 too) are untouched.
    for precision in ("default", "tf32"):
        off, cut = dots[precision]
        assert off > 2e-3 and cut < 1e-4, (precision, proc.stdout)
    for precision in ("ieee", "tf32x3"):
        assert dots[precision][0] < 1e-4, (precision, proc.stdout)
    assert dots["fp16"][0] < 1e-4, proc.stdout
    # bfloat16 operands multiply as the numbers they hold (exact products, float32 sums); the
    # interpreter as shipped (the control) multiplies their bit patterns.
    assert dots["bf16"][0] < 1e-4 and dots["bf16-shipped"][0] > 1e3, proc.stdout
    # bfloat16 arithmetic, comparisons and reductions on the numbers, rounded once per
    # operation: within one ulp of torch's bfloat16 ops (the cumulative sum within two: it
    # rounds at every step), the argmax right. The interpreter as shipped computes on the bit
    # patterns (the negative control): millions of ulps off.
    math = next(line.split()[2:] for line in proc.stdout.splitlines()
                if line.startswith("bf16 math"))
    assert float(math[0]) <= 2.0 and math[1] == "True", proc.stdout
    raw = next(line.split()[2:] for line in proc.stdout.splitlines()
               if line.startswith("bf16 raw"))
    assert float(raw[0]) > 1e3, proc.stdout



OVERFLOW = r"""
from grader.backends import interpreter
interpreter.ensure("cpu")
import torch, triton, triton.language as tl
from triton.runtime import interpreter as interp

@triton.jit
def wrap(out_ptr, a, b):
    tl.store(out_ptr, a * b + 7)

out = torch.zeros(1, dtype=torch.int32)
wrap[(1,)](out, 2**20, 2**12)  # 2^32 + 7 in int32
print("wrapped", out.item())
print("checks", interp.interpreter_builder.options.sanitize_overflow,
      "as shipped", interp.InterpreterOptions().sanitize_overflow)
"""


def test_int32_arithmetic_is_not_checked_and_wraps_as_on_a_gpu():
    """The interpreter as shipped checks every int32 add, subtract and multiply for overflow
    (a third of lab01's interpreted time), and its assert fires only in debug mode: the work
    is for nothing here. Off (`_patch_overflow_checks`); int32 wraps, as a compiled kernel's
    does. The control: a fresh InterpreterOptions still has the check on."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", OVERFLOW], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "wrapped 7" in proc.stdout, proc.stdout
    assert "checks False as shipped True" in proc.stdout, proc.stdout


DESCRIPTORS = r"""
import sys

import pytest
from grader.backends import interpreter
interpreter.ensure(sys.argv[1])
import threading
import torch, triton, triton.language as tl

@triton.jit
def dot_t(a_ptr, b_ptr, c_ptr, n, k, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Descriptors built in the kernel (the scratch allocator's case on a GPU); b read [n, k]
    # and transposed, as a K-contiguous weight is; rows past m and n are zeros.
    a = tl.make_tensor_descriptor(a_ptr, shape=[BM, k], strides=[k, 1], block_shape=[BM, BK])
    b = tl.make_tensor_descriptor(b_ptr, shape=[n, k], strides=[k, 1], block_shape=[BN, BK])
    c = tl.make_tensor_descriptor(c_ptr, shape=[BM, n], strides=[n, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, k, BK):
        acc = tl.dot(a.load([0, k0]), b.load([0, k0]).T, acc)
    c.store([0, 0], acc)

dev = "cuda" if sys.argv[1] == "gpu" else "cpu"
g = torch.Generator().manual_seed(0)
for dtype in (torch.bfloat16, torch.float16):
    a = torch.randn(16, 48, generator=g).to(dtype).to(dev)
    b = torch.randn(24, 48, generator=g).to(dtype).to(dev)
    c = torch.zeros(16, 24, device=dev)
    t = threading.Thread(target=lambda: dot_t[(1,)](a, b, c, 24, 48, BM=16, BN=32, BK=16))
    t.start(); t.join()  # a launch from another thread (the grader's lanes)
    print("desc", str(dtype)[6:], float((c - a.float() @ b.float().T).abs().max()))
"""


def _descriptors(device: str):
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", DESCRIPTORS, device], capture_output=True,
                          text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    errs = {line.split()[1]: float(line.split()[2]) for line in proc.stdout.splitlines()
            if line.startswith("desc")}
    assert set(errs) == {"bfloat16", "float16"}, proc.stdout
    # Products of 16-bit floats are exact in float32; only the order of 48 sums differs.
    assert all(e < 1e-3 for e in errs.values()), proc.stdout


def test_tensor_descriptors_load_bfloat16_for_tl_dot_under_the_interpreter():
    """A kernel that reads its tiles through tensor descriptors (TMA on a GPU) is graded on the
    CPU too: bfloat16 tiles loaded through `tl.make_tensor_descriptor`, one transposed, reach
    tl.dot as the numbers they hold (the interpreter as shipped multiplies their bit patterns:
    `test_libdevice_runs_under_the_interpreter`'s negative control)."""
    _descriptors("cpu")


@pytest.mark.gpu
def test_tensor_descriptors_built_in_a_kernel_launch_on_a_gpu_from_any_thread():
    """`tl.make_tensor_descriptor` needs global scratch from Triton's allocator; the grader
    gives every GPU process one (`scratch.give_triton`), which a launch from another thread
    sees too (Triton's own `set_allocator` reaches the calling thread only)."""
    _descriptors("gpu")


SCRATCH = r"""
import threading
from contextvars import ContextVar
from triton.runtime import _allocation as alloc
from grader.backends import scratch
before = alloc._allocator.get()
scratch.give_triton()
seen = []
t = threading.Thread(target=lambda: seen.append(alloc._allocator.get()))
t.start(); t.join()
null = alloc._NULL_ALLOCATOR
print("null before", before is null, "thread", seen[0] is not null)
mine = lambda size, alignment, stream: None
import triton
triton.set_allocator(mine)
scratch.give_triton()  # again: the process's own allocator stays
print("own kept", alloc._allocator.get() is mine)
"""


def test_the_scratch_allocator_is_every_threads_default_and_an_own_one_stays():
    """Without a GPU (nothing is allocated until a kernel asks): `scratch.give_triton` makes
    torch's allocator the default in every thread, where Triton's is an error; an allocator
    the process set itself is kept."""
    proc = subprocess.run([sys.executable, "-c", SCRATCH], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "null before True thread True" in proc.stdout, proc.stdout
    assert "own kept True" in proc.stdout, proc.stdout
