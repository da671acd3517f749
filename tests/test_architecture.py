"""The grader's structure, checked from its source with `ast` (nothing is imported):

- every `Verdict` is built in `grader/judge/`: a verdict decided elsewhere is a second copy of
  a decision, and the copies drift;
- no import cycle, counting imports inside functions (a lazy import keeps start-up fast, it
  does not make two modules any less tangled);
- every module has a layer, and imports nothing of a higher one.
"""

from __future__ import annotations

import ast
from pathlib import Path

GRADER = Path(__file__).resolve().parent.parent / "grader"


# --- reading a package's imports ------------------------------------------------------------

def module_name(root: Path, path: Path) -> str:
    """`grader/judge/perf.py` -> `grader.judge.perf`; a package's `__init__.py` is the package."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path) -> dict[str, Path]:
    return {module_name(root, p): p for p in sorted(root.rglob("*.py"))}


def _resolve(name: str, level: int, here: str, is_package: bool) -> str:
    """The absolute name of `from <level dots><name> import ...` written in module `here`."""
    if level == 0:
        return name
    base = here.split(".")
    base = base[:len(base) - level + (1 if is_package else 0)]
    return ".".join(base + ([name] if name else []))


def imports(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in its body (functions too).
    `from a import b` counts as importing `a.b` where that is a module, else `a`; importing
    `a.b` also imports the package `a` (its `__init__` runs first)."""
    known = modules(root)
    package = root.name
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        is_package = path.name == "__init__.py"
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(node.module or "", node.level, name, is_package)
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                           for alias in node.names]
            for target in targets:
                if target != package and not target.startswith(package + "."):
                    continue
                while target and target not in known:  # `grader.cuda.SourceModule`
                    target = target.rpartition(".")[0]
                found.add(target)
        graph[name] = found - {name}
    # A submodule's import runs its packages' `__init__` first: an edge to each of them.
    for name, targets in graph.items():
        for target in list(targets):
            parent = target.rpartition(".")[0]
            while parent and parent != package:
                if parent in known and parent != name and not name.startswith(parent + "."):
                    targets.add(parent)
                parent = parent.rpartition(".")[0]
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


# --- every Verdict is built in grader/judge/ --------------------------------------------------

def verdicts_built(source: str, filename: str = "<source>") -> list[int]:
    """The lines of `source` that call `Verdict(...)` or `<anything>.Verdict(...)`."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Name) and func.id == "Verdict") or \
                    (isinstance(func, ast.Attribute) and func.attr == "Verdict"):
                found.append(node.lineno)
    return found


def test_the_checker_sees_a_verdict_built():
    """Negative control: each way of spelling the call is reported, a mention is not."""
    source = ("from grader.judge.verdict import Verdict\n"
              "from grader.judge import verdict\n"
              "a = Verdict(check='perf', status='skipped', reason='r')\n"
              "b = verdict.Verdict(check='perf', status='skipped', reason='r')\n"
              "c = Verdict.from_dict({})\n"
              "d: Verdict | None = None\n")
    assert verdicts_built(source) == [3, 4]


def test_every_verdict_is_built_in_the_judge():
    """A verdict is decided in one place: the other modules ask the judge's helpers
    (`perf.not_measured`, `correctness.unreadable`, ...) for theirs."""
    judge = GRADER / "judge"
    outside = {str(path.relative_to(GRADER.parent)): lines
               for path in sorted(GRADER.rglob("*.py")) if judge not in path.parents
               for lines in [verdicts_built(path.read_text(), str(path))] if lines}
    assert not outside, f"Verdict(...) built outside grader/judge/ (file: lines): {outside}"
