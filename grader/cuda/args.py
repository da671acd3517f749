"""Kernel arguments as students pass them to pycuda, checked and turned into the bytes a
kernel receives. CUDA passes parameters by value with fixed widths, so a Python int (is it
32 or 64 bits?) is refused with a message saying what to pass instead."""

from __future__ import annotations

import numbers
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


def is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr")


def python_scalar_error(index: int, name: str | None, value, kind: str | None = None) -> TypeError:
    """The message for int/float/bool passed where CUDA needs a fixed-width type."""
    what = type(value).__name__
    if isinstance(value, bool):
        hint = f"np.int32({int(value)})"
    elif isinstance(value, numbers.Integral):
        hint = {"P": f"np.uintp({value})", "u": f"np.uint32({value})",
                "f": f"np.float32({value})"}.get(kind or "", f"np.int32({value})")
    else:
        hint = f"np.float32({value})"
    return TypeError(f"{label(index, name)} is a Python {what}: pass {hint} "
                     f"(CUDA needs a fixed-width type)")


def unwrap(arg):
    return arg.array if isinstance(arg, In) else arg


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


_KIND_NAMES = {"P": "pointer", "i": "int", "u": "unsigned int", "f": "float", "h": "__half",
               "b": "__nv_bfloat16", "?": "bool", "S": "struct"}


def _describe_param(kind: str, size: int) -> str:
    if kind in "iu":
        return f"{size * 8}-bit {'signed' if kind == 'i' else 'unsigned'} integer"
    if kind == "f":
        return {4: "float", 8: "double"}.get(size, f"{size * 8}-bit float")
    if kind == "S":
        return f"struct of {size} bytes"
    return _KIND_NAMES.get(kind, kind)


def _want(kind: str, size: int) -> str:
    if kind == "P":
        return "an array, a tensor or np.uintp(t.data_ptr())"
    if kind in "iu":
        return f"np.{'u' if kind == 'u' else ''}int{size * 8}(...)"
    if kind == "f":
        return "np.float32(...)" if size == 4 else "np.float64(...)"
    if kind == "h":
        return "np.float16(...)"
    if kind == "b":
        return "np.uint16(bits) holding the bfloat16 pattern"
    if kind == "S":
        return f"a numpy structured scalar (np.void) of {size} bytes"
    return "np.bool_(...)"


def pack_cpu(index: int, name: str | None, arg, kind: str, size: int) -> Arg:
    """One argument for a CPU-backend kernel parameter of the given kind and size."""
    where = label(index, name)
    arg = unwrap(arg)
    if isinstance(arg, (bool, int, float)):
        raise python_scalar_error(index, name, arg, kind)
    mismatch = TypeError(f"{where} is a {_describe_param(kind, size)} parameter, got "
                         f"{_type_name(arg)}: pass {_want(kind, size)}")
    if kind == "P":
        if is_tensor(arg):
            if arg.device.type != "cpu":
                raise TypeError(f"{where} is a {arg.device.type} tensor, but the CPU backend "
                                "runs kernels on the host: pass a CPU tensor")
            ptr = arg.data_ptr()
            return Arg(index, name, _u64(ptr), ptr, buffer_of(arg))
        if isinstance(arg, np.ndarray):
            ptr = address_of(arg)
            return Arg(index, name, _u64(ptr), ptr, buffer_of(arg))
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
    if isinstance(arg, (bool, int, float)):
        raise python_scalar_error(index, name, arg)
    if arg is None or isinstance(arg, (str, list, tuple, dict)):
        raise TypeError(f"{label(index, name)} is a {type(arg).__name__}: kernel arguments are "
                        "numpy scalars (np.int32, np.float32, np.uintp, ...), arrays or tensors")
