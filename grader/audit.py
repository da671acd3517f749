"""Library substitution: did the launcher launch OUR kind of kernel, and compute nothing else?

Two signals, both reported with the offending name:
- at run time, a torch dispatch mode records every aten op the student's own frames run
  during a launch (views and allocations are fine; `add`, `copy_` are not), and counters
  record Triton and SourceModule launches;
- before anything runs, a scan of the solution cells for library compute calls: any call into
  torch, numpy, cupy or torch.nn.functional that is not an allocation, view or scalar type,
  and any method call named in the generic compute list or the exercise's `forbidden_calls`.
"""

from __future__ import annotations

import os
import re
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# Ops a launcher may run itself: metadata, views and allocations (zero- or value-filled),
# no arithmetic, no copies. An exercise adds its own with `allowed_ops` in lab.toml.
ALLOWED = {
    "zeros", "zeros_like", "zero_", "ones", "ones_like", "full", "full_like", "fill_",
    "new_zeros", "new_ones", "new_full", "contiguous", "stride", "size", "numel",
    "view", "_unsafe_view", "reshape", "as_strided", "alias", "detach", "t", "transpose",
    "permute", "expand", "select", "slice", "unsqueeze", "squeeze", "flatten", "unflatten",
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "lift_fresh",
    "is_nonzero", "_local_scalar_dense", "sym_size", "sym_stride", "sym_numel", "set_",
}
_TORCH_DIR = os.path.dirname(torch.__file__)
_GRADER_DIR = os.path.dirname(os.path.abspath(__file__))


def _trusted_dirs() -> tuple[str, ...]:
    dirs = [_GRADER_DIR]
    try:
        import triton

        dirs.append(os.path.dirname(triton.__file__))
    except ImportError:
        pass
    return tuple(dirs)


class Audit(TorchDispatchMode):
    """Collects aten ops whose first caller outside torch is not Triton or the grader."""

    def __init__(self, allowed_ops=()):
        super().__init__()
        self.allowed = ALLOWED | set(allowed_ops)
        self.foreign: list[str] = []
        self.trusted = _trusted_dirs()

    def _caller_is_trusted(self) -> bool:
        frame = sys._getframe(2)
        while frame is not None:
            path = frame.f_code.co_filename
            if not path.startswith(_TORCH_DIR):
                return path.startswith(self.trusted)
            frame = frame.f_back
        return True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        if name not in self.allowed and not self._caller_is_trusted() and len(self.foreign) < 20:
            self.foreign.append(f"torch.ops.aten.{name}")
        return func(*args, **(kwargs or {}))

    # A numpy view of a tensor lets numpy compute on its memory where no dispatch mode sees it
    # (CPU tensors): a launcher has no honest use for one (kernels take pointers).
    _VIEWS = ("numpy", "__array__")

    def __enter__(self):
        audit, self._saved = self, {name: getattr(torch.Tensor, name) for name in self._VIEWS}

        def watched(name, original):
            def view(tensor, *args, **kwargs):
                if not audit._caller_is_trusted() and len(audit.foreign) < 20:
                    audit.foreign.append(f"Tensor.{name}() (numpy computing on a tensor)")
                return original(tensor, *args, **kwargs)
            return view

        for name, original in self._saved.items():
            setattr(torch.Tensor, name, watched(name, original))
        return super().__enter__()

    def __exit__(self, *exc):
        for name, original in self._saved.items():
            setattr(torch.Tensor, name, original)
        return super().__exit__(*exc)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


_GLOBAL = re.compile(r"__global__[^(]*?(\w+)\s*\(")


def kernel_source(kernel) -> str | None:
    """The source a Triton kernel object runs: what `inspect` finds for its Python function
    (Triton compiles that text, the interpreter runs that function)."""
    import inspect

    fn = getattr(kernel, "fn", None)
    try:
        return inspect.getsource(fn) if fn is not None else None
    except (OSError, TypeError):
        return None


class Launches:
    """Counts Triton kernel launches and SourceModule launches made through `grader.cuda`.

    With `sources` (the student's cells), only kernels defined there count: a Triton kernel
    whose source text is in them, a CUDA kernel whose `__global__` function is named in them.
    Someone else's kernel (the reference, a solution read from disk) is recorded by name in
    `others` instead."""

    def __init__(self, sources: list[str] | None = None):
        self.triton = 0
        self.cuda = 0
        self.others: list[str] = []  # kernels launched that are not the student's
        self.own(sources)
        self.side_streams = 0  # launches on a stream other than the current default one
        self.modules: list[str] = []  # sources of the CUDA modules launched since cleared
        self.counting_cuda = False
        self._patched = []
        try:
            from triton.runtime import interpreter, jit
        except ImportError:
            return
        for cls in (jit.JITFunction, getattr(interpreter, "InterpretedFunction", None)):
            if cls is not None and "run" in vars(cls):
                self._wrap(cls, "run", "triton")

    def _wrap(self, cls, attr: str, kind: str) -> None:
        original = getattr(cls, attr)
        counter = self

        def counted(*args, **kwargs):
            if counter.owned(kind, args[0]):
                setattr(counter, kind, getattr(counter, kind) + 1)
            source = getattr(getattr(args[0], "module", None), "source", None)
            if kind == "cuda" and isinstance(source, str) and source not in counter.modules:
                counter.modules.append(source)
            if counter._on_side_stream(kind, kwargs):
                counter.side_streams += 1
            return original(*args, **kwargs)

        setattr(cls, attr, counted)
        self._patched.append((cls, attr, counted))

    def own(self, sources: list[str] | None) -> None:
        """The student's cells, whose kernels are the only ones that count (None: any)."""
        self._cells = _squash("\n".join(sources)) if sources is not None else None

    def owned(self, kind: str, kernel) -> bool:
        """Whether `kernel` was defined in the student's cells (always, without sources)."""
        if self._cells is None:
            return True
        if kind == "triton":
            src = kernel_source(kernel)
            name = getattr(getattr(kernel, "fn", None), "__name__", "a Triton kernel")
            mine = src is not None and _squash(src) in self._cells
        else:
            name = getattr(kernel, "label", getattr(kernel, "name", "a CUDA kernel"))
            source = getattr(getattr(kernel, "module", None), "source", "") or ""
            names = _GLOBAL.findall(source) or [name]
            mine = all(re.search(rf"\b{re.escape(n)}\b", self._cells) for n in names)
        if not mine and name not in self.others and len(self.others) < 10:
            self.others.append(name)
        return mine

    @staticmethod
    def _on_side_stream(kind: str, kwargs: dict) -> bool:
        if kind == "cuda":
            return kwargs.get("stream") is not None
        if not torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1":
            return False
        return torch.cuda.current_stream() != torch.cuda.default_stream()

    def watch_cuda(self, device: str) -> bool:
        """Count calls of the CUDA backend's kernel objects (`get_function` results) on
        `device`'s backend; False where that backend cannot load (no pycuda)."""
        import importlib

        module, name = ("grader.cuda.gpu", "GpuFunction") if device == "gpu" else \
            ("grader.cuda.cpu", "CpuFunction")
        try:
            function_cls = getattr(importlib.import_module(module), name, None)
        except ImportError:
            return False
        if function_cls is None or "__call__" not in vars(function_cls):
            return False
        self._wrap(function_cls, "__call__", "cuda")
        self.counting_cuda = True
        return True

    def intact(self) -> bool:
        return all(getattr(cls, attr) is fn for cls, attr, fn in self._patched)


# Calls into a library that are fine in a launcher: allocation, metadata, scalar types.
ALLOWED_CALLS = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "tensor", "as_strided", "device", "dtype", "Size", "is_tensor",
    "is_floating_point", "finfo", "iinfo", "get_device", "Generator", "manual_seed",
    "cuda.current_stream", "cuda.synchronize", "cuda.is_available",
    "cuda.get_device_properties", "cuda.device",
    "uintp", "intp", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "array", "prod", "errstate",
}
# Tensor methods that compute: a launcher that calls one is doing the kernel's work itself.
# Names Python's own types also have (set.add, list.sort) are left out: honest code uses them,
# and the dispatch audit sees the tensor calls at run time anyway.
COMPUTE_METHODS = {
    "add_", "sub", "sub_", "mul", "mul_", "div", "div_", "exp", "exp_", "log", "sum",
    "mean", "max", "min", "amax", "amin", "clamp", "clamp_", "clip", "copy_", "clone",
    "index_put_", "matmul", "mm", "bmm", "sqrt", "rsqrt", "neg", "abs", "where",
    "cumsum", "topk", "relu", "sigmoid", "tanh", "masked_fill", "masked_fill_",
    "scatter", "scatter_", "gather",
}
_LIBRARY_CALL = re.compile(
    r"(?<![\w.])(torch\.nn\.functional|torch|numpy|np|cupy|cp|F)\.([A-Za-z_][\w.]*)\s*\(")
_METHOD_CALL = re.compile(r"(?<![\s(,=])\.([A-Za-z_]\w*)\s*\(")
_PREFIXES_OK = ("tl.", "triton.", "math.", "self.", "np.", "os.", "libdevice.")


def static_scan(sources: dict[str, str], forbidden_calls=()) -> list[str]:
    """`cell X, line N: torch.exp(` for every library compute call in the solution cells
    (lines inside a triple-quoted string, the CUDA source, are skipped)."""
    methods = COMPUTE_METHODS | set(forbidden_calls)
    found = []
    for gid, src in sources.items():
        for number, line in enumerate(src.splitlines(), 1):
            code = line.split("#", 1)[0]
            if ('"""' in src or "'''" in src) and _inside_string(src, line):
                continue
            for m in _LIBRARY_CALL.finditer(code):
                name = m.group(2)
                if m.group(1) in ("F", "torch.nn.functional") or (
                        name not in ALLOWED_CALLS and not name.startswith("cuda.")
                        and name.split(".")[-1] not in ALLOWED_CALLS):
                    found.append(f"cell {gid}, line {number}: {m.group(0).strip()}")
            for m in _METHOD_CALL.finditer(code):
                before = code[: m.start() + 1].rstrip()
                if m.group(1) in methods and not before.endswith(_PREFIXES_OK) and \
                        not any(code[: m.start()].endswith(p[:-1]) for p in _PREFIXES_OK):
                    found.append(f"cell {gid}, line {number}: .{m.group(1)}(")
    return found


def _inside_string(src: str, line: str) -> bool:
    """True for lines of a triple-quoted string (the CUDA source), by quote parity."""
    before = src[: src.find(line)]
    return (before.count('"""') + before.count("'''")) % 2 == 1
