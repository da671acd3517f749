"""A student's solution cells, as source text, and the module built from them.

Cells are found by their nbgrader `grade_id`, in an `.ipynb` or in a jupytext `.py` source.
The module is written to a file (Triton's `@jit` needs real source) with a line map, so errors
point at the student's cell and line, not at ours.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from grader.lab.manifest import Lab

SETUP_CELL = "setup"


class SubmissionError(ValueError):
    """A submission that cannot be graded as it is; `status` is the verdict it gets."""

    def __init__(self, message: str, status: str = "unreadable"):
        super().__init__(message)
        self.status = status


def read_notebook(path: Path):
    """The notebook at `path` (.ipynb, or a jupytext .py source); anything unreadable raises
    SubmissionError with one line that says what is wrong."""
    path = Path(path)
    if not path.exists():
        raise SubmissionError(f"no notebook at {path}")
    if path.suffix not in (".ipynb", ".py"):
        raise SubmissionError(f"{path}: expected an .ipynb notebook or a jupytext .py source")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise SubmissionError(f"{path}: cannot be read ({exc})") from None
    if not text.strip():
        raise SubmissionError(f"{path}: the file is empty")
    try:
        if path.suffix == ".ipynb":
            import nbformat

            nb = nbformat.reads(text, as_version=4)
        else:
            import jupytext

            nb = jupytext.reads(text, fmt="py:percent")
    except Exception as exc:  # noqa: BLE001 - nbformat/json/jupytext raise many kinds
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SubmissionError(f"{path}: not a valid notebook ({first[:200]}); restore it from "
                              "a checkpoint or the released notebook") from None
    if not any(grade_id(c) for c in nb.cells):
        raise SubmissionError(f"{path}: holds no graded cells (is it this lab's notebook? a .py "
                              "must be a jupytext percent notebook with nbgrader cell metadata)")
    return nb


def grade_id(cell) -> str | None:
    meta = cell.get("metadata", {}) if isinstance(cell, dict) else {}
    nbg = meta.get("nbgrader", {}) if isinstance(meta, dict) else {}
    return nbg.get("grade_id") if isinstance(nbg, dict) else None


def cell_sources(nb, wanted: tuple[str, ...], where: str = "notebook",
                 names: dict[str, str] | None = None) -> dict[str, str]:
    """{grade_id: source} for the wanted cells; a missing cell, or one turned into markdown,
    is a SubmissionError that names it as the student sees it (`names`: grade_id -> words)."""
    found, wrong_type = {}, []
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in wanted and gid not in found:
            if cell.get("cell_type") != "code":
                wrong_type.append(gid)
                continue
            src = cell.get("source", "")
            found[gid] = "".join(src) if isinstance(src, list) else str(src)
    missing = [w for w in wanted if w not in found]
    if missing:
        said = ", ".join((names or {}).get(m, m) for m in missing)
        if set(missing) <= set(wrong_type):
            raise SubmissionError(f"{where}: {said} is no longer a code cell (was it turned into "
                                  "markdown? change it back to code)", "missing")
        raise SubmissionError(f"{where}: {said} is missing (was it deleted? copy it back from "
                              "the released notebook)", "missing")
    return {w: found[w] for w in wanted}


def earlier_cells(nb, wanted: tuple[str, ...]) -> dict[str, str]:
    """{grade_id: source} of the solution cells above the first of `wanted`, in order, that
    parse: a notebook is one namespace, so a helper defined in an earlier exercise's cell is
    there when a later one runs. A cell that does not parse is left out (its own exercise
    reports it), so that it cannot sink the exercises below it."""
    import ast

    found = {}
    for cell in nb.cells:
        gid = grade_id(cell)
        if gid in wanted:
            break
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not gid or gid == SETUP_CELL or cell.get("cell_type") != "code" or \
                not (isinstance(meta, dict) and meta.get("solution")):
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        try:
            ast.parse(src)
        except (SyntaxError, ValueError):
            continue
        found[gid] = src
    return found


def setup_source(lab: Lab) -> str:
    """The locked setup cell, always from the lab's own source: never the student's copy."""
    import jupytext

    return cell_sources(jupytext.read(lab.source), (SETUP_CELL,), str(lab.source))[SETUP_CELL]


@dataclass
class Built:
    path: Path
    spans: list[tuple[int, int, str]]  # (first line, last line, cell label), 1-based, in path

    def locate(self, lineno: int) -> str:
        for first, last, label in self.spans:
            if first <= lineno <= last:
                return f"{label}, line {lineno - first + 1}"
        return f"line {lineno}"


def describe(exc: BaseException, built: Built | None) -> str:
    """The exception as the student needs it: the frames in their cells (cell-relative lines)
    and the message; our frames and the library's are left out. Causes are included."""
    chain, seen = [], set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    parts = []
    for e in reversed(chain):
        frames = [f for f in traceback.extract_tb(e.__traceback__)
                  if built is not None and f.filename == str(built.path)]
        lines = [f"  {built.locate(f.lineno)}, in {f.name}\n    {(f.line or '').strip()}"
                 for f in frames]
        parts.append("\n".join([*lines, *traceback.format_exception_only(e)]).rstrip())
    return "\n\nwhich caused:\n".join(parts)


def cell_label(gid: str, src: str) -> str:
    """A cell as JupyterLab shows it: by the function or source string it defines."""
    if gid == SETUP_CELL:
        return "the setup cell"
    for line in src.splitlines():
        m = re.match(r"(?:def|class)\s+(\w+)|([A-Z][A-Z0-9_]*)\s*=", line)
        if m:
            return f"the cell defining {m.group(1)}()" if m.group(1) else \
                f"the cell defining {m.group(2)}"
    return f"the cell {gid}"


def write_module(setup: str, sources: dict[str, str], folder: Path,
                 name: str = "submission") -> Built:
    """Write the lab's setup cell and the solution cells as one module; remember which lines
    came from which cell."""
    parts, spans, line = [], [], 1
    for gid, src in [(SETUP_CELL, setup), *sources.items()]:
        header = f"# ---- cell {gid} ----\n"
        body = src if src.endswith("\n") else src + "\n"
        first = line + 1
        last = first + body.count("\n") - 1
        spans.append((first, last, cell_label(gid, src)))
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
