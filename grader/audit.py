"""Library substitution: did the launcher launch OUR kind of kernel, and compute nothing else?

Two signals, both reported with the offending name:
- at run time, a torch dispatch mode records every aten op the student's own frames run
  during a launch (views and allocations are fine; `add`, `softmax`, `copy_` are not), and
  counters record Triton and SourceModule launches;
- before anything runs, a scan of the solution cells for torch/cupy compute calls.
"""

from __future__ import annotations

import os
import re
import sys

import torch
from torch.utils._python_dispatch import TorchDispatchMode

# Ops a launcher may run itself: metadata, views and allocations, no arithmetic, no copies.
ALLOWED = {
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

    def __init__(self):
        super().__init__()
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
        if name not in ALLOWED and not self._caller_is_trusted() and len(self.foreign) < 20:
            self.foreign.append(f"torch.ops.aten.{name}")
        return func(*args, **(kwargs or {}))


class Launches:
    """Counts Triton kernel launches and SourceModule launches made through `grader.cuda`."""

    def __init__(self):
        self.triton = 0
        self.cuda = 0
        self.side_streams = 0  # launches on a stream other than the current default one
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
            setattr(counter, kind, getattr(counter, kind) + 1)
            if counter._on_side_stream(kind, kwargs):
                counter.side_streams += 1
            return original(*args, **kwargs)

        setattr(cls, attr, counted)
        self._patched.append((cls, attr, counted))

    @staticmethod
    def _on_side_stream(kind: str, kwargs: dict) -> bool:
        if kind == "cuda":
            return kwargs.get("stream") is not None
        if not torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1":
            return False
        return torch.cuda.current_stream() != torch.cuda.default_stream()

    def watch_cuda(self, function_cls) -> bool:
        """Count calls of the CUDA backend's kernel objects (`get_function` results)."""
        if function_cls is None or "__call__" not in vars(function_cls):
            return False
        self._wrap(function_cls, "__call__", "cuda")
        return True

    def intact(self) -> bool:
        return all(getattr(cls, attr) is fn for cls, attr, fn in self._patched)


# Compute a launcher must not call instead of launching its kernel.
_COMPUTE = re.compile(
    r"\b(?:torch\.(?:nn\.functional\.\w+|softmax|log_softmax|add|sub|mul|div|exp|sum|max|amax|"
    r"where|matmul|mm|bmm|einsum|clone|cat|stack|special\.\w+|ops\.\w+)|F\.\w+|cupy|cublas|"
    r"cp\.\w+)\s*\(|(?<!tl)(?<!np)(?<!math)\.(?:softmax|copy_|add_|exp|sum|amax|max|clone|fill_|index_put_)\s*\(")


def static_scan(sources: dict[str, str]) -> list[str]:
    """`cell X, line N: torch.softmax(` for every compute call in the solution cells."""
    found = []
    for gid, src in sources.items():
        for number, line in enumerate(src.splitlines(), 1):
            code = line.split("#", 1)[0]
            if '"""' in src and _inside_string(src, line):
                continue  # CUDA C source text
            for m in _COMPUTE.finditer(code):
                found.append(f"cell {gid}, line {number}: {m.group(0).strip()}")
    return found


def _inside_string(src: str, line: str) -> bool:
    """True for lines of a triple-quoted string (the CUDA source), by quote parity."""
    before = src[: src.find(line)]
    return (before.count('"""') + before.count("'''")) % 2 == 1
