"""A corpus control (tests/corpus/<lab>/*.py) as the submission it stands for.

A control holds its header and only what differs from the lab's solution (the solution cells
of labs/<lab>/<lab>.py, marker lines dropped, as a student hands them in):

    # %% edit vector_add_cu
    # <<<
    #     if (i < n_chunks) {    lines of the solution cell, found there exactly once
    # ===
    #     if (i <= n_chunks) {   what they become (none: the lines go)
    # >>>

    # %% released vector_add_triton
                             the cell as the release gives it to students (the stub)

Each line of a block is written after `# ` (an empty line as `#`), so that a control stays a
valid Python file. In a quote, a line `# ~~~` stands for the solution's lines between the quoted
line above it and the next place the quoted lines below it appear (a kernel's body replaced
whole is quoted by its first and last lines). An edit may hold several blocks, each quoting
the solution cell as it is (not as an earlier block left it); `# ...` lines between blocks are
comments. Every cell the control's implementation grades and the control does not name is the
solution's.
`cells()` builds the sources, `notebook()` a notebook file that the grader reads as it reads a
student's; tests/corpus/README.md says how to write a control.
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import tempfile
from pathlib import Path

from grader.lab import manifest, release, submission

CORPUS = Path(__file__).parent / "corpus"
EDIT = re.compile(r"# %% edit (\w+)\s*$")
RELEASED = re.compile(r"# %% released (\w+)\s*$")
OLD, NEW, END = "# <<<", "# ===", "# >>>"
GAP = "# ~~~"  # in a quote: the solution's lines from the line above it to the line below it
MARKERS = {release.PY_BEGIN, release.PY_END, release.C_BEGIN, release.C_END}


class ControlError(ValueError):
    """A control that cannot be built: the message names the control and the cell."""


def header(path: Path) -> dict[str, list[str]]:
    """The `# key: value` lines above the first cell, every value of each key in order."""
    fields: dict[str, list[str]] = {}
    for line in Path(path).read_text().splitlines():
        if line.startswith("# %%"):
            break
        if line.startswith("# ") and ":" in line:
            key, value = line[2:].split(":", 1)
            fields.setdefault(key.strip(), []).append(value.strip())
    return fields


@functools.cache
def solution(lab_id: str) -> dict[str, str]:
    """{grade_id: source} of the lab's solution cells in notebook order, marker lines dropped."""
    lab = manifest.get(lab_id)
    out = {}
    for cell in submission.read_notebook(lab.source).cells:
        gid = submission.grade_id(cell)
        if gid and cell.cell_type == "code" and cell.metadata["nbgrader"].get("solution"):
            lines = cell.source.split("\n")
            out[gid] = "\n".join(s for s in lines if s.strip() not in MARKERS)
    return out


@functools.cache
def released(lab_id: str) -> dict[str, str]:
    """{grade_id: source} of the lab's cells as the release gives them to students."""
    return {gid: cell.source for cell in release.student_notebook(manifest.get(lab_id)).cells
            for gid in [submission.grade_id(cell)] if gid}


def _released(path: Path, text: str) -> list[str]:
    """The grade_ids of the `# %% released <grade_id>` lines."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# %% released"):
            m = RELEASED.match(line)
            if not m:
                raise ControlError(f"{_name(path)}, line {n}: write a released cell as "
                                   "`# %% released <grade_id>`")
            found.append(m.group(1))
    return found


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _edits(path: Path, text: str) -> dict[str, list[tuple[list[str], list[str]]]]:
    """{grade_id: [(old lines, new lines), ...]} of the `# %% edit` blocks."""
    edits: dict[str, list] = {}
    gid, state, old, new = None, None, [], []
    for n, line in enumerate([*text.splitlines(), "# %%"], 1):
        where = f"{_name(path)}, line {n}"
        if state and line.startswith("# %%"):
            raise ControlError(f"{where}: edit of {gid}: {OLD} without its {END}")
        if state == "old" and line == NEW:
            state = "new"
        elif state == "new" and line == END:
            if not old:
                raise ControlError(f"{where}: edit of {gid}: quote at least one line after "
                                   f"{OLD}, to say where the change goes")
            edits[gid].append((old, new))
            state, old, new = None, [], []
        elif state:
            if line != "#" and not line.startswith("# "):
                raise ControlError(f"{where}: edit of {gid}: write each line of a block as "
                                   "`# ` and the line (an empty line as `#`)")
            (old if state == "old" else new).append(line[2:])
        elif line.startswith("# %%"):
            m = EDIT.match(line)
            if line.startswith("# %% edit") and not m:
                raise ControlError(f"{where}: write an edit's cell as `# %% edit <grade_id>`")
            gid = m.group(1) if m else None
            if gid in edits:
                raise ControlError(f"{where}: a second edit of {gid}: put its blocks in one")
            if gid:
                edits[gid] = []
        elif gid and line == OLD:
            state = "old"
        elif gid and line.strip() and not line.startswith("#"):
            raise ControlError(f"{where}: edit of {gid}: code outside {OLD} ... {END}")
    return edits


def _parts(old: list[str]) -> list[list[str]]:
    """A quote split at its `~~~` lines: the runs of lines quoted as they are."""
    parts: list[list[str]] = [[]]
    for line in old:
        if line == GAP[2:]:
            parts.append([])
        else:
            parts[-1].append(line)
    return parts


def _match(lines: list[str], k: int, parts: list[list[str]]) -> tuple[int, int] | None:
    """(start, end) of the lines the quote stands for if its first run starts at line k: each
    later run found at its first place after the one before it (a `~~~` stands for the lines
    between)."""
    first = parts[0]
    if lines[k:k + len(first)] != first:
        return None
    end = k + len(first)
    for part in parts[1:]:
        at = next((j for j in range(end, len(lines) - len(part) + 1)
                   if lines[j:j + len(part)] == part), None)
        if at is None:
            return None
        end = at + len(part)
    return k, end


def _apply(path: Path, gid: str, base: str, blocks) -> str:
    lines = base.split("\n")
    spans = []
    for i, (old, new) in enumerate(blocks, 1):
        parts = _parts(old)
        if not parts[0] or not parts[-1]:
            raise ControlError(f"{_name(path)}: edit of {gid}, block {i}: quote a line before "
                               f"and after each {GAP}")
        at = [span for k in range(len(lines)) for span in [_match(lines, k, parts)] if span]
        if len(at) != 1:
            said = "nowhere" if not at else f"there {len(at)} times"
            raise ControlError(f"{_name(path)}: edit of {gid}, block {i}: the lines after {OLD} "
                               f"are {said} in the solution cell (quote them exactly, and "
                               "enough of them to find one place)")
        spans.append((*at[0], new, i))
    spans.sort()
    for (_, end, _, i), (start, _, _, j) in zip(spans, spans[1:]):
        if start < end:
            raise ControlError(f"{_name(path)}: edit of {gid}: blocks {i} and {j} overlap")
    for start, end, new, _ in reversed(spans):
        lines[start:end] = new
    return "\n".join(lines)


@functools.cache
def cells(path: Path) -> dict[str, str]:
    """{grade_id: source} of the submission the control stands for, in the lab's order: the
    cells its implementation grades, and any other cell it names (an earlier exercise's)."""
    path = Path(path)
    want = header(path)
    lab = manifest.get(path.parent.name)
    try:
        ex = lab.exercise(want.get("exercise", [None])[0])
        graded = ex.impls[want["impl"][0]].cells
    except (KeyError, ValueError) as exc:
        raise ControlError(f"{_name(path)}: the header names no graded cells ({exc})") from None
    base = solution(lab.id)
    text = path.read_text()
    if any(line.startswith("# %% nbgrader") for line in text.split("\n")):
        raise ControlError(f"{_name(path)}: a control is edits of the solution's cells "
                           "(`# %% edit <grade_id>`) or released cells, not cells of its own")
    edits = _edits(path, text)
    stubs = _released(path, text)
    for gid in [*edits, *stubs]:
        if gid not in base:
            raise ControlError(f"{_name(path)}: {gid} is not a solution cell of {lab.id}")
    named = [*edits, *stubs]
    if len(named) != len(set(named)):
        twice = sorted({g for g in named if named.count(g) > 1})
        raise ControlError(f"{_name(path)}: {twice} named twice (edited or released)")
    out = {}
    for gid, src in base.items():
        if gid in stubs:
            out[gid] = released(lab.id)[gid]
        elif gid in edits:
            out[gid] = _apply(path, gid, src, edits[gid])
        elif gid in graded:
            out[gid] = src
    return out


_FOLDER: list[Path] = []


def notebook(path: Path) -> Path:
    """The control as a notebook file (.ipynb, its cells as `cells()` builds them) in a folder
    of this process's, named after the control's lab: what the grader reads."""
    path = Path(path)
    if not _FOLDER:
        _FOLDER.append(Path(tempfile.mkdtemp(prefix="corpus-")))
        atexit.register(shutil.rmtree, _FOLDER[0], True)
    out = _FOLDER[0] / path.parent.name / f"{path.stem}.ipynb"
    if not out.exists():
        import nbformat

        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell(src, metadata={"nbgrader": {
            "grade_id": gid, "solution": True, "grade": False, "locked": False,
            "schema_version": 3}}) for gid, src in cells(path).items()]
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(nbformat.writes(nb))
    return out
