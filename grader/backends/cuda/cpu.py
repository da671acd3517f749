"""The CPU backend: pycuda's SourceModule interface over kernels compiled with g++ and run by
libtclab_rt (each CUDA thread a fiber, each block on a pool thread)."""

from __future__ import annotations

import ctypes
import os
import re
import time

import numpy as np

from grader.backends.cuda import args as args_mod
from grader.backends.cuda import compiler, limits, runtime
from grader.backends.cuda.errors import KernelNotFound, LaunchError


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def default_workers() -> int:
    env = os.environ.get("TCLAB_CUDA_THREADS")
    if env:
        return max(1, int(env))
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:
        n = os.cpu_count() or 1
    return max(1, min(n, 16))


def resolve_schedule(schedule: str | None) -> str:
    schedule = (schedule or os.environ.get("TCLAB_CUDA_SCHEDULE") or "forward").lower()
    if schedule not in runtime.SCHEDULES:
        raise ValueError(f"schedule={schedule!r}: expected one of {', '.join(runtime.SCHEDULES)}")
    return schedule


class CpuModule:
    """A compiled source: get_function() hands out launchable kernels."""

    backend = "cpu"

    def __init__(self, src: str, no_extern_c: bool = False, options=None, include_dirs=None,
                 checked: bool | None = None, schedule: str | None = None):
        self.source = src
        self.no_extern_c, self.options = bool(no_extern_c), list(options or [])
        self.checked = checked
        self.schedule = schedule
        built = compiler.build_module(src, no_extern_c, options, include_dirs)
        self.cached = built.cached
        self._lib = runtime.load_module(built.path)
        self._dynsmem = ctypes.cast(self._lib.tclab_module_dynsmem, ctypes.c_void_p).value
        tls = {name: (offset, size) for name, offset, size in built.meta["tls"]}
        self._smem_base = next((off for name, (off, _) in tls.items() if "dyn_smem" in name), 0)
        self._tls = tls
        self._dyn_globals = built.meta.get("dyn_globals", [])
        decls = {}
        found = compiler.kernels_in(src)
        for k in found:
            decls.setdefault(k.name, k)
        self._templates = {k.name for k in found if k.is_template}
        self._kernels = {}
        entries = runtime.kernel_entries(self._lib)
        symbols = [runtime.symbol_name(e.fn) for e in entries]
        for entry, symbol in zip(entries, symbols):
            name = entry.name.decode()
            self._kernels[name] = (entry, symbol or name, decls.get(name))

    def get_function(self, name: str) -> CpuFunction:
        for written, (entry, symbol, decl) in self._kernels.items():
            if name == symbol:
                return CpuFunction(self, written, symbol, entry, decl)
        if name in self._kernels:  # written name of a kernel with C++ linkage
            symbol = self._kernels[name][1]
            raise KernelNotFound(
                f"named symbol not found: {name!r} has C++ linkage (no_extern_c=True), so its "
                f"symbol is {symbol!r}; get_function({symbol!r}) as with pycuda, or declare "
                f'the kernel extern "C"')
        if name in self._templates:
            raise KernelNotFound(
                f"named symbol not found: {name!r} is a template kernel, which exists only once "
                f"instantiated: add e.g. `template __global__ void {name}<256>(...);` and "
                "get_function() its mangled name (as with pycuda), or launch it from an "
                'extern "C" wrapper kernel')
        known = ", ".join(sym for _, sym, _ in self._kernels.values()) or "none"
        raise KernelNotFound(f"named symbol not found: no __global__ function {name!r} in this "
                             f"module (kernels: {known})")

    # -- static shared memory, from the module's thread-local symbols

    def _is_dyn_pointer(self, symbol: str) -> bool:
        return any(symbol == n or symbol.endswith((f"{len(n)}{n}", f"{len(n)}{n}E"))
                   for n in self._dyn_globals)

    def static_shared(self, symbol: str) -> list[tuple[str, int, int]]:
        """(name, offset, size) of the __shared__ variables a kernel may use: its own, those of
        __device__ helpers, and namespace-scope ones (those of other kernels excluded)."""
        own = f"_ZZ{symbol[2:]}E" if symbol.startswith("_Z") else f"_ZZ{len(symbol)}{symbol}E"
        others = [f"_ZZ{s[2:]}E" if s.startswith("_Z") else f"_ZZ{len(s)}{s}E"
                  for _, s, _ in self._kernels.values() if s != symbol]
        out = []
        for name, (offset, size) in self._tls.items():
            # Compiler bookkeeping (init guards, __tls_guard) and our own pointers into the
            # dynamic buffer are thread-locals too; poisoning those would break them.
            if ("dyn_smem" in name or name.startswith(("_ZGV", "_ZTH", "_ZTW", "__tls"))
                    or self._is_dyn_pointer(name)):
                continue
            if not name.startswith(own) and any(name.startswith(o) for o in others):
                continue
            out.append((name, offset, size))
        return out


_LOCAL = re.compile(r"^(?P<fn>_ZZ.*)E(?P<len>\d+)(?P<rest>.+)$")  # _ZZ <function> E <name>


def shared_bytes(shared: list[tuple[str, int, int]]) -> int:
    """A kernel's static __shared__ bytes from `CpuModule.static_shared`'s variables. Which
    instantiation of a template helper a kernel calls is not in the symbols: the kernels of one
    module that dispatch on a type (`helper<float>`, `helper<__half>`) each use one, so a
    template's instantiations count as the largest of them, not their sum (the GPU counts the
    one called). Everything else adds up."""
    total, templates = 0, {}
    for name, _, size in shared:
        local = _LOCAL.match(name)
        base = re.match(r"_ZZ(\d+)", name) if local else None
        if base:
            n, at = int(base.group(1)), base.end()
            if name[at + n : at + n + 1] == "I":  # a template's instantiation
                per = templates.setdefault(name[at : at + n], {})
                per[local.group("fn")] = per.get(local.group("fn"), 0) + size
                continue
        total += size
    return total + sum(max(per.values()) for per in templates.values())


class CpuFunction:
    """One kernel; call it like a pycuda Function."""

    def __init__(self, module: CpuModule, written: str, symbol: str, entry, decl):
        self.module = module
        self.name = symbol  # what get_function() took: the C name, or the mangled one
        self.label = written  # what messages say: the name as written in the source
        self._entry = entry
        self.params = [
            args_mod.Param(p.kind.decode(), p.size, p.pointee.decode(), p.pointee_size)
            for p in (entry.params[i] for i in range(entry.nparams))
        ]
        names = decl.params if decl and len(decl.params) == len(self.params) else []
        self.param_names = names or [None] * len(self.params)
        shared = module.static_shared(symbol)
        self.static_shared_bytes = shared_bytes(shared)
        self._poison = np.array([[off - module._smem_base, size] for _, off, size in shared],
                                dtype=np.int64).reshape(-1)

    def __repr__(self) -> str:
        return f"<CpuFunction {self.label}({', '.join(str(n) for n in self.param_names)})>"

    def pack(self, arguments) -> list[args_mod.Arg]:
        if len(arguments) != len(self.params):
            names = ", ".join(n or "?" for n in self.param_names)
            raise TypeError(f"{self.label} takes {len(self.params)} arguments ({names}), "
                            f"got {len(arguments)}")
        return [args_mod.pack_cpu(i, self.param_names[i], a, p)
                for i, (a, p) in enumerate(zip(arguments, self.params))]

    def __call__(self, *arguments, block, grid=(1, 1), shared=0, stream=None,
                 time_kernel=False, schedule=None, checked=None, texrefs=None):
        """Launch as pycuda does: fn(*args, block=(x, y, z), grid=(x, y[, z]), shared=bytes).

        Extras of this backend: schedule="forward"|"reverse"|"random" orders the threads of
        each block between sync points; checked=True copies every array argument against a
        guard page to catch out-of-bounds reads. time_kernel=True returns seconds."""
        block3 = limits.dims(block, "block", self.label)
        grid3 = limits.dims(grid, "grid", self.label)
        limits.check_launch(self.label, block3, grid3, shared, self.static_shared_bytes)
        staged = [args_mod.stage(a) for a in arguments]
        packed = self.pack([copy for copy, _ in staged])
        schedule = resolve_schedule(schedule or self.module.schedule)
        if checked is None:
            checked = self.module.checked
        if checked is None:
            checked = _env_flag("TCLAB_CUDA_CHECKED")
        start = time.perf_counter()
        if checked:
            from grader.backends.cuda import checked as checked_mod

            checked_mod.launch(self, packed, block3, grid3, shared, schedule)
        else:
            desc = self.run([a.payload for a in packed], block3, grid3, shared, schedule)
            self.raise_for(desc, packed)
        elapsed = time.perf_counter() - start
        for copy, back in staged:
            if back is not None:
                back[...] = copy
        return elapsed if time_kernel else None

    def run(self, payloads: list[bytes], block, grid, shared: int, schedule: str,
            workers: int | None = None, seed: int = 0) -> runtime.LaunchDesc:
        """One launch with the given parameter bytes; returns the runtime's report."""
        rt = runtime.library()
        sizes = [(len(p) + 15) // 16 * 16 for p in payloads]
        blob = np.zeros(sum(sizes) + 16, dtype=np.uint8)
        base = blob.ctypes.data + (-blob.ctypes.data) % 16
        ptrs = (ctypes.c_void_p * max(1, len(payloads)))()
        offset = 0
        for i, (p, size) in enumerate(zip(payloads, sizes)):
            ctypes.memmove(base + offset, p, len(p))
            ptrs[i] = base + offset
            offset += size
        desc = runtime.LaunchDesc()
        desc.call = self._entry.call
        desc.fn = self._entry.fn
        desc.args = ctypes.addressof(ptrs)
        desc.grid[:] = grid
        desc.block[:] = block
        desc.shared_bytes = shared
        desc.dynsmem = self.module._dynsmem
        desc.poison = self._poison.ctypes.data if self._poison.size else None
        desc.npoison = self._poison.size // 2
        desc.schedule = runtime.SCHEDULES[schedule]
        desc.seed = seed
        desc.workers = workers or default_workers()
        rt.tclab_rt_launch(ctypes.byref(desc))
        return desc

    def raise_for(self, desc: runtime.LaunchDesc, packed: list[args_mod.Arg],
                  regions=None) -> None:
        """LaunchError for a failed launch, naming the kernel, the block and the thread."""
        if desc.status == runtime.OK:
            return
        block, thread = tuple(desc.err_block), tuple(desc.err_thread)
        where = f"block {block}, thread {thread}"
        message = desc.message.decode(errors="replace")
        if desc.status == runtime.ERR_TRAP:
            raise LaunchError(f"device-side assert triggered in kernel {self.label} ({where}): "
                              f"{message}")
        if desc.status in (runtime.ERR_DEADLOCK, runtime.ERR_SYNC):
            raise LaunchError(f"kernel {self.label}, block {block}: {message}")
        if desc.status == runtime.ERR_USAGE:
            raise LaunchError(f"kernel {self.label} ({where}): {message}")
        if desc.status == runtime.ERR_STACK:
            raise LaunchError(f"kernel {self.label} ({where}): {message}: large local arrays "
                              "belong in shared or global memory")
        if desc.status == runtime.ERR_FPE:
            raise LaunchError(f"kernel {self.label} ({where}): {message} (on a GPU this gives an "
                              "undefined value instead of an error)")
        if desc.status == runtime.ERR_FAULT:
            from grader.backends.cuda.checked import describe_fault

            raise LaunchError(describe_fault(self.label, desc, packed, regions))
        raise LaunchError(f"kernel {self.label}: {message}")
