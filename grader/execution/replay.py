"""The device side of the trust boundary: it holds the data and replays a host's stream.

A stream (`execution.phantom`) is plain data: allocations, constant fills, allowed copies, and
kernel launches that name a kernel and give its arguments as buffer references, pointers
into buffers and numbers. The kernels are built here from the cells' SOURCE: the Triton
functions through `grader.execution.kernels` (no cell is executed), the CUDA C exactly as given to
SourceModule. Nothing else runs: whatever the host did, what ran on the data is the stream.

    device = Device(ex, impl, "cpu", setup, sources, folder)
    run = device.run(stream, given)        # given: the tensors the host had phantoms of
    run.launches, run.others, run.c_stub   # what it launched, what was not the student's
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

MAX_ALLOC = 1 << 36  # bytes a launcher may allocate at once (64 GiB): larger is a wrong size
_GLOBAL = re.compile(r"__global__[^(]*?(\w+)\s*\(")
# The release's empty CUDA body: `{ // YOUR CODE HERE }` with nothing else in it.
C_STUB = re.compile(r"\{\s*//\s*YOUR CODE HERE\s*\}")


# Compiler options a SourceModule may pass: none that names a program or a file to run or
# load (-ccbin, -Xcompiler -wrapper, -fplugin, -I of a folder), which would run in the
# process that holds the data.
SAFE_OPTION = re.compile(
    r"-{1,2}(O[0-3]|use_fast_math|lineinfo|restrict|extra-device-vectorization|w"
    r"|(std|maxrregcount|ftz|prec-div|prec-sqrt|fmad|arch|gpu-architecture|default-stream)"
    r"=[\w.+-]+|D[A-Za-z_]\w*(=[\w.+-]*)?|U[A-Za-z_]\w*)")
PTXAS = ("-Xptxas", "--ptxas-options")
PTXAS_VALUE = re.compile(r"[\w=,.-]+")  # -v, -O3, -dlcm=ca: no path


def unsafe_options(options) -> list[str]:
    """The options of `options` a SourceModule may not pass (see SAFE_OPTION)."""
    bad, after_ptxas = [], False
    for o in map(str, options):
        ok = PTXAS_VALUE.fullmatch(o) if after_ptxas else (
            SAFE_OPTION.fullmatch(o) or o in PTXAS or
            any(o.startswith(p + "=") and PTXAS_VALUE.fullmatch(o[len(p) + 1:]) for p in PTXAS))
        after_ptxas = o in PTXAS
        if not ok:
            bad.append(o)
    return bad


class StreamError(RuntimeError):
    """A stream the device will not replay (a forged or impossible reference)."""


@dataclass
class Run:
    launches: dict = field(default_factory=lambda: {"triton": 0, "cuda": 0})
    others: list = field(default_factory=list)  # kernels named that the cells do not define
    c_stub: bool = False
    refused: list = field(default_factory=list)  # what the host refused (from the stream)


def device_properties() -> dict:
    """What a launcher may ask torch.cuda of its GPU, for the host (which has none)."""
    if not torch.cuda.is_available():
        return {}
    p = torch.cuda.get_device_properties(torch.cuda.current_device())
    names = ("name", "major", "minor", "multi_processor_count", "total_memory", "warp_size",
             "max_threads_per_multi_processor", "regs_per_multiprocessor",
             "shared_memory_per_block", "shared_memory_per_block_optin",
             "shared_memory_per_multiprocessor", "L2_cache_size", "uuid")
    return {n: (str(getattr(p, n)) if n == "uuid" else getattr(p, n)) for n in names
            if hasattr(p, n)}


def geometry(t: torch.Tensor) -> dict:
    """What a host learns of a device tensor."""
    return {"shape": list(t.shape), "stride": list(t.stride()), "offset": t.storage_offset(),
            "dtype": str(t.dtype).removeprefix("torch."),
            "bytes": t.untyped_storage().nbytes()}


class Device:
    def __init__(self, ex, impl: str, device: str, setup: str, sources: dict[str, str],
                 folder: Path):
        self.ex, self.impl, self.device = ex, impl, device
        self.tdev = torch.device("cuda") if device == "gpu" else torch.device("cpu")
        self.setup, self.sources, self.folder = setup, sources, Path(folder)
        self.cells = "\n".join(sources.values())
        self._kernels = None
        self.built = None  # the kernels module's line map (errors name the cells' lines)
        self._tuned: dict = {}
        self._modules: dict = {}
        self._functions: dict = {}

    # --- building --------------------------------------------------------------------------
    def kernels(self):
        if self._kernels is None:
            from grader.execution import kernels
            self._kernels, self.built = kernels.build(self.setup, self.sources, self.folder)
        return self._kernels

    def triton_kernel(self, name: str):
        fn = getattr(self.kernels(), str(name), None)
        return fn if type(fn).__name__ in ("JITFunction", "InterpretedFunction") else None

    def cuda_module(self, op: dict):
        key = (op["source"], bool(op.get("no_extern_c")), tuple(op.get("options") or ()))
        refused = unsafe_options(key[2])
        if refused:
            from grader.backends.cuda.errors import CompileError

            raise CompileError(f"SourceModule option {refused[0]!r} is not accepted here: the "
                               "grader compiles with optimisation, math, register, language "
                               "and macro options only (-O3, -use_fast_math, -lineinfo, "
                               "-maxrregcount=N, -std=c++17, -DNAME=VALUE, -Xptxas -v)")
        if key not in self._modules:
            from grader.backends.cuda import SourceModule

            self._modules[key] = SourceModule(op["source"], no_extern_c=key[1],
                                              options=list(key[2]) or None)
        return self._modules[key]

    # --- replay ------------------------------------------------------------------------------
    def run(self, stream: dict, given: list[torch.Tensor]) -> Run:
        return self.prepare(stream, len(given))(given)

    def prepare(self, stream: dict, n_given: int):
        """The stream as one call `play(given) -> Run`, every kernel built and every argument
        decoded once: what a timed round runs is this call and nothing else."""
        if not isinstance(stream, dict) or not isinstance(stream.get("ops"), list):
            raise StreamError("the host sent no stream")
        run = Run(refused=[str(r) for r in stream.get("refused") or []][:10])
        steps = []
        modules: dict[int, object] = {}
        sizes: dict[int, int] = {}
        for op in stream["ops"]:
            kind = op.get("op") if isinstance(op, dict) else None
            if kind == "alloc":
                handle, size = int(op["buf"]), int(op["bytes"])
                if handle < n_given or handle in sizes or not 0 <= size <= MAX_ALLOC:
                    raise StreamError(f"an allocation of {size} bytes the device cannot make")
                sizes[handle] = size
                steps.append(self._alloc(handle, size))
            elif kind == "fill":
                steps.append(self._fill(op["dst"], op["value"]))
            elif kind == "upload":
                steps.append(self._upload(op["dst"], op["data"]))
            elif kind == "copy":
                steps.append(self._copy(op["dst"], op["src"]))
            elif kind == "module":
                modules[int(op["id"])] = op
            elif kind == "triton":
                steps.append(self._triton(op, run))
            elif kind == "cuda":
                steps.append(self._cuda(op, modules, run))
            else:
                raise StreamError(f"an unknown step in the stream: {str(kind)[:40]}")

        def play(given: list[torch.Tensor]) -> Run:
            bufs = {i: t for i, t in enumerate(given)}
            for step in steps:
                step(bufs)
            return run
        return play

    def _alloc(self, handle: int, size: int):
        def step(bufs):
            bufs[handle] = torch.empty(size, dtype=torch.uint8, device=self.tdev)
        return step

    def _view(self, ref: dict, bufs: dict) -> torch.Tensor:
        try:
            base = bufs[int(ref["buf"])]
            dtype = getattr(torch, str(ref["dtype"]))
            if not isinstance(dtype, torch.dtype):
                raise TypeError
            shape, stride = [int(s) for s in ref["shape"]], [int(s) for s in ref["stride"]]
            offset, itemsize = int(ref["offset"]), dtype.itemsize
            last = offset + sum((n - 1) * st for n, st in zip(shape, stride)) \
                if all(n > 0 for n in shape) else offset - 1
            if offset < 0 or len(shape) != len(stride) or min(stride, default=0) < 0 or \
                    (last + 1) * itemsize > base.untyped_storage().nbytes():
                raise ValueError("a view past the end of its buffer")
            out = torch.empty(0, dtype=dtype, device=self.tdev)
            out.set_(base.untyped_storage(), offset, shape, stride)
            return out
        except (KeyError, TypeError, ValueError, AttributeError, RuntimeError) as exc:
            raise StreamError(f"a tensor the device does not hold ({str(exc)[:100]})") from None

    def _fill(self, dst: dict, value):
        if not isinstance(value, (int, float, bool)):
            raise StreamError("a fill with a value that is not a number")

        def step(bufs):
            self._view(dst, bufs).fill_(value)
        return step

    def _upload(self, dst: dict, data):
        """Constants the host made, into the buffer the stream allocated for them."""
        import base64

        try:
            raw = torch.frombuffer(bytearray(base64.b64decode(str(data), validate=True)),
                                   dtype=torch.uint8)
        except (ValueError, TypeError):
            raise StreamError("an upload that is not data") from None

        def step(bufs):
            view = self._view(dst, bufs)
            if raw.numel() != view.numel() * view.element_size():
                raise StreamError("an upload of the wrong size")
            view.reshape(-1).view(torch.uint8).copy_(raw.to(view.device))
        return step

    def _copy(self, dst: dict, src: dict):
        def step(bufs):
            self._view(dst, bufs).copy_(self._view(src, bufs))
        return step

    def _arg(self, a: dict):
        """A decoded argument: a constant, or a function of the buffers."""
        if "t" in a:
            ref = a["t"]
            return lambda bufs: self._view(ref, bufs)
        if "ptr" in a:
            handle, byte = int(a["ptr"]["buf"]), int(a["ptr"]["byte"])
            np_type = getattr(np, a.get("np") or "uintp")

            def pointer(bufs):
                base = bufs.get(handle)
                if base is None or not 0 <= byte <= base.untyped_storage().nbytes():
                    raise StreamError("a pointer past the buffers the device holds")
                return np_type(base.untyped_storage().data_ptr() + byte)
            return pointer
        if "seq" in a:
            parts = [self._arg(x) for x in a["seq"]]
            return lambda bufs: tuple(p(bufs) if callable(p) else p for p in parts)
        if "tl" in a:
            import triton.language as tl

            return tl.dtype(str(a["tl"]))
        if "torch" in a:
            return getattr(torch, str(a["torch"]))
        value = a.get("v")
        if not (value is None or isinstance(value, (int, float, bool, str))):
            raise StreamError("an argument that is not a number")
        if a.get("np"):
            return getattr(np, str(a["np"]))(value)
        return value

    @staticmethod
    def _resolve(decoded, bufs):
        return [d(bufs) if callable(d) else d for d in decoded]

    def _triton(self, op: dict, run: Run):
        name = str(op.get("kernel"))
        fn = self.triton_kernel(name)
        if fn is None:
            if name not in run.others:
                run.others.append(name)
            return lambda bufs: None
        args = [self._arg(a) for a in op["args"]]
        launches = op["launches"]
        run.launches["triton"] += 1
        if not op.get("autotune"):
            kwargs = {k: self._arg(v) for k, v in launches[0]["kwargs"].items()}
            grid = tuple(int(g) for g in launches[0]["grid"])

            def step(bufs):
                kw = {k: v(bufs) if callable(v) else v for k, v in kwargs.items()}
                fn[grid](*self._resolve(args, bufs), **kw)
            return step
        tuned = self._autotuner(name, fn, op)

        def tuned_step(bufs):
            tuned[_grid_of(tuned)](*self._resolve(args, bufs))
        return tuned_step

    def _autotuner(self, name: str, fn, op: dict):
        """`fn` under Triton's autotuner with the host's configs, each with its heuristics'
        values and its own grid: built once per kernel and configs (its cache of the best
        config lives as long as this device)."""
        key = (name, json.dumps(op["launches"], sort_keys=True), json.dumps(op["autotune"]))
        if key not in self._tuned:
            import inspect

            import triton

            accepted = set(inspect.signature(triton.Config).parameters)
            configs, grids = [], []
            for entry in op["launches"]:
                kwargs = {k: self._arg(v) for k, v in entry["kwargs"].items()}
                if any(callable(v) for v in kwargs.values()):
                    raise StreamError("an autotuned kernel's tensors must be positional")
                extra = {k: v for k, v in (entry.get("config") or {}).items()
                         if k in accepted and k != "kwargs"}
                configs.append(triton.Config(kwargs, **extra))
                grids.append((kwargs, tuple(int(g) for g in entry["grid"])))
            at = op["autotune"]
            tuner = triton.autotune(configs=configs, key=[str(k) for k in at.get("key", [])],
                                    reset_to_zero=at.get("reset_to_zero") or None,
                                    restore_value=at.get("restore_value") or None)(fn)
            tuner._tclab_grids = grids
            self._tuned[key] = tuner
        return self._tuned[key]

    def _cuda(self, op: dict, modules: dict, run: Run):
        spec = modules.get(int(op["module"]))
        if spec is None:
            raise StreamError("a launch of a module the stream never gave")
        name = str(op["function"])
        names = _GLOBAL.findall(spec["source"]) or [name]
        if not all(re.search(rf"\b{re.escape(n)}\b", self.cells) for n in names):
            if name not in run.others:
                run.others.append(name)
        run.c_stub = run.c_stub or bool(C_STUB.search(spec["source"]))
        run.launches["cuda"] += 1
        module = self.cuda_module(spec)
        fkey = (id(module), name)
        if fkey not in self._functions:
            self._functions[fkey] = module.get_function(name)
        function = self._functions[fkey]
        args = [self._arg(a) for a in op["args"]]
        block, grid, shared = tuple(op["block"]), tuple(op["grid"]), int(op.get("shared", 0))

        def step(bufs):
            resolved = self._resolve(args, bufs)
            if self.device == "cpu":
                from grader.backends.cuda import track

                with track(*bufs.values()):
                    function(*resolved, block=block, grid=grid, shared=shared)
            else:
                function(*resolved, block=block, grid=grid, shared=shared)
        return step


class Calls:
    """A launcher's calls as the device makes them: its stream recorded once per geometry of
    the tensors (`record`: by the host process in grading, in the notebook's own kernel for
    its check), prepared, and replayed on each call's tensors (a perf shape's rounds replay
    the same one)."""

    def __init__(self, device: Device, record):
        """`record(shapes, params)`: the stream for tensors of these geometries, and what the
        launcher returned (described)."""
        self.device, self.record = device, record
        self._plays: dict = {}

    def __call__(self, tensors, params) -> tuple[Run, str | None]:
        shapes = [geometry(t) for t in tensors]
        key = json.dumps([shapes, params], sort_keys=True)
        if key not in self._plays:
            stream, returned = self.record(shapes, list(params))
            self._plays[key] = (self.device.prepare(stream, len(tensors)), returned)
        play, returned = self._plays[key]
        return play(list(tensors)), returned


def _grid_of(tuner):
    """The grid of the config the autotuner runs: looked up by the config's values."""
    grids = tuner._tclab_grids

    def grid(meta):
        for kwargs, g in grids:
            if all(meta.get(k) == v for k, v in kwargs.items() if not callable(v)):
                return g
        return grids[0][1]
    return grid
