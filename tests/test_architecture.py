"""The grader's structure, checked from its source with `ast` (nothing is imported):

- every `Verdict` is built in `grader/judge/`: a verdict decided elsewhere is a second copy of
  a decision, and the copies drift;
- no import cycle, counting imports inside functions (a lazy import keeps start-up fast, it
  does not make two modules any less tangled);
- every module has a layer, and imports nothing of a higher one.
"""

from __future__ import annotations

import ast
import re
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
                while target and target not in known:  # `grader.backends.cuda.SourceModule`
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


# --- no import cycles ------------------------------------------------------------------------

def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "fake"


def test_the_checker_sees_a_cycle(tmp_path):
    """Negative control: a cycle closed by an import inside a function, and one closed by a
    relative import in a subpackage, are both reported; a package that imports its own
    submodules (`from fake.sub import a` in `fake/sub/__init__.py`, `from fake.sub import b`
    in `a`: each names a submodule) is no cycle, and neither is an import of a name."""
    root = _package(tmp_path, {
        "fake/__init__.py": "",
        "fake/low.py": "def f():\n    from fake import high\n    return high\n",
        "fake/high.py": "from fake import low\n",
        "fake/sub/__init__.py": "from fake.sub import a\nfrom fake.sub.a import NAME\n",
        "fake/sub/a.py": "from fake.sub import b\nNAME = 1\n",
        "fake/sub/b.py": "from . import c\n",
        "fake/sub/c.py": "from .b import x\n",
        "fake/alone.py": "import os\nfrom fake.low import f\n",
    })
    graph = imports(root)
    assert graph["fake.sub.c"] == {"fake.sub.b"}, graph  # the relative import resolved
    assert cycles(graph) == [["fake.high", "fake.low"], ["fake.sub.b", "fake.sub.c"]]


def test_no_import_cycle_in_the_grader():
    """Modules form a hierarchy: a shared piece lives in the lower module (or a small one of
    its own), never imported back from above; lazy imports count too."""
    found = cycles(imports(GRADER))
    assert not found, f"import cycles in grader/ (each a set of modules importing each other): " \
                      f"{found}"


# --- layers ------------------------------------------------------------------------------------

# The layers, lowest first. Each is a folder of grader/, except `front`: the two modules at the
# top of grader/, the doors users name (`tclab` is `grader.cli:main`; a lab's setup cell says
# `from grader.notebook import ...`). A module imports only from its own layer and those below.
LAYERS = ("base", "lab", "backends", "judge", "execution", "pipeline", "course", "front")
DOORS = ("cli", "notebook")

# Imports of a higher layer that stay, each for its reason. The test fails when one of them is
# gone too, so this list only shrinks.
UPWARD = {
    # The student's setup cell imports grader.notebook; a worker server imports it ahead, once
    # for all the checks it forks (seconds of start-up each).
    ("grader.execution.worker", "grader.notebook"),
}


def layered(root: Path, layers=LAYERS, doors=DOORS) -> tuple[dict[str, int], list[str]]:
    """{module: its layer's rank} and the modules that sit in no layer: a module at the top
    of the package that is not a door, or in a folder that is not a layer."""
    rank, outside = {}, []
    for name, path in modules(root).items():
        parts = name.split(".")[1:]
        if not parts:
            where = layers[0]  # the package's __init__: below everything
        elif len(parts) == 1 and path.name != "__init__.py":
            where = "front" if parts[0] in doors else None
        else:
            where = parts[0]
        if where in layers:
            rank[name] = layers.index(where)
        else:
            outside.append(name)
    return rank, sorted(outside)


def upward(graph: dict[str, set[str]], rank: dict[str, int]) -> set[tuple[str, str]]:
    """Every import of a module of a higher layer than the importer's."""
    return {(a, b) for a, targets in graph.items() for b in targets if rank[b] > rank[a]}


def test_the_checker_sees_an_import_from_above(tmp_path):
    """Negative control: a low module importing a high one (inside a function) is reported;
    the other direction and imports within a layer are not; a module at the top that is no
    door, and a folder that is no layer, sit in no layer."""
    root = _package(tmp_path, {
        "fake/__init__.py": "",
        "fake/low/__init__.py": "",
        "fake/low/a.py": "def f():\n    from fake.top import high\n",
        "fake/low/peer.py": "from fake.low import a\n",
        "fake/top/__init__.py": "",
        "fake/top/high.py": "from fake.low import peer\n",
        "fake/door.py": "from fake.top import high\n",
        "fake/stray.py": "",
        "fake/attic/__init__.py": "",
    })
    rank, outside = layered(root, ("low", "top", "front"), ("door",))
    assert outside == ["fake.attic", "fake.stray"]
    assert upward(imports(root), {**rank, **{m: 0 for m in outside}}) == \
        {("fake.low.a", "fake.top.high"), ("fake.low.a", "fake.top")}  # the package runs too


def test_every_module_sits_in_a_layer():
    """A module lives in its layer's folder: a new one is placed where its imports allow."""
    rank, outside = layered(GRADER)
    assert not outside, f"modules in no layer (a folder of LAYERS, or a door): {outside}"
    folders = {p.name for p in GRADER.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYERS) - {"front"}, \
        "a layer's folder is missing, or a folder is no layer"


def test_no_module_imports_from_a_higher_layer():
    rank, _ = layered(GRADER)
    found = upward(imports(GRADER), rank)
    assert found - UPWARD == set(), f"imports of a higher layer: {sorted(found - UPWARD)}"
    assert UPWARD - found == set(), f"UPWARD lists imports that are gone: {sorted(UPWARD - found)}"


ARCHITECTURE = GRADER.parent / "docs" / "architecture.md"


def page_layers(root: Path = GRADER) -> dict[str, list[str]]:
    """{layer: the names the page shows for its modules}, lowest first: a module by its path
    below its layer's folder (`execution.runner` -> `runner`, `backends.cuda.cpu` ->
    `cuda.cpu`); packages themselves are not shown."""
    rank, _ = layered(root)
    shown = {name: [] for name in LAYERS}
    for module in sorted(rank):
        parts = module.split(".")[1:]
        path = modules(root)[module]
        if path.name == "__init__.py" and len(parts) <= 1:
            continue  # the package, or a layer's folder
        below = parts if LAYERS[rank[module]] == "front" else parts[1:]
        shown[LAYERS[rank[module]]].append(".".join(below))
    return shown


def missing_from_page(page: str, layers: dict[str, list[str]]) -> list[str]:
    """The modules of `layers` that the page's diagram does not show on their layer's lines
    (layers top down; a layer's name starts its first line)."""
    diagram = page.split("```")[1]
    rows: dict[str, str] = {}
    current = None
    for line in diagram.splitlines():
        head, _, rest = line.strip().partition(" ")
        if head in layers:
            current, line = head, rest
        if current:
            rows[current] = rows.get(current, "") + " " + line
    if list(rows) != list(reversed(layers)):
        return [f"layers in this order, top down: {list(reversed(layers))}"]
    missing = []
    for name, shown in layers.items():
        for module in shown:
            if module.startswith("cuda."):
                continue  # cuda.* stands for the CUDA backend's modules
            if not re.search(rf"(?<![\w.]){re.escape(module)}(?!\w)", rows[name]):
                missing.append(module)
    return missing


def test_the_architecture_page_names_every_module_in_its_layer():
    """docs/architecture.md's diagram lists every module on its layer's line, so a module
    added or moved shows there too."""
    assert missing_from_page(ARCHITECTURE.read_text(), page_layers()) == []


def test_the_page_check_sees_a_module_left_out():
    """Negative control: a page without `replay`, or with its layers out of order."""
    page, layers = ARCHITECTURE.read_text(), page_layers()
    assert missing_from_page(page.replace("replay (", "(", 1), layers) == ["replay"]
    swapped = dict(reversed(list(layers.items())))
    assert missing_from_page(page, swapped) != []
