"""Compiling for the CPU backend: the student's source plus our header, with the system C++
compiler, into a shared library; cached on disk by a hash of everything that affects it."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.backends.cuda import elf, source
from grader.backends.cuda.errors import CompileError

INCLUDE = Path(__file__).resolve().parent / "include"
RUNTIME = INCLUDE / "tclab" / "runtime.h"
GENERATED = "<tclab-generated>"
COMMON_FLAGS = [
    "-std=c++17", "-O2", "-fPIC", "-shared",
    "-fno-exceptions",       # CUDA device code has none; fibers must not unwind
    "-fno-strict-aliasing",  # students type-pun (float <-> float4 <-> int) as nvcc lets them
    "-fno-math-errno",       # sqrtf and friends as straight instructions, as on a GPU
    "-fstack-clash-protection",  # a frame larger than a page touches every page, so an
                                 # oversized local array hits the fiber's guard page
    "-fdiagnostics-color=never",
]
COMPILE_TIMEOUT_S = 300
RUNTIME_DIR_ENV = "TCLAB_RUNTIME_DIR"  # a folder holding libtclab_rt already built (read-only)


def cache_root() -> Path:
    """$TCLAB_CACHE/cuda, else ~/.cache/tclab/cuda (read on every call: tests redirect it)."""
    base = os.environ.get("TCLAB_CACHE")
    return (Path(base) if base else Path.home() / ".cache" / "tclab") / "cuda"


@functools.cache
def compiler() -> tuple[str, str]:
    """(path, identity) of the C++ compiler: $CXX, else g++, else c++. The identity (resolved
    path, size, mtime) changes when the compiler is upgraded, and costs no subprocess."""
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not cxx:
        raise CompileError("the CPU backend compiles kernels with a C++ compiler, and none was "
                           "found: install g++ (apt-get install g++) or set CXX")
    real = os.path.realpath(shutil.which(cxx) or cxx)
    try:
        st = os.stat(real)
        return cxx, f"{real}:{st.st_size}:{st.st_mtime_ns}"
    except OSError:
        return cxx, real


@functools.cache
def header_version() -> str:
    """Hash of every file under include/: editing the header invalidates every cached module."""
    h = hashlib.sha256()
    for path in sorted(INCLUDE.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(INCLUDE)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _key(*parts) -> str:
    text = json.dumps([*parts, header_version(), compiler(), platform.machine()])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _install(tmp_file: Path, dest: Path) -> None:
    """Atomic: concurrent processes compiling the same thing each rename a complete file."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, staging = tempfile.mkstemp(dir=dest.parent, prefix=".tmp-")
    os.close(fd)
    shutil.copyfile(tmp_file, staging)
    os.replace(staging, dest)


def _run(cmd: list[str], cwd: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "LC_ALL": "C"}  # plain ASCII quotes in diagnostics
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env,
                              timeout=COMPILE_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise CompileError(f"the C++ compiler took longer than {COMPILE_TIMEOUT_S} s") from None


_MARK = "tclab_global_mark_"


@functools.lru_cache(maxsize=64)
def kernels_in(src: str) -> tuple[source.Kernel, ...]:
    """The __global__ functions of src, including those a macro defines
    (`#define K(N) __global__ void k_v##N(...)` then `K(4)`): where a #define holds
    `__global__`, the source is run through the preprocessor, `__global__` kept as a marker."""
    found = source.find_kernels(src)
    if not re.search(r"^[ \t]*#[ \t]*define\b[^\n]*(\\\n[^\n]*)*\b__global__\b", src, re.M):
        return tuple(found)
    marked = re.sub(r"\b__global__\b", _MARK, src)
    with tempfile.TemporaryDirectory(prefix="tclab-cpp-") as tmp:
        Path(tmp, source.FILENAME).write_text(marked)
        res = _run([compiler()[0], "-E", "-P", "-x", "c++", "-std=c++17", f"-I{INCLUDE}",
                    source.FILENAME], tmp)
    if res.returncode:
        return tuple(found)  # the compile itself will say what is wrong
    known = {k.name for k in found}
    expanded = source.find_kernels(res.stdout.replace(_MARK, "__global__"))
    return tuple(found) + tuple(dataclasses.replace(k, line=0) for k in expanded
                                if k.name not in known)


_TENSOR_PTX = ("mma.", "wmma.", "wgmma.", "ldmatrix.", "stmatrix.", "movmatrix.")
_ASM_MARK = "tclab_inline_asm_{}_"


def inline_ptx(src: str, flags: list[str]) -> list[str]:
    """One line per inline PTX statement that g++ would be given: it would hand the PTX to the
    x86 assembler (a page of noise), and no CPU can run it anyway. Each line names the
    kernel.cu line and what runs on both backends instead. A statement the preprocessor leaves
    out (`#ifndef TCLAB_CPU`, `#if __CUDA_ARCH__ >= 800`, neither defined here) is not one."""
    found = source.inline_asm(src)
    if not found:
        return []
    marked, last = [], 0
    for k, site in enumerate(found):  # the asm keyword -> an identifier the preprocessor keeps
        marked += [src[last : site.offset], _ASM_MARK.format(k)]
        last = site.offset + len(re.match(r"\w+", src[site.offset :]).group(0))
    marked.append(src[last:])
    with tempfile.TemporaryDirectory(prefix="tclab-cpp-") as tmp:
        Path(tmp, source.FILENAME).write_text('#include "tclab_cuda.h"\n' + "".join(marked))
        res = _run([compiler()[0], "-E", "-P", "-x", "c++", "-std=c++17", f"-I{INCLUDE}",
                    *flags, source.FILENAME], tmp)
    if res.returncode == 0:  # else the compile will fail anyway: report them all
        found = [s for k, s in enumerate(found) if _ASM_MARK.format(k) in res.stdout]
    lines = []
    for site in found:
        if site.instruction.startswith(_TENSOR_PTX):
            instead = "write tensor-core code with nvcuda::wmma (<mma.h>), which runs on both"
        elif site.instruction.startswith("cp.async"):
            instead = ("copy with __pipeline_memcpy_async, __pipeline_commit and "
                       "__pipeline_wait_prior (<cuda_pipeline.h>), which run on both")
        else:
            instead = ("write it in CUDA C (intrinsics such as __shfl_sync, __activemask, "
                       "atomicAdd), which runs on both")
        what = f"(`{site.instruction}`)" if site.instruction else "(`asm(...)`)"
        lines.append(f"{source.FILENAME}:{site.line}: inline PTX {what} cannot run on the CPU "
                     f"backend; {instead}")
    return lines


def build_runtime(folder: Path | None = None) -> Path:
    """libtclab_rt: the fiber scheduler and thread pool, built once per header version, in
    `folder` (default: the one `TCLAB_RUNTIME_DIR` names if it holds it, else the cache)."""
    name = f"libtclab_rt-{_key('runtime')}.so"
    if folder is None:
        shared = Path(os.environ.get(RUNTIME_DIR_ENV) or "/nonexistent") / name
        if shared.exists():
            return shared
        folder = cache_root()
    path = folder / name
    if path.exists():
        return path
    with tempfile.TemporaryDirectory(prefix="tclab-rt-") as tmp:
        tu = Path(tmp) / "runtime.cpp"
        tu.write_text(f'#include "{RUNTIME}"\n')
        out = Path(tmp) / "libtclab_rt.so"
        res = _run([compiler()[0], *COMMON_FLAGS, "-pthread", "-o", str(out), str(tu)], tmp)
        if res.returncode:
            raise CompileError("building the CPU runtime failed (a bug in grader/backends/cuda, "
                               f"not in your kernel):\n{res.stderr}")
        _install(out, path)
    return path


def shared_runtime() -> Path:
    """The folder of the runtime that a sandboxed worker loads read-only (`TCLAB_RUNTIME_DIR`),
    built here, outside any sandbox, once per machine and header version. It is our code, the
    same for every student, and the folder holds nothing else. Without it, each submission's
    processes built their own into their private compile cache: g++ for 1.6 s of a 2-core
    CPU's time, in every session that grades a CUDA kernel on the CPU backend."""
    folder = cache_root().parent / "cuda-runtime"
    build_runtime(folder)
    return folder


def translate_options(options) -> list[str]:
    """nvcc options -> g++ ones: -D/-U/-I carry over; the rest (arch, -O3, -lineinfo,
    --use_fast_math, ...) mean nothing to the CPU build and are dropped."""
    out, pending = [], None
    for opt in list(options or []):
        if pending:
            out += [pending, opt]
            pending = None
        elif opt in ("-D", "-U", "-I"):
            pending = opt
        elif re.match(r"-[DUI].", opt):
            out.append(opt)
    return out


def translation_unit(src: str, no_extern_c: bool, kernels: list[tuple[str, str]]) -> str:
    entries = "".join(f'    ::tclab::entry("{name}", {expr}),\n' for name, expr in kernels)
    return (
        '#include "tclab_cuda.h"\n'
        + source.wrap_extern_c(source.rewrite_extern_shared(src)[0], no_extern_c)
        + f'#line 1 "{GENERATED}"\n'
        + "static const tclab_kernel_entry tclab_kernels_[] = {\n"
        + entries
        + "    {nullptr, nullptr, nullptr, nullptr, 0},\n};\n"
        + 'extern "C" __attribute__((visibility("default"))) const tclab_kernel_entry*\n'
        + "tclab_module_kernels(int32_t* n) {\n"
        + f"    *n = {len(kernels)};\n    return tclab_kernels_;\n}}\n"
        + 'extern "C" __attribute__((visibility("default"))) void* tclab_module_dynsmem(void) {\n'
        + "    return ::tclab::dyn_smem;\n}\n"
    )


@dataclass
class Built:
    path: Path
    meta: dict
    cached: bool


LAYOUT_ENV = "TCLAB_WMMA_LAYOUT"


def layout_flags() -> list[str]:
    """TCLAB_WMMA_LAYOUT=mma: WMMA's 16x16 fragments of 8 elements a lane in the map the course
    GPUs use (include/mma.h), for code that takes another path where it finds that map; unset,
    the CPU backend's own map."""
    value = os.environ.get(LAYOUT_ENV, "")
    if value == "":
        return []
    if value == "mma":
        return ["-DTCLAB_WMMA_MMA_LAYOUT"]
    raise CompileError(f"{LAYOUT_ENV}={value!r}: 'mma' (WMMA fragments in the course GPUs' map) "
                       "or unset (the CPU backend's own map)")


def build_module(src: str, no_extern_c: bool = False, options=None,
                 include_dirs=None) -> Built:
    """Compile (or find in the cache) one SourceModule's source."""
    if not isinstance(src, str):
        raise TypeError(f"SourceModule needs the kernel source as a str, got {type(src).__name__}")
    flags = translate_options(options) + layout_flags() + [f"-I{d}" for d in include_dirs or []]
    key = _key("module", src, bool(no_extern_c), flags)
    so = cache_root() / f"{key}.so"
    meta_path = so.with_suffix(".json")
    if so.exists() and meta_path.exists():
        try:
            return Built(so, json.loads(meta_path.read_text()), cached=True)
        except (OSError, ValueError):
            pass  # a damaged entry: rebuild it
    bad = source.shared_initializers(src)
    if bad:
        raise CompileError("\n".join(
            f"{source.FILENAME}:{line}: error: initializer not allowed for __shared__ variable "
            "(as with nvcc: write it from the threads, then __syncthreads())" for line in bad))
    ptx = inline_ptx(src, flags)
    if ptx:
        raise CompileError("\n".join(ptx))
    kernels = source.registrations(list(kernels_in(src)))
    with tempfile.TemporaryDirectory(prefix="tclab-cu-") as tmp:
        # kernel.cu holds the student's text as written, so that g++ quotes their lines.
        Path(tmp, source.FILENAME).write_text(src)
        tu = Path(tmp) / "module.cpp"
        tu.write_text(translation_unit(src, no_extern_c, kernels))
        out = Path(tmp) / "module.so"
        cmd = [compiler()[0], *COMMON_FLAGS, "-w", f"-I{INCLUDE}", *flags, "-o", str(out), str(tu)]
        res = _run(cmd, tmp)
        if res.returncode:
            raise CompileError(rewrite_diagnostics(res.stderr, tmp))
        meta = {
            "tls": elf.tls_symbols(out),
            "kernels": [n for n, _ in kernels],
            "dyn_globals": source.rewrite_extern_shared(src)[1],
        }
        _install(out, so)
    meta_tmp = meta_path.with_name(f".tmp-{os.getpid()}-{meta_path.name}")
    meta_tmp.write_text(json.dumps(meta))
    os.replace(meta_tmp, meta_path)
    return Built(so, meta, cached=False)


def rewrite_diagnostics(stderr: str, tmpdir: str) -> str:
    """g++'s messages as the student should see them: kernel.cu:LINE for their code, our
    header's locations replaced by a tag, include chains and generated code explained."""
    linkage = re.search(r"tclab_(\w+?)_h_inside_extern_C", stderr)
    if linkage:
        line = re.search(r"kernel\.cu:(\d+)", stderr)
        where = f"{source.FILENAME}:{line.group(1)}: " if line else ""
        return (f"{where}error: <{linkage.group(1)}.h> cannot be included inside the "
                'extern "C" { } that SourceModule wraps around the source by default (nvcc '
                "refuses it too): pass no_extern_c=True and declare each kernel "
                'extern "C" __global__ ...')
    out = []
    for line in stderr.splitlines():
        if line.startswith("In file included from") or re.match(r"\s+from \S+:\d+[:,]", line):
            continue
        line = line.replace(f"{tmpdir}/", "")
        line = re.sub(re.escape(str(INCLUDE)) + r"/[\w/.]+:\d+(:\d+)?:", "(CUDA built-in):", line)
        line = re.sub(re.escape(str(INCLUDE)) + r"/[\w/.]+", "(CUDA built-in)", line)
        if line.startswith(GENERATED) and ": error:" in line:
            line = (f"{line.split(': error:', 1)[1].strip()}\n  (while registering the "
                    "__global__ functions of kernel.cu: a template kernel needs an explicit "
                    "instantiation, e.g. `template __global__ void k<256>(float*);`, and is "
                    "then found under its mangled name)")
        elif line.startswith(GENERATED) or line.startswith("module.cpp"):
            continue
        out.append(line)
    text = "\n".join(out).strip()
    return text or stderr.strip()
