"""ctypes bindings to libtclab_rt (tclab/runtime.h) and to compiled kernel modules."""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
import threading
from pathlib import Path

from grader.backends.cuda import compiler

ABI_VERSION = 4  # TCLAB_ABI_VERSION in include/tclab/abi.h

# Launch status codes (abi.h)
(OK, ERR_TRAP, ERR_FAULT, ERR_FPE, ERR_DEADLOCK, ERR_STACK, ERR_INTERNAL, ERR_SYNC,
 ERR_USAGE) = range(9)
SCHEDULES = {"forward": 0, "reverse": 1, "random": 2}
FAULT_MISALIGNED = 2  # fault_write for a fault that is no page fault: TCLAB_FAULT_MISALIGNED


class ParamInfo(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_char),
        ("pointee", ctypes.c_char),
        ("size", ctypes.c_uint32),
        ("align", ctypes.c_uint32),
        ("pointee_size", ctypes.c_uint32),
    ]


class KernelEntry(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("fn", ctypes.c_void_p),
        ("call", ctypes.c_void_p),
        ("params", ctypes.POINTER(ParamInfo)),
        ("nparams", ctypes.c_int32),
    ]


class LaunchDesc(ctypes.Structure):
    _fields_ = [
        ("call", ctypes.c_void_p),
        ("fn", ctypes.c_void_p),
        ("args", ctypes.c_void_p),
        ("grid", ctypes.c_uint32 * 3),
        ("block", ctypes.c_uint32 * 3),
        ("shared_bytes", ctypes.c_uint64),
        ("dynsmem", ctypes.c_void_p),
        ("poison", ctypes.c_void_p),
        ("npoison", ctypes.c_int32),
        ("schedule", ctypes.c_int32),
        ("seed", ctypes.c_uint64),
        ("workers", ctypes.c_int32),
        ("status", ctypes.c_int32),
        ("fault_signal", ctypes.c_int32),
        ("fault_write", ctypes.c_int32),
        ("fault_addr", ctypes.c_uint64),
        ("err_block", ctypes.c_uint32 * 3),
        ("err_thread", ctypes.c_uint32 * 3),
        ("message", ctypes.c_char * 1024),
    ]


class DlInfo(ctypes.Structure):
    _fields_ = [
        ("dli_fname", ctypes.c_char_p),
        ("dli_fbase", ctypes.c_void_p),
        ("dli_sname", ctypes.c_char_p),
        ("dli_saddr", ctypes.c_void_p),
    ]


_lock = threading.Lock()
_rt: ctypes.CDLL | None = None
_loaded_paths: set[str] = set()
_libc = ctypes.CDLL(None)
_libc.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]


def library() -> ctypes.CDLL:
    """The runtime, loaded once per process with RTLD_GLOBAL so modules resolve tclab_rt_*."""
    global _rt
    with _lock:
        if _rt is None:
            lib = ctypes.CDLL(str(compiler.build_runtime()), mode=os.RTLD_NOW | os.RTLD_GLOBAL)
            lib.tclab_rt_launch.argtypes = [ctypes.POINTER(LaunchDesc)]
            lib.tclab_rt_launch.restype = ctypes.c_int
            lib.tclab_rt_map_guarded.argtypes = [
                ctypes.c_uint64, ctypes.c_int, ctypes.c_uint64,
                ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                ctypes.POINTER(ctypes.c_uint64),
            ]
            lib.tclab_rt_map_guarded.restype = ctypes.c_void_p
            lib.tclab_rt_unmap.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
            lib.tclab_rt_page_size.restype = ctypes.c_uint64
            if lib.tclab_rt_abi_version() != ABI_VERSION:
                raise RuntimeError("libtclab_rt ABI mismatch: grader/backends/cuda is half-updated")
            _rt = lib
        return _rt


def load_module(path: Path) -> ctypes.CDLL:
    """dlopen a compiled module. A second SourceModule of the same source gets its own copy
    of the library, so its __device__ globals start fresh, as with pycuda on a GPU."""
    library()
    with _lock:
        key = str(path)
        if key in _loaded_paths:
            fd, copy = tempfile.mkstemp(prefix="tclab-mod-", suffix=".so")
            os.close(fd)
            shutil.copyfile(path, copy)
            try:
                lib = ctypes.CDLL(copy, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            finally:
                os.unlink(copy)  # the mapping stays valid; nothing is left on disk
        else:
            lib = ctypes.CDLL(key, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            _loaded_paths.add(key)
    lib.tclab_module_kernels.argtypes = [ctypes.POINTER(ctypes.c_int32)]
    lib.tclab_module_kernels.restype = ctypes.POINTER(KernelEntry)
    lib.tclab_module_dynsmem.restype = ctypes.c_void_p
    return lib


def kernel_entries(lib: ctypes.CDLL) -> list[KernelEntry]:
    n = ctypes.c_int32()
    table = lib.tclab_module_kernels(ctypes.byref(n))
    return [table[i] for i in range(n.value)]


def symbol_name(address: int) -> str | None:
    """The exported symbol at exactly this address (a kernel's mangled or C name)."""
    info = DlInfo()
    if not _libc.dladdr(ctypes.c_void_p(address), ctypes.byref(info)):
        return None
    if info.dli_sname is None or info.dli_saddr != address:
        return None
    return info.dli_sname.decode()


def page_size() -> int:
    return int(library().tclab_rt_page_size())
