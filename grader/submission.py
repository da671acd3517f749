"""A student's solution cells, as source text, and the module built from them.

Cells are found by their nbgrader `grade_id`, in an `.ipynb` or in a jupytext `.py` source.
The module is written to a file (Triton's `@jit` needs real source) with a line map, so errors
point at the student's cell and line, not at ours.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.manifest import Lab

SETUP_CELL = "setup"
PY_STUB = "raise NotImplementedError()"
C_STUB = "// YOUR CODE HERE"


class SubmissionError(ValueError):
    pass


def read_notebook(path: Path):
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"no notebook at {path}")
    if path.suffix == ".ipynb":
        import nbformat

        return nbformat.read(path, as_version=4)
    if path.suffix == ".py":
        import jupytext

        return jupytext.read(path)
    raise SubmissionError(f"{path}: expected an .ipynb notebook or a jupytext .py source")


def grade_id(cell) -> str | None:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def cell_sources(nb, wanted: tuple[str, ...], where: str = "notebook") -> dict[str, str]:
    """{grade_id: source} for the wanted cells; a missing cell is an error that names it."""
    found = {}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in wanted and gid not in found:
            src = cell.source
            found[gid] = "".join(src) if isinstance(src, list) else src
    missing = [w for w in wanted if w not in found]
    if missing:
        raise SubmissionError(f"{where}: no cell with grade_id {', '.join(missing)} "
                              "(was it deleted? restore it from the released notebook)")
    return {w: found[w] for w in wanted}


def solution_sources(lab: Lab, impl: str, path: Path) -> dict[str, str]:
    nb = read_notebook(path)
    return cell_sources(nb, lab.impls[impl].cells, where=str(path))


def setup_source(lab: Lab) -> str:
    """The locked setup cell, always from the lab's own source: never the student's copy."""
    return cell_sources(read_notebook(lab.source), (SETUP_CELL,), str(lab.source))[SETUP_CELL]


def stubbed_cells(sources: dict[str, str]) -> list[str]:
    """Cells that still raise the release's NotImplementedError (a Python stub left alone)."""
    return [gid for gid, src in sources.items()
            if any(line.strip() == PY_STUB for line in src.splitlines())]


def c_stub_left(sources: dict[str, str]) -> bool:
    """The C stub compiles and writes nothing: only a never-written output reveals it."""
    return any(C_STUB in src for src in sources.values())


@dataclass
class Built:
    path: Path
    spans: list[tuple[int, int, str]]  # (first line, last line, grade_id), 1-based, in path

    def locate(self, lineno: int) -> str:
        for first, last, gid in self.spans:
            if first <= lineno <= last:
                return f"cell {gid}, line {lineno - first + 1}"
        return f"line {lineno}"


def write_module(lab: Lab, sources: dict[str, str], folder: Path,
                 name: str = "submission") -> Built:
    """Write setup + solution cells as one module; remember which lines came from which cell."""
    parts, spans, line = [], [], 1
    for gid, src in [(SETUP_CELL, setup_source(lab)), *sources.items()]:
        header = f"# ---- cell {gid} ----\n"
        body = src if src.endswith("\n") else src + "\n"
        first = line + 1
        last = first + body.count("\n") - 1
        spans.append((first, last, gid))
        parts.append(header + body + "\n")
        line = last + 2
    path = Path(folder) / f"{name}.py"
    path.write_text("".join(parts))
    return Built(path, spans)


def import_module(built: Built, name: str = "submission"):
    spec = importlib.util.spec_from_file_location(name, built.path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
