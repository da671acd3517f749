"""`tclab new labNN_<op>`: a new lab, complete and working, for an instructor to fill in.

The scaffold is a deliberately simple placeholder op, `out = 2 * x` in float32, written out as
every file a lab needs: the manifest, the notebook source (solutions and hidden tests), the two
hidden reference kernels and two negative controls. It grades as a lab does the moment it is
written (`tclab release`, then `tclab check labNN_<op> --submission solutions`); the instructor
then replaces the op wherever a file says TODO(instructor).

The files come from `grader/templates/*.tmpl` (`string.Template`: `${op}`, `${OP}`, `${lab_id}`,
`${number}`, `${title}`, `${title_toml}`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from string import Template

from grader.base import paths

TEMPLATES = Path(__file__).parent / "templates"
# Stricter than the manifest's id pattern: the op names Python and C identifiers
# (`<op>_kernel`, `<OP>_CU`), so it starts with a letter.
LAB_ID = re.compile(r"lab[0-9]{2}_[a-z0-9_]+")
OP = re.compile(r"[a-z][a-z0-9_]*")


class ScaffoldError(ValueError):
    """Why a lab cannot be scaffolded, in one line."""


def _targets(lab_id: str, op: str, root: Path) -> dict[str, Path]:
    """{template name: the file it becomes}, in the order they are written."""
    return {
        "lab.toml.tmpl": root / "labs" / lab_id / "lab.toml",
        "notebook.py.tmpl": root / "labs" / lab_id / f"{lab_id}.py",
        "reference_triton.py.tmpl": root / "reference" / lab_id / f"{op}_triton.py",
        "reference_cuda.py.tmpl": root / "reference" / lab_id / f"{op}_cuda.py",
        "corpus_triton_stub.py.tmpl": root / "tests" / "corpus" / lab_id / "triton_stub.py",
        "corpus_cuda_no_bounds_check.py.tmpl":
            root / "tests" / "corpus" / lab_id / "cuda_no_bounds_check.py",
    }


def _refuse_if_taken(lab_id: str, root: Path) -> None:
    labs = root / "labs"
    number = lab_id[:5]
    taken = sorted(p.name for p in labs.glob(f"{number}_*") if p.is_dir()) if labs.is_dir() else []
    if taken:
        raise ScaffoldError(f"{number} is taken by labs/{taken[0]}: pick another number")
    for folder in (root / "labs", root / "reference", root / "tests" / "corpus"):
        if (folder / lab_id).exists():
            where = (folder / lab_id).relative_to(root)
            raise ScaffoldError(f"{where} already exists: move it away or pick another id")


def _title(op: str, title: str | None) -> str:
    if title is None:
        return op.replace("_", " ").strip().capitalize()
    title = title.strip()
    if not title or "\n" in title or "\r" in title:
        raise ScaffoldError(f"the title must be one non-empty line, got {title!r}")
    return title


def new(lab_id: str, title: str | None = None, root: Path | None = None) -> list[Path]:
    """Write the files of a new lab `lab_id` under `root` (default: the checkout); returns them.

    Refuses (ScaffoldError) an id that is not `labNN_<op>`, a lab number or id already under
    root/labs, and a folder it would write into that already exists.
    """
    root = Path(paths.ROOT if root is None else root)
    if not LAB_ID.fullmatch(lab_id):
        raise ScaffoldError(f"{lab_id!r} is not a lab id: labNN_<op>, e.g. lab13_row_sum "
                            "(two digits, then lowercase letters, digits and _)")
    op = lab_id[6:]
    if not OP.fullmatch(op):
        raise ScaffoldError(f"the op {op!r} must start with a letter: it names the kernels "
                            f"({op}_kernel) and the launchers")
    _refuse_if_taken(lab_id, root)
    title = _title(op, title)
    values = {"lab_id": lab_id, "op": op, "OP": op.upper(), "number": lab_id[3:5],
              "title": title, "title_toml": json.dumps(title, ensure_ascii=False)}
    written = []
    for template, target in _targets(lab_id, op, root).items():
        text = Template((TEMPLATES / template).read_text()).substitute(values)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        written.append(target)
    return written
