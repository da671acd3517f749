"""Kernel arguments as students pass them to pycuda, checked and turned into the bytes a
kernel receives. CUDA passes parameters by value with fixed widths, so a Python int (is it
32 or 64 bits?) is refused with a message saying what to pass instead."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np


class In:
    """pycuda.driver.In: an input array (copied to the GPU on that backend)."""

    def __init__(self, array):
        self.array = array


class Out(In):
    """pycuda.driver.Out: an output array (copied back from the GPU on that backend)."""


class InOut(In):
    """pycuda.driver.InOut: copied both ways on the GPU backend."""


@dataclass(eq=False)  # identity: owner may be a tensor, whose == is elementwise
class Buffer:
    """Memory a pointer argument points into: the whole allocation, which a kernel may
    legitimately reach (a padded row's stride, a guard region around an output)."""

    start: int
    nbytes: int
    itemsize: int
    dtype: str
    owner: object  # keeps the array or tensor alive, and lets checks copy it


@dataclass(eq=False)
class Arg:
    index: int
    name: str | None
    payload: bytes  # what the kernel receives for this parameter
    pointer: int | None = None  # pointer parameters: the address passed
    buffer: Buffer | None = None  # when known: the allocation behind the pointer

    @property
    def label(self) -> str:
        return label(self.index, self.name)


def label(index: int, name: str | None) -> str:
    return f"argument {index} ('{name}')" if name else f"argument {index}"


def is_python_scalar(x) -> bool:
    """int/float/bool, but not numpy's scalars (np.float64 subclasses float)."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def python_scalar_error(index: int, name: str | None, value, param: Param | None = None
                        ) -> TypeError:
    """The message for int/float/bool passed where CUDA needs a fixed-width type."""
    what = type(value).__name__
    if param is not None:
        hint = param.numpy_hint(value)
        why = f"CUDA needs a fixed-width type; the parameter is {_a(param.ctype)}"
    else:
        hint = f"np.int32({int(value)})" if isinstance(value, int) else f"np.float32({value})"
        why = "CUDA needs a fixed-width type"
    return TypeError(f"{label(index, name)} is a Python {what}: pass {hint} ({why})")


_C_INTS = {1: "char", 2: "short", 4: "int", 8: "long long"}


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the compiler deduced it (see tclab_param_info in abi.h)."""

    kind: str  # P pointer, i/u integer, f float, h __half, b __nv_bfloat16, ? bool, S struct
    size: int
    pointee: str = ""  # for pointers: the kind pointed to ('v' void)
    pointee_size: int = 0

    @staticmethod
    def _ctype(kind: str, size: int) -> str:
        if kind == "f":
            return {4: "float", 8: "double"}.get(size, f"{size * 8}-bit float")
        if kind == "i":
            return "signed char" if size == 1 else _C_INTS.get(size, f"int{size * 8}")
        if kind == "u":
            return f"unsigned {_C_INTS.get(size, f'int{size * 8}')}"
        return {"h": "__half", "b": "__nv_bfloat16", "?": "bool", "v": "void", "P": "pointer",
                "S": f"struct ({size} bytes)"}.get(kind, kind)

    @property
    def ctype(self) -> str:
        if self.kind == "P":
            return f"{self._ctype(self.pointee, self.pointee_size)}*"
        return self._ctype(self.kind, self.size)

    def numpy_hint(self, value=None) -> str:
        v = "..." if value is None else repr(value)
        if self.kind == "P":
            return "an array, a tensor or np.uintp(t.data_ptr())"
        if self.kind in "iu":
            if isinstance(value, float):
                v = "..."
            return f"np.{'u' if self.kind == 'u' else ''}int{self.size * 8}({v})"
        if self.kind == "f":
            return f"np.float{self.size * 8}({v})"
        if self.kind == "h":
            return f"np.float16({v})"
        if self.kind == "b":
            return "np.uint16(bits) holding the bfloat16 pattern"
        if self.kind == "?":
            return f"np.bool_({v})"
        return f"a numpy structured scalar (np.void) of {self.size} bytes"

    def accepts_dtype(self, dtype: str) -> bool:
        """Can an array of this dtype be passed to this pointer parameter?"""
        kind, size = _dtype_kind(dtype)
        p, n = self.pointee, self.pointee_size
        if p in ("v", "S", "P") and not (p == "P" and kind not in "iu"):
            return True  # void*, float4* over floats, T** over 64-bit addresses
        if p in "iu" and n == 1:
            return True  # char*: any bytes
        if p in "iu":
            return kind in "iu" and size == n
        if p == "f":
            return kind == "f" and size == n
        if p in "hb":
            return (kind == p) or (kind in "iu" and size == 2)
        if p == "?":
            return kind == "?" or (kind in "iu" and size == 1)
        return True


def _dtype_kind(dtype: str) -> tuple[str, int]:
    """'float32' -> ('f', 4), 'bfloat16' -> ('b', 2), 'uint8' -> ('u', 1) ..."""
    if dtype == "bfloat16":
        return "b", 2
    if dtype == "float16":
        return "h", 2
    if dtype == "bool":
        return "?", 1
    m = re.fullmatch(r"(u?int|float|complex)(\d+)", dtype)
    if not m:
        return "?", 0
    kind = {"int": "i", "uint": "u", "float": "f", "complex": "c"}[m.group(1)]
    return kind, int(m.group(2)) // 8


def unwrap(arg):
    return arg.array if isinstance(arg, In) else arg


DEVICE_ALIGN = 256  # cudaMalloc's alignment


def stage(arg):
    """(what the kernel gets, the array to copy it back into or None). A numpy array, bare or
    in In/Out/InOut, reaches a GPU kernel as a copy in device memory (pycuda copies a bare
    array both ways, In in, Out back): here too it is copied into a buffer aligned as device
    memory, so an alignment the kernel relies on (a WMMA tile, a 16-byte vector) holds on both
    backends. Out's copy starts as 0xA5 bytes, as device memory holds what it held."""
    array = unwrap(arg)
    if not isinstance(array, np.ndarray) or array.nbytes == 0 or \
            not (array.flags.c_contiguous or array.flags.f_contiguous):
        return arg, None
    raw = np.empty(array.nbytes + DEVICE_ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % DEVICE_ALIGN
    copy = np.ndarray(array.shape, array.dtype, buffer=raw, offset=start, strides=array.strides)
    if isinstance(arg, Out):
        raw[start:start + array.nbytes] = 0xA5
    else:
        copy[...] = array
    back = None if isinstance(arg, In) and not isinstance(arg, (Out, InOut)) else array
    return copy, back


def buffer_of(obj) -> Buffer:
    """The allocation behind a numpy array or a torch tensor."""
    if is_tensor(obj):
        storage = obj.untyped_storage()
        return Buffer(storage.data_ptr(), storage.nbytes(), obj.element_size(),
                      str(obj.dtype).replace("torch.", ""), obj)
    root = obj
    while isinstance(getattr(root, "base", None), np.ndarray):
        root = root.base
    lo, hi = np.lib.array_utils.byte_bounds(root) if hasattr(np.lib, "array_utils") \
        else np.byte_bounds(root)
    return Buffer(lo, hi - lo, obj.itemsize, str(obj.dtype), obj)


def address_of(obj) -> int:
    return obj.data_ptr() if is_tensor(obj) else obj.__array_interface__["data"][0]


def pack_cpu(index: int, name: str | None, arg, param: Param) -> Arg:
    """One argument for a CPU-backend kernel parameter."""
    where = label(index, name)
    arg = unwrap(arg)
    if is_python_scalar(arg):
        raise python_scalar_error(index, name, arg, param)
    mismatch = TypeError(f"{where} is {_a(param.ctype)} parameter, got {_type_name(arg)}: "
                         f"pass {param.numpy_hint()}")
    kind, size = param.kind, param.size
    if kind == "P":
        if is_tensor(arg) or isinstance(arg, np.ndarray):
            if is_tensor(arg) and arg.device.type != "cpu":
                raise TypeError(f"{where} is a {arg.device.type} tensor, but the CPU backend "
                                "runs kernels on the host: pass a CPU tensor")
            buffer = buffer_of(arg)
            if not param.accepts_dtype(buffer.dtype):
                raise TypeError(f"{where} is {_a(param.ctype)} parameter, got {_type_name(arg)} "
                                f"of {buffer.dtype}: convert it to the element type the kernel "
                                f"reads, or the kernel reads garbage")
            ptr = address_of(arg)
            return Arg(index, name, _u64(ptr), ptr, buffer)
        if isinstance(arg, np.integer) and arg.dtype.itemsize == 8:
            ptr = int(arg) & (2**64 - 1)
            return Arg(index, name, _u64(ptr), ptr)
        raise mismatch
    if is_tensor(arg) or isinstance(arg, np.ndarray):
        raise mismatch
    if kind in "iu?" and isinstance(arg, (np.integer, np.bool_)) and arg.dtype.itemsize == size:
        return Arg(index, name, arg.tobytes())
    if kind == "f" and isinstance(arg, np.floating) and arg.dtype.itemsize == size:
        return Arg(index, name, arg.tobytes())
    if kind == "h" and isinstance(arg, np.float16):
        return Arg(index, name, arg.tobytes())
    if kind == "b" and isinstance(arg, np.uint16):
        return Arg(index, name, arg.tobytes())
    if kind == "S" and isinstance(arg, (np.void, bytes)) and len(bytes(arg)) == size:
        return Arg(index, name, bytes(arg))
    raise mismatch


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _u64(value: int) -> bytes:
    return int(value).to_bytes(8, "little")


def _type_name(arg) -> str:
    if isinstance(arg, np.generic):
        return f"np.{type(arg).__name__}"
    if is_tensor(arg):
        return "a tensor"
    if isinstance(arg, np.ndarray):
        return "an array"
    return type(arg).__name__


def check_common(index: int, name: str | None, arg) -> None:
    """What both backends refuse before anything else: Python scalars and unknown objects."""
    if is_python_scalar(arg):
        raise python_scalar_error(index, name, arg)
    if arg is None or isinstance(arg, (str, list, tuple, dict)):
        raise TypeError(f"{label(index, name)} is a {type(arg).__name__}: kernel arguments are "
                        "numpy scalars (np.int32, np.float32, np.uintp, ...), arrays or tensors")
