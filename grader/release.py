"""The student release: `labs/*/labNN_<op>.py` → `exercises/*/labNN_<op>.ipynb`.

Solutions become stubs that a student recognises and that still run: a Python region becomes
`raise NotImplementedError()`, a CUDA C region (`/// BEGIN SOLUTION` inside the source string)
becomes a comment, so the module compiles and leaves its output untouched. Hidden tests go.
Grade-cell points are written from the manifest, the only place they are kept.
"""

from __future__ import annotations

from pathlib import Path

from grader.manifest import Lab

PY_BEGIN, PY_END = "### BEGIN SOLUTION", "### END SOLUTION"
C_BEGIN, C_END = "/// BEGIN SOLUTION", "/// END SOLUTION"
HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


class ReleaseError(ValueError):
    pass


def _replace_regions(source: str, begin: str, end: str, stub: list[str] | None, where: str) -> str:
    """Replace each begin..end region by `stub` lines at the marker's indentation (None: drop)."""
    out, inside = [], False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped == begin:
            if inside:
                raise ReleaseError(f"{where}: nested {begin!r}")
            inside = True
            indent = line[: len(line) - len(line.lstrip())]
            out.extend(indent + s for s in (stub or []))
        elif stripped == end:
            if not inside:
                raise ReleaseError(f"{where}: {end!r} without {begin!r}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ReleaseError(f"{where}: {begin!r} is never closed")
    return "\n".join(out).rstrip("\n")


def strip_solutions(source: str, where: str = "cell") -> str:
    source = _replace_regions(source, C_BEGIN, C_END, ["// YOUR CODE HERE"], where)
    return _replace_regions(source, PY_BEGIN, PY_END,
                            ["# YOUR CODE HERE", "raise NotImplementedError()"], where)


def strip_hidden(source: str, where: str = "cell") -> str:
    return _replace_regions(source, HIDDEN_BEGIN, HIDDEN_END, None, where)


def grade_points(lab: Lab, grade_id: str) -> float:
    """Points of a grade cell, from the manifest (docs/lab-toml.md: grade cells and points)."""
    for ex in lab.exercises:
        points = ex.points_for(grade_id)
        if points is not None:
            return points
    known = ", ".join(lab.grade_cells())
    raise ReleaseError(f"{lab.id}: grade cell {grade_id!r} belongs to no exercise in lab.toml "
                       f"(grade cells: {known})")


def source_notebook(lab: Lab):
    """The lab's notebook with solutions and hidden tests (the instructor's source)."""
    import jupytext  # here: it imports nbformat, seconds (see grader.startup)

    nb = jupytext.read(lab.source)
    nb.metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    for cell in nb.cells:
        cell.metadata.pop("lines_to_next_cell", None)
        meta = cell.metadata.get("nbgrader")
        if meta and meta.get("grade"):
            meta["points"] = grade_points(lab, meta["grade_id"])
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def student_notebook(lab: Lab):
    nb = source_notebook(lab)
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader", {})
        where = f"{lab.id} cell {meta.get('grade_id', '?')}"
        if meta.get("solution"):
            cell.source = strip_solutions(cell.source, where)
        if meta.get("grade"):
            cell.source = strip_hidden(cell.source, where)
        for marker in (PY_BEGIN, C_BEGIN, HIDDEN_BEGIN):
            if marker in cell.source:
                raise ReleaseError(f"{where}: {marker!r} outside a solution/grade cell")
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{lab.id}-{i:02d}"  # stable ids: the committed release is reproducible
    return nb


def render(nb) -> str:
    import nbformat  # here: importing it costs seconds (see grader.startup)

    return nbformat.writes(nb) + "\n"


def release(lab: Lab, out_dir: Path) -> Path:
    path = Path(out_dir) / lab.id / f"{lab.id}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(student_notebook(lab)))
    return path


def stale(lab: Lab, out_dir: Path) -> bool:
    path = Path(out_dir) / lab.id / f"{lab.id}.ipynb"
    return not path.exists() or path.read_text() != render(student_notebook(lab))

