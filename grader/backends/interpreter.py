"""Make this process's device choice take effect for Triton, whatever was imported before.

Without a GPU, Triton must run in its interpreter, and Triton decides that once per function,
when `@triton.jit` runs: with `TRITON_INTERPRET=1` it makes an `InterpretedFunction`, else a
`JITFunction`. `triton.language` decorates its own helpers (`tl.max`, `tl.sum`, ...) that way
when it is first imported. A notebook whose first cell imports triton before the grader has
switched the interpreter on therefore keeps compiled-mode helpers, and a kernel that calls
`tl.max` fails under the interpreter with "Cannot call @triton.jit'd outside of the scope of a
kernel" - even a correct one.

`ensure("cpu")` switches the interpreter on and, if triton was already imported without it,
imports triton afresh and points the importer's names (`triton`, `tl`, `from triton.language
import constexpr`, ...) at the new objects. The importer is the first frame outside importlib
and outside `grader`: a notebook's user namespace when a cell imports `grader.notebook`.
Kernels decorated before the repair stay compiled-mode: their cell must run again.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
import warnings
from types import ModuleType

# Kept: the native library has no interpreter state and cannot load twice (triton 3.9 aborts:
# "nanobind: refusing to add duplicate key"; 3.6: "'triton._C.libtriton' is not a package").
_KEEP = ("triton._C",)


def _is_triton(name: str) -> bool:
    return name == "triton" or name.startswith("triton.")


def needs_repair() -> bool:
    """Whether triton is imported and its language was built without the interpreter."""
    if not any(_is_triton(name) for name in sys.modules):
        return False
    tl = sys.modules.get("triton.language")
    interp = sys.modules.get("triton.runtime.interpreter")
    cls = getattr(interp, "InterpretedFunction", None)
    return tl is None or cls is None or not isinstance(getattr(tl, "max", None), cls)


def _importer_globals() -> dict:
    """The globals of the first frame outside importlib and outside this package."""
    frame = sys._getframe(1)
    while frame is not None:
        name = str(frame.f_globals.get("__name__", ""))
        if name.split(".")[0] not in ("importlib", "grader"):
            return frame.f_globals
        frame = frame.f_back
    return {}


def _rebind(namespace: dict, old: dict[str, ModuleType]) -> list[str]:
    """Point every name in `namespace` that holds an old triton module, or an object taken
    from one, at its counterpart in the fresh import; return the names rebound."""
    rebound = []
    for name, value in list(namespace.items()):
        if isinstance(value, ModuleType):
            if old.get(value.__name__) is not value:
                continue
            new = importlib.import_module(value.__name__)
        else:
            home = getattr(value, "__module__", None)
            module = old.get(home) if isinstance(home, str) else None
            attr = next((a for a, v in vars(module).items() if v is value), None) \
                if module is not None else None
            if attr is None:
                continue
            new = getattr(importlib.import_module(home), attr, value)
        if new is not value:
            namespace[name] = new
            rebound.append(name)
    return rebound


def repair(namespace: dict) -> list[str]:
    """Import triton afresh (its native library kept) and rebind `namespace`'s names to it."""
    old = {name: mod for name, mod in sys.modules.items()
           if _is_triton(name) and not name.startswith(_KEEP)}
    for name in old:
        del sys.modules[name]
    importlib.import_module("triton")
    importlib.import_module("triton.language")
    return _rebind(namespace, old)


def _untimed(fn, quantiles=None, **kwargs):
    """The autotuner's benchmark under the interpreter: no driver to time with, and a time
    measured there says nothing about a GPU. Every config ties; the first one runs."""
    return [0.0] * len(quantiles) if quantiles else 0.0


def _patch_autotuner() -> None:
    """`@triton.autotune` benchmarks its configs through the GPU driver, which the interpreter
    does not have ("0 active drivers"): give it a benchmark that needs none."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:
        return
    Autotuner.do_bench = property(lambda self: _untimed)


def _patch_overflow_checks() -> None:
    """The interpreter checks every 32-bit integer add, subtract and multiply for overflow (a
    cast to int64, two comparisons and an assert each: a third of a vector add's interpreted
    time, lab01 on the CPU), and its assert, as a compiled kernel's, fires only in debug mode:
    the work was for nothing. Off; int32 wraps, as on a GPU (the labs' CPU shapes stay far
    from 2^31; 64-bit offsets are a GPU suite's test)."""
    try:
        from triton.runtime import interpreter as interp
    except ImportError:
        return
    builder = getattr(interp, "interpreter_builder", None)
    options = getattr(builder, "options", None)
    if dataclasses.is_dataclass(options) and getattr(options, "sanitize_overflow", False):
        builder.options = dataclasses.replace(options, sanitize_overflow=False)


# --- libdevice under the interpreter --------------------------------------------------------
# `triton.language.extra.libdevice` (tanh, erf, pow, ...) is compiled to CUDA's libdevice; the
# interpreter has no implementation and its calls return None ("unsupported operand type(s)
# for +: 'float' and 'NoneType'"). The same functions in numpy, in the argument's precision.
_UNARY = {name: name for name in (
    "tanh", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "sin", "cos", "tan", "arcsin",
    "arccos", "arctan", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt",
    "floor", "ceil", "trunc", "rint", "isnan", "isinf", "isfinite", "signbit")}
_UNARY.update(asinh="arcsinh", acosh="arccosh", atanh="arctanh", asin="arcsin", acos="arccos",
              atan="arctan", fabs="abs", abs="abs", nearbyint="rint", isfinited="isfinite")
_BINARY = {"pow": "power", "atan2": "arctan2", "fmin": "fmin", "fmax": "fmax", "fmod": "fmod",
           "hypot": "hypot", "copysign": "copysign"}


def _libdevice_np(name: str):
    import numpy as np

    special = {"rsqrt": lambda a: 1 / np.sqrt(a), "exp10": lambda a: np.power(10, a),
               "round": lambda a: np.trunc(a + np.copysign(np.asarray(0.5, a.dtype), a)),
               "fma": lambda a, b, c: a * b + c}
    if name in ("erf", "erfc"):
        import math

        one = np.vectorize(math.erf if name == "erf" else math.erfc)
        return lambda a: one(a).astype(a.dtype)
    if name in special:
        return special[name]
    return getattr(np, _UNARY.get(name) or _BINARY[name])


def _libdevice_function(name: str):
    import numpy as np
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle

    op = _libdevice_np(name)

    def call(*args, **_):
        tensors = [a for a in args if isinstance(a, tl.core.tensor)]
        for t in tensors:
            if t.dtype not in (tl.float32, tl.float64):
                raise TypeError(f"libdevice.{name} takes float32 or float64, got {t.dtype}: "
                                "convert with .to(tl.float32) first (a GPU refuses it too)")
        dtype = tensors[0].dtype if tensors else tl.float32
        np_type = np.float64 if dtype == tl.float64 else np.float32
        data = [a.handle.data if isinstance(a, tl.core.tensor) else np_type(a) for a in args]
        out = np.asarray(op(*data))
        if out.dtype == bool:  # isnan and the like answer in int32, as libdevice does
            out, dtype = out.astype(np.int32), tl.int32
        else:
            out = out.astype(np_type)
        shaped = tl.core.block_type(dtype, list(out.shape)) if out.shape else dtype
        return tl.core.tensor(TensorHandle(out, dtype), shaped)
    return call


def _patch_libdevice() -> None:
    """Every launch under the interpreter also gets numpy libdevice functions (restored with
    the rest of its patches)."""
    import importlib

    try:
        from triton.runtime import interpreter
    except ImportError:
        return
    original = interpreter._patch_lang
    if getattr(original, "tclab_libdevice", False) or \
            not hasattr(interpreter, "_LangPatchScope"):
        return  # already patched, or a Triton whose interpreter keeps no patch scope
    modules = []
    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            modules.append(importlib.import_module(name))
        except ImportError:
            pass
    functions = {n: _libdevice_function(n)
                 for n in (*_UNARY, *_BINARY, "rsqrt", "exp10", "round", "fma", "erf", "erfc")}

    def patch_lang(fn):
        scope = original(fn)
        for module in modules:
            for name, function in functions.items():
                if hasattr(module, name):
                    scope.set_attr(module, name, function)
        return scope

    patch_lang.tclab_libdevice = True
    interpreter._patch_lang = patch_lang


def _patch_tf32_dot() -> None:
    """`tl.dot` on float32 blocks uses TF32 by default (`input_precision="tf32"`): on a GPU the
    tensor cores read each float32 operand as TF32, its top 19 bits (sign, exponent and 10 of
    the 23 mantissa bits: the float32 bits go in unconverted, so the other 13 are dropped).
    Triton's interpreter (3.9) computes every float32 dot in full float32 whatever the
    precision says, so a kernel that forgot `input_precision="ieee"` passed a float32
    tolerance on a CPU only. The operands are cut to TF32 here as on the GPU; "tf32x3" (three
    TF32 products, about float32's accuracy) and "ieee" stay in float32. bfloat16 operands,
    which the interpreter keeps as bit patterns, are multiplied as the numbers they hold."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle
    except ImportError:
        return
    original = InterpreterBuilder.create_dot
    if getattr(original, "tclab_tf32", False):
        return

    def tf32(handle):
        if handle.dtype.scalar != tl.float32:
            return handle
        bits = np.ascontiguousarray(handle.data, dtype=np.float32).view(np.uint32)
        return TensorHandle((bits & np.uint32(0xFFFFE000)).view(np.float32), handle.dtype.scalar)

    def bf16_values(handle):
        """bfloat16 operands as the numbers they hold (the interpreter keeps their bits: a dot
        of the bits multiplied bit patterns, about 1e10 each), exactly, in float32."""
        if handle.dtype.scalar != tl.bfloat16:
            return handle
        bits = np.asarray(handle.data, dtype=np.uint16).astype(np.uint32) << 16
        return TensorHandle(bits.view(np.float32), tl.float32)

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        a, b = bf16_values(a), bf16_values(b)  # products of bfloat16s are exact in float32
        if getattr(input_precision, "name", str(input_precision)).upper() == "TF32":
            a, b = tf32(a), tf32(b)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot.tclab_tf32 = True
    create_dot.shipped = original  # what tests/test_interpreter.py compares against
    InterpreterBuilder.create_dot = create_dot


def _patch_cuda_sync() -> None:
    """`torch.cuda.synchronize()` after a launch (the tutorials' habit) has nothing to wait for
    without a GPU, where every launch runs to its end: a no-op instead of torch's "Torch not
    compiled with CUDA enabled"."""
    import torch

    if not torch.cuda.is_available():
        torch.cuda.synchronize = lambda device=None: None


def _patch_comparisons() -> None:
    """A comparison's result is a mask (int1). Triton 3.9's interpreter labels it with its
    operands' type, so a scalar comparison splat into a block turns into integers, and
    `mask & (row < rows)` (several rows per program) fails its load with "mask has
    unsupported dtype": a correct kernel refused, without a GPU only."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle
    except ImportError:
        return
    for name in dir(InterpreterBuilder):
        original = getattr(InterpreterBuilder, name)
        if not name.startswith(("create_icmp", "create_fcmp")) or \
                getattr(original, "tclab_mask", False):
            continue

        def compare(self, lhs, rhs, _original=original):
            found = _original(self, lhs, rhs)
            return TensorHandle(np.asarray(found.data, dtype=np.bool_), tl.int1)

        compare.tclab_mask = True
        setattr(InterpreterBuilder, name, compare)


def _bf16_bits(numbers):
    """float32 (or float64) numbers -> bfloat16 bit patterns (uint16), rounded to nearest even
    as torch and a GPU's cvt.rn.bf16 round: how the interpreter stores a bfloat16 tensor."""
    import numpy as np
    import torch

    rounded = torch.from_numpy(np.ascontiguousarray(numbers)).to(torch.bfloat16)
    return rounded.view(torch.int16).numpy().view(np.uint16).reshape(np.shape(numbers))


def _np_int(dtype):
    """numpy's integer type for a Triton integer type (tl.int32 -> np.int32)."""
    import numpy as np

    return np.dtype(f"{'u' if dtype.is_int_unsigned() else ''}int{dtype.primitive_bitwidth}")


def _patch_bf16_rounding() -> None:
    """float32 -> bfloat16 rounds to nearest even, as a GPU's cvt.rn.bf16.f32 (and torch) do.
    Triton 3.9's interpreter truncates the mantissa instead (1.9577 stores as 1.9531, torch
    gives 1.9609): a correct kernel was a ulp off on a CPU only. Integers and the other float
    types convert to bfloat16 (and bfloat16 to integers) by value, not by their bits."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, TensorHandle
    except ImportError:
        return
    original = InterpreterBuilder.cast_impl
    if getattr(original, "tclab_rne", False):
        return

    def cast_impl(self, src, dst_type):
        scalar = src.dtype.scalar
        if dst_type.scalar == tl.bfloat16 and (
                scalar.is_int() or scalar in (tl.float16, tl.float32, tl.float64)):
            # Every number type to bfloat16 by value: Triton 3.9 reinterpreted an integer's
            # bits (int32 1 became 9.2e-41, -3 a NaN): honest integer unpacking was refused.
            numbers = np.asarray(src.data).astype(np.float64)
            return TensorHandle(_bf16_bits(numbers), dst_type.scalar)
        if scalar == tl.bfloat16 and dst_type.scalar.is_int():
            # ... and back: bfloat16 to an integer truncates the value toward zero.
            bits = np.asarray(src.data, dtype=np.uint16).astype(np.uint32) << 16
            values = bits.view(np.float32)
            return TensorHandle(np.trunc(values).astype(_np_int(dst_type.scalar)),
                                dst_type.scalar)
        return original(self, src, dst_type)

    cast_impl.tclab_rne = True
    cast_impl.shipped = original  # for the tests' negative control
    InterpreterBuilder.cast_impl = cast_impl


def _patch_bf16_arithmetic() -> None:
    """bfloat16 values are numbers, not their bits. Triton 3.9's interpreter keeps a bfloat16
    tensor as its raw 16-bit patterns (numpy has no bfloat16) and hands those to numpy as
    unsigned integers, so arithmetic, comparisons, `tl.maximum`, `tl.sum`, `tl.max` and
    `tl.cumsum` on bfloat16 computed on bits: `tl.sum` of 64 values gave 3248 where they sum to
    5.92, and -1 compared greater than 1. Here each operation computes in float32 and rounds
    once to bfloat16, as a GPU's bfloat16 instructions do (`tl.sum` rounds once at its end,
    where a GPU rounds at each step of its tree: usually the closer of the two to the exact
    sum)."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime.interpreter import InterpreterBuilder, ReduceOps, ScanOps, TensorHandle
    except ImportError:
        return
    if getattr(InterpreterBuilder.binary_op, "tclab_bf16", False):
        return

    def values(bits):  # bfloat16 bit patterns -> float32 numbers
        return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)

    bits = _bf16_bits

    def is_bf16(handle) -> bool:
        return handle.dtype.scalar == tl.bfloat16

    def patched(cls, name, make):
        original = getattr(cls, name)
        replacement = make(original)
        replacement.tclab_bf16 = True
        replacement.__wrapped__ = original
        setattr(cls, name, replacement)

    def binary_op(original):
        def op(self, lhs, rhs, fn):
            if not is_bf16(lhs):
                return original(self, lhs, rhs, fn)
            out = fn(values(lhs.data), values(rhs.data))
            if out.dtype == np.bool_:  # a comparison: the comparisons' patch makes it a mask
                return TensorHandle(out, lhs.dtype.scalar)
            return TensorHandle(bits(out), tl.bfloat16)
        return op

    def unary_op(original):
        def op(self, arg, fn):
            if not is_bf16(arg):
                return original(self, arg, fn)
            return TensorHandle(bits(fn(values(arg.data))), tl.bfloat16)
        return op

    def ternary_op(original):
        def op(self, a, b, c, fn):  # np.where selects bit patterns as they are: left alone
            if fn is np.where or not is_bf16(c):
                return original(self, a, b, c, fn)
            return TensorHandle(bits(fn(values(a.data), values(b.data), values(c.data))),
                                tl.bfloat16)
        return op

    def fma(original):
        def op(self, x, y, z):
            if not is_bf16(z):
                return original(self, x, y, z)
            exact = values(x.data).astype(np.float64) * values(y.data) + values(z.data)
            return TensorHandle(bits(exact), tl.bfloat16)  # one rounding, as an fma
        return op

    def as_bf16(ops, t):  # a float32 result back to bfloat16; indices stay as they are
        if t.dtype.scalar != tl.float32:
            return t
        data = bits(t.handle.data)
        return ops.to_tensor(data if t.type.is_block() else data.reshape(()), tl.bfloat16)

    def through_float32(original):  # tl.sum, tl.max, a scan: on the numbers, rounded back
        def op(self, input, *args, **kwargs):
            first = input[0] if isinstance(input, tuple) else input  # min_max: (values, indices)
            if first.dtype.scalar != tl.bfloat16:
                return original(self, input, *args, **kwargs)
            found = original(self, self.to_tensor(values(first.handle.data), tl.float32),
                             *args, **kwargs)
            if isinstance(found, (tuple, list)):  # a scan's [values], min_max's (values, index)
                return type(found)(as_bf16(self, t) for t in found)
            return as_bf16(self, found)
        return op

    patched(InterpreterBuilder, "binary_op", binary_op)
    patched(InterpreterBuilder, "unary_op", unary_op)
    patched(InterpreterBuilder, "ternary_op", ternary_op)
    patched(InterpreterBuilder, "create_fma", fma)
    for cls, name in ((ReduceOps, "sum"), (ReduceOps, "min_max"), (ScanOps, "cumsum"),
                      (ScanOps, "cumprod")):
        patched(cls, name, through_float32)


def ensure(device: str) -> None:
    """Fix `device` ("cpu" or "gpu") for this process and its children (on "gpu": Triton's
    scratch allocator, `scratch.give_triton`); on "cpu", also for a
    triton imported earlier (see the module docstring), `@triton.autotune`, libdevice,
    comparisons, rounding to bfloat16, TF32 dots and `torch.cuda.synchronize()`."""
    os.environ["TCLAB_DEVICE"] = device
    if device != "cpu":
        from grader.backends import scratch
        scratch.give_triton()
        return
    os.environ["TRITON_INTERPRET"] = "1"
    # numpy's "overflow encountered in exp" from the interpreter: a GPU computes the same inf
    # silently, and any stderr in a graded cell costs its points under nbgrader.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"triton\.")
    if needs_repair():
        repair(_importer_globals())
    _patch_autotuner()
    _patch_overflow_checks()
    _patch_libdevice()
    _patch_comparisons()
    _patch_bf16_rounding()
    _patch_bf16_arithmetic()
    _patch_tf32_dot()
    _patch_cuda_sync()
