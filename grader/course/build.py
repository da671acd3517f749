"""labs/ → an nbgrader course directory.

    DIR/nbgrader_config.py                 our preprocessors in nbgrader's pipelines
    DIR/source/labNN_<op>/labNN_<op>.ipynb the instructor notebook (solutions, hidden tests)
    DIR/.tclab/secret_seed, skip_tag       this course's secrets, made once and kept on rebuild

Nothing else may sit beside a source notebook: `nbgrader generate_assignment` copies every
file there into the student release.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import nbformat

from grader.lab import manifest, release
from grader.lab.manifest import Lab

STATE = ".tclab"  # beside source/, never inside it: nothing here reaches a release
SECRET_FILE = "secret_seed"
SKIP_TAG_FILE = "skip_tag"
COURSE_ID_FILE = "course_id"  # not a secret: lets tools open the gradebook of this course
COURSE_ID = "tclab"
NBGRADER_IGNORES = {".ipynb_checkpoints", "__pycache__"}  # never copied by nbgrader

CONFIG = '''\
"""nbgrader configuration of a Triton-vs-CUDA Lab course, written by `tclab course build`.

Rebuild rather than edit: `tclab course build {root_hint}` rewrites this file and keeps the
secrets in .tclab/. What differs from nbgrader's defaults, and why:
- solutions are stripped by tclab's own preprocessor, which turns a C region inside a CUDA
  source string into a C stub that still compiles (nbgrader would write Python into C);
- autograde scores every grade cell from checks run OUTSIDE the student's kernel (Regrade):
  nothing a notebook does to itself (skip tags, input transformers, patched checks) counts;
- the skip-execution tag is a secret and every tag is dropped from submissions;
- deleted grade cells are restored, and score 0;
- feedback never shows the hidden tests.
"""
import os

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearMarkScheme,
                                    ClearOutput, ComputeChecksums, DeduplicateIds, GetGrades,
                                    IncludeHeaderFooter, LimitOutput, LockCells,
                                    OverwriteKernelspec, SaveAutoGrades, SaveCells)

from grader.course import preprocessors as tclab
from grader.course.regrade import Regrade

c = get_config()  # noqa: F821 - defined by traitlets when it loads this file
HERE = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = {course_id!r}
# The exchange: TCLAB_EXCHANGE where set (on the course's JupyterHub, deploy/hub, every
# server has it: /srv/nbgrader/exchange), else a folder inside the course.
c.Exchange.root = os.environ.get("TCLAB_EXCHANGE") or os.path.join(HERE, "exchange")

c.GenerateAssignment.preprocessors = [
    IncludeHeaderFooter,
    LockCells,
    tclab.StripSolutions,  # instead of ClearSolutions: C-aware
    ClearOutput,
    CheckCellMetadata,
    ComputeChecksums,
    SaveCells,  # the gradebook keeps the grade cells WITH their hidden tests
    tclab.StripHiddenTests,  # instead of ClearHiddenTests, at its place: after SaveCells
    ClearMarkScheme,
    tclab.CleanMetadata,  # no jupytext or editor metadata in a release
    ComputeChecksums,
    CheckCellMetadata,
]

c.Autograde.sanitize_preprocessors = [
    ClearOutput,
    DeduplicateIds,
    OverwriteKernelspec,
    tclab.DropTags,  # closes skip-execution (and any other tag) whatever its name
    tclab.RestoreCells,  # nbgrader's OverwriteCells, adding back (and failing) deleted cells
    CheckCellMetadata,
]
c.Autograde.autograde_preprocessors = [
    tclab.GuardedExecute,  # runs the student's cells, not the grade cells, without the secret
    LimitOutput,
    Regrade,  # every grade cell's output (so its score) from the out-of-kernel checks
    SaveAutoGrades,
    AssignLatePenalties,
    CheckCellMetadata,
]
c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, tclab.StripHiddenTests]

# Tags are dropped from submissions anyway; a secret name is the second lock.
c.Execute.skip_cells_with_tag = {skip_tag!r}
c.Execute.timeout = 120  # seconds per cell: nbgrader's 30 is short for Triton's interpreter

# The grading secret mixes into every input seed. TCLAB_SECRET_SEED in the environment wins;
# the kernel that runs the student's cells and the check subprocesses never see either.
c.Regrade.secret_file = os.path.join(HERE, {state!r}, {secret!r})
# Each submission's verdicts, as JSON, for `tclab course autograde`'s results file.
c.Regrade.verdict_dir = os.path.join(HERE, {state!r}, "verdicts")
'''


class BuildError(ValueError):
    pass


def _state(root: Path, name: str, make) -> str:
    """A course secret: read if this course already has one, made (mode 0600) otherwise."""
    path = root / STATE / name
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = make()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")
    return value


def course_notebook(lab: Lab):
    """The instructor notebook with stable cell ids, so two builds write the same file."""
    nb = release.source_notebook(lab)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"{lab.id}-{i:02d}"
    return nb


def _check_source_dir(folder: Path, lab: Lab) -> None:
    extra = sorted(p.name for p in folder.iterdir()
                   if p.name != f"{lab.id}.ipynb" and p.name not in NBGRADER_IGNORES)
    if extra:
        raise BuildError(
            f"{folder}: {', '.join(extra)} beside the notebook would be copied into every "
            "student's release by `nbgrader generate_assignment`; move it out of source/")


def build(root: Path, labs: list[Lab] | None = None, course_id: str = COURSE_ID) -> list[Path]:
    """Write (or refresh) the course; returns the files written."""
    root = Path(root).resolve()
    labs = labs if labs is not None else list(manifest.registry().values())
    root.mkdir(parents=True, exist_ok=True)
    _state(root, SECRET_FILE, lambda: secrets.token_hex(32))
    skip_tag = _state(root, SKIP_TAG_FILE, lambda: f"tclab-skip-{secrets.token_hex(16)}")
    (root / STATE / COURSE_ID_FILE).write_text(course_id + "\n")
    config = root / "nbgrader_config.py"
    config.write_text(CONFIG.format(root_hint=root.name, course_id=course_id, skip_tag=skip_tag,
                                    state=STATE, secret=SECRET_FILE))
    written = [config]
    for lab in labs:
        folder = root / "source" / lab.id
        folder.mkdir(parents=True, exist_ok=True)
        _check_source_dir(folder, lab)
        path = folder / f"{lab.id}.ipynb"
        path.write_text(nbformat.writes(course_notebook(lab)) + "\n")
        written.append(path)
    return written
