"""The device side's Triton kernels, built from the cells' SOURCE, never by running the cells.

The device process holds the data, so no student Python may run there. From the cells it
keeps only what Triton compiles: imports of triton (and math), `@triton.jit` functions (their
`@triton.autotune` / `@triton.heuristics` decorators dropped: the host evaluated those and
sent the values), and constexpr globals with literal values. Every other line becomes blank,
so line numbers stay the cells' own.

A kernel body may use what Triton's own front end accepts of a kernel and nothing else: its
arguments and locals, other kernels of the cells, constexpr globals, `triton.language` (and
libdevice, math), and the builtins Triton knows (range, len, min, max, print, int, float,
isinstance). Triton's front end itself would call any Python function reachable from a module
(it evaluates such calls at compile time), and the interpreter runs the body as Python: the
check below is what keeps both to kernel code.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

ALLOWED_MODULES = ("triton", "math")
BUILTINS = {"range", "len", "min", "max", "print", "int", "float", "isinstance", "list",
            "tuple", "bool", "abs", "enumerate", "zip", "True", "False", "None"}
FORBIDDEN_ATTRS = {"handle", "ctypes", "data", "base", "tobytes", "mro"}
FORBIDDEN_NODES = (ast.Import, ast.ImportFrom, ast.Lambda, ast.ClassDef, ast.Global,
                   ast.Nonlocal, ast.With, ast.AsyncFunctionDef, ast.AsyncWith, ast.Await,
                   ast.Yield, ast.YieldFrom, ast.Try, ast.Delete, ast.FunctionDef,
                   ast.NamedExpr, ast.Starred, ast.GeneratorExp, ast.ListComp, ast.SetComp,
                   ast.DictComp)
_PARSING = threading.Lock()  # CPython 3.11's parser in two threads at once is not safe


class KernelSourceError(Exception):
    """A kernel the device will not build: the message names the cell line and why."""


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
        return True
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False


def _dotted(node: ast.expr) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _constexpr_call(node: ast.expr) -> bool:
    """`tl.constexpr(3)`, `triton.language.constexpr(3)`, `constexpr(3)`."""
    return (isinstance(node, ast.Call) and (_dotted(node.func) or [""])[-1] == "constexpr"
            and len(node.args) == 1 and not node.keywords and _literal(node.args[0]))


def _import_ok(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(a.name.split(".")[0] in ALLOWED_MODULES for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in ALLOWED_MODULES
    return False


def _kept(node: ast.stmt) -> bool:
    """Whether a top-level statement is kept for the device."""
    if _import_ok(node):
        return True
    if isinstance(node, ast.Try):  # try: import this  except ImportError: import that
        return all(_import_ok(n) for n in node.body) and all(
            all(_import_ok(n) for n in h.body) for h in node.handlers) and not node.finalbody
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return all(isinstance(t, ast.Name) for t in targets) and (
            _literal(node.value) or _constexpr_call(node.value))
    if isinstance(node, ast.FunctionDef):
        return any(_decorator_name(d) == "jit" for d in node.decorator_list)
    return False


def _check_header(fn: ast.FunctionDef, where) -> None:
    args = fn.args
    for default in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
        if not (_literal(default) or _constexpr_call(default) or isinstance(default, ast.Name)):
            raise KernelSourceError(f"{where(default)}: a kernel argument's default must be a "
                                    "number, a string or a constexpr global")
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        ann = arg.annotation
        if ann is not None and not (_dotted(ann) or (isinstance(ann, ast.Constant)
                                                      and isinstance(ann.value, str))):
            raise KernelSourceError(f"{where(ann)}: a kernel argument's annotation must be a "
                                    "name such as tl.constexpr")
    if args.vararg or args.kwarg:
        raise KernelSourceError(f"{where(fn)}: a Triton kernel takes no *args or **kwargs")
    for d in fn.decorator_list:
        if _decorator_name(d) == "jit" and isinstance(d, ast.Call) and not all(
                _literal(k.value) for k in d.keywords):
            raise KernelSourceError(f"{where(d)}: @triton.jit(...) takes literal values only")


def _locals(fn: ast.FunctionDef) -> set[str]:
    names = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _module_safe(obj) -> bool:
    """An object a kernel may reach through a module: Triton's language, math, kernels."""
    if isinstance(obj, ModuleType):
        name = obj.__name__
        return name == "triton" or name == "math" or name.startswith("triton.language")
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("triton.language") or module == "math":
        return True
    kind = type(obj).__name__
    if kind in ("JITFunction", "InterpretedFunction", "constexpr", "dtype", "pointer_type",
                "block_type"):
        return True
    # Triton's IR enums (tl.PropagateNan.ALL, eviction and cache policies): constants.
    if hasattr(obj, "__members__") or hasattr(type(obj), "__members__"):
        owner = obj if isinstance(obj, type) else type(obj)
        if (getattr(owner, "__module__", "") or "").startswith("triton"):
            return True
    return isinstance(obj, (int, float, bool, str)) or obj in (_cdiv(), _next_pow2())


def _cdiv():
    import triton

    return triton.cdiv


def _next_pow2():
    import triton

    return triton.next_power_of_2


def check_body(fn: ast.FunctionDef, namespace: dict, where) -> None:
    """Refuse what a kernel body may not do (see the module's doc)."""
    local = _locals(fn)
    for node in (n for stmt in fn.body for n in ast.walk(stmt)):
        if isinstance(node, FORBIDDEN_NODES):
            raise KernelSourceError(f"{where(node)}: a Triton kernel cannot contain "
                                    f"{type(node).__name__.lower()} statements or expressions")
        if isinstance(node, ast.Attribute):
            if node.attr.startswith("_") or node.attr in FORBIDDEN_ATTRS:
                raise KernelSourceError(f"{where(node)}: `.{node.attr}` is not part of "
                                        "Triton's language")
            chain = _dotted(node)
            if chain and chain[0] not in local and chain[0] in namespace:
                obj = namespace[chain[0]]
                for part in chain[1:]:
                    if not _module_safe(obj):
                        break
                    obj = getattr(obj, part, None)
                if not _module_safe(obj):
                    raise KernelSourceError(f"{where(node)}: `{'.'.join(chain)}` is not part "
                                            "of Triton's language: a kernel body may call "
                                            "triton.language, libdevice, math and kernels only")
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in local or node.id in BUILTINS:
                continue
            value = namespace.get(node.id, _MISSING)
            if value is _MISSING or not _module_safe(value):
                raise KernelSourceError(f"{where(node)}: `{node.id}` is not available in a "
                                        "Triton kernel (kernels may use their arguments, "
                                        "triton.language, other @triton.jit functions and "
                                        "constexpr globals)")


_MISSING = object()


def build(setup: str, sources: dict[str, str], folder: Path, name: str = "kernels"):
    """The kernels module, imported: (module, built) with `built` as submission.write_module
    gives it (cell-relative line numbers). Raises KernelSourceError, or SyntaxError."""
    from grader.lab import submission
    built = submission.write_module(setup, sources, folder, name)
    text = built.path.read_text()
    with _PARSING:
        tree = ast.parse(text, str(built.path))
    lines = text.splitlines(keepends=True)

    def where(node) -> str:
        return built.locate(getattr(node, "lineno", 0))

    keep: list[ast.stmt] = []
    for node in tree.body:
        if _kept(node):
            keep.append(node)
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        for i in range(first - 1, node.end_lineno or node.lineno):
            lines[i] = "\n"
    for node in keep:
        if isinstance(node, ast.FunctionDef):
            _check_header(node, where)
            for d in node.decorator_list:  # autotune / heuristics: evaluated by the host
                if _decorator_name(d) != "jit":
                    for i in range(d.lineno - 1, d.end_lineno or d.lineno):
                        lines[i] = "\n"
    built.path.write_text("".join(lines))
    spec = importlib.util.spec_from_file_location(f"_tclab_{name}", built.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    namespace = vars(module)
    for node in keep:
        if isinstance(node, ast.FunctionDef):
            check_body(node, namespace, where)
    return module, built
