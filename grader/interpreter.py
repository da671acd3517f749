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


def ensure(device: str) -> None:
    """Fix `device` ("cpu" or "gpu") for this process and its children; on "cpu", also for a
    triton imported earlier (see the module docstring) and for `@triton.autotune`."""
    os.environ["TCLAB_DEVICE"] = device
    if device != "cpu":
        return
    os.environ["TRITON_INTERPRET"] = "1"
    # numpy's "overflow encountered in exp" from the interpreter: a GPU computes the same inf
    # silently, and any stderr in a graded cell costs its points under nbgrader.
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"triton\.")
    if needs_repair():
        repair(_importer_globals())
    _patch_autotuner()
