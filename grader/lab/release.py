"""The student release: `labs/*/labNN_<op>.py` → `exercises/*/labNN_<op>.ipynb`.

Solutions become stubs that a student recognises and that still run: a Python region becomes
`raise NotImplementedError()`, a CUDA C region (`/// BEGIN SOLUTION` inside the source string)
becomes a comment, so the module compiles and leaves its output untouched. Hidden tests go.
Grade-cell points are written from the manifest, the only place they are kept.

A released notebook carries a stamp in its metadata, the SHA-256 of the notebook as written with
an empty stamp: a file whose stamp does not verify was changed after its release (edited, or
opened and saved in Jupyter), and `tclab release` leaves it alone unless `--force`, which keeps
a copy first. The stamp is a function of the notebook alone, so a release stays reproducible.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from grader.base import paths
from grader.lab.manifest import Lab

PY_BEGIN, PY_END = "### BEGIN SOLUTION", "### END SOLUTION"
C_BEGIN, C_END = "/// BEGIN SOLUTION", "/// END SOLUTION"
HIDDEN_BEGIN, HIDDEN_END = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
STAMP_KEY = "tclab_release"  # notebook metadata: the stamp
CURRENT, MISSING, STALE, EDITED = "current", "missing", "stale", "edited"


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
    import jupytext  # here: it imports nbformat, seconds (see grader.base.startup)

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
    """The notebook's text, stamped (see the module's docstring)."""
    import nbformat  # here: importing it costs seconds (see grader.base.startup)

    nb.metadata[STAMP_KEY] = ""
    blank = nbformat.writes(nb) + "\n"
    empty = f'"{STAMP_KEY}": ""'
    head, sep, tail = blank.rpartition(empty)
    assert sep, f"nbformat did not write the {STAMP_KEY} metadata as {empty}"
    digest = hashlib.sha256(blank.encode()).hexdigest()
    nb.metadata[STAMP_KEY] = digest
    return f'{head}"{STAMP_KEY}": "{digest}"{tail}'


def _stamp(text: str | bytes) -> str | None:
    """The notebook's release stamp, where it has one."""
    try:
        stamp = json.loads(text)["metadata"][STAMP_KEY]
    except (ValueError, KeyError, TypeError):
        return None
    return stamp if isinstance(stamp, str) and stamp else None


def as_released(text: str) -> bool:
    """Whether `text` is a notebook exactly as some release wrote it (its stamp verifies)."""
    digest = _stamp(text)
    if not digest:
        return False
    head, sep, tail = text.rpartition(f'"{STAMP_KEY}": "{digest}"')
    blank = f'{head}"{STAMP_KEY}": ""{tail}'
    return bool(sep) and hashlib.sha256(blank.encode()).hexdigest() == digest


def release_id(data: bytes) -> str:
    """Which release a file came from: a notebook's stamp (kept through the student's edits and
    Jupyter's saves), else the SHA-256 of its bytes."""
    return _stamp(data) or hashlib.sha256(data).hexdigest()


def state(lab: Lab, out_dir: Path, text: str | None = None) -> str:
    """CURRENT (what a release writes now), MISSING, STALE (an earlier release, untouched since)
    or EDITED (changed after its release). `text`: the release's, when already rendered."""
    path = lab.release_path(out_dir)
    if not path.exists():
        return MISSING
    have = path.read_text()
    if have == (text if text is not None else render(student_notebook(lab))):
        return CURRENT
    return STALE if as_released(have) else EDITED


def stale(lab: Lab, out_dir: Path) -> bool:
    return state(lab, out_dir) != CURRENT


def backup_path(path: Path) -> Path:
    """A free name beside `path` for the copy `--force` keeps: NAME.edited.ipynb, then
    NAME.edited-2.ipynb, ..."""
    for n in range(1, 10_000):
        candidate = path.with_name(f"{path.stem}.edited{'' if n == 1 else f'-{n}'}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise ReleaseError(f"{path.parent}: no free name for a copy of {path.name}")


class EditedError(ReleaseError):
    """The notebook in the release tree was changed after its release: left as it is."""


def release(lab: Lab, out_dir: Path, force: bool = False) -> Path:
    """Write the lab's student notebook into `out_dir`. One changed after its release is left
    as it is (EditedError) unless `force`: then it is copied to `backup_path` first."""
    text = render(student_notebook(lab))
    _write(lab, Path(out_dir), text, state(lab, out_dir, text), force)
    return lab.release_path(out_dir)


def _write(lab: Lab, out_dir: Path, text: str, now: str, force: bool) -> Path | None:
    """Write `text` where the release was in state `now`; the backup's path, if one was kept."""
    path, backup = lab.release_path(out_dir), None
    if now == CURRENT:
        return None
    if now == EDITED:
        if not force:
            raise EditedError(f"{shown(path)} was edited after its release")
        backup = backup_path(path)
        backup.write_bytes(path.read_bytes())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)  # a notebook is whole or not there, never half written
    return backup


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def shown(path: Path) -> str:
    """`path` as messages name it: from the project's root where it lies inside."""
    path = Path(path)
    try:
        return str(path.relative_to(paths.ROOT))
    except ValueError:
        return str(path)


def _workspace_hint(lab: Lab, path: Path) -> str:
    """Where a student's work in the release tree belongs: their working copy."""
    mine = lab.release_path(paths.WORKSPACE)
    if mine.exists() and mine.read_bytes() == path.read_bytes():
        return f"your work is in {shown(mine)} too"
    if mine.exists():
        return f"bring your work into {shown(mine)}, your working copy"
    return f"move your work to {shown(mine.parent)}/, where `make lab` opens it"


@dataclass
class Report:
    """What `tclab release` did: lines for stdout, problems for stderr (exit 1 if any)."""
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def release_tree(labs: list[Lab], out_dir: Path, check: bool = False,
                 force: bool = False) -> Report:
    """`tclab release [--check] [--force]` over `labs`."""
    out, report = Path(out_dir), Report()
    stale_ids, written = [], 0
    for lab in labs:
        path = lab.release_path(out)
        text = render(student_notebook(lab))
        now = state(lab, out, text)
        if now == EDITED and check:
            report.problems.append(
                f"{shown(path)}: edited after its release ({out.name}/ is the release, "
                f"students work in a copy): {_workspace_hint(lab, path)}; `git checkout "
                f"{shown(path)}` then restores the release")
        elif now == EDITED and not force:
            report.problems.append(
                f"{shown(path)}: edited after its release, left as it is: "
                f"{_workspace_hint(lab, path)}; or `tclab release --force` releases over it "
                f"and keeps your copy beside it")
        elif now in (STALE, MISSING) and check:
            stale_ids.append(lab.id)
        elif now != CURRENT and not check:
            backup = _write(lab, out, text, now, force)
            if backup is not None:
                report.lines.append(f"{shown(path)} was edited: your copy is {shown(backup)}")
            report.lines.append(f"wrote {shown(path)}")
            written += 1
    if stale_ids:
        report.problems.append(f"{out.name}/ is out of date for {', '.join(stale_ids)}: run "
                               f"`tclab release`")
    if not report.problems and written == 0:
        report.lines.append(f"{out.name}/ matches labs/: {count(len(labs), 'lab')}, "
                            f"{count(len(labs), 'notebook')}")
    return report
