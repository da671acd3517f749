"""nbgrader preprocessors for our two languages and our threat model.

Release side (`nbgrader generate_assignment`): StripSolutions, StripHiddenTests, CleanMetadata.
Submission side (`nbgrader autograde`): DropTags and RestoreCells sanitise, GuardedExecute
runs the student's cells. The scores themselves come from `grader.course.regrade.Regrade`;
ImportStaged brings a grading task's outputs into the one process that writes the gradebook.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
from nbgrader import utils
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Unicode, default

from grader.backends import device as dev
from grader.lab import cases, release

# Cell metadata a release keeps; anything else (jupytext, editor state) is dropped.
RELEASE_CELL_METADATA = ("nbgrader", "editable", "deletable", "tags")
RELEASE_NB_METADATA = ("kernelspec", "language_info")
RESTORED = "tclab"  # cell metadata key set by RestoreCells on a grade cell it had to add back
WALL = "tclab_wall"  # resources key: seconds of wall time per step of one submission


def is_test_cell(cell) -> bool:
    """An autograded code cell: graded, not a written answer."""
    return cell.cell_type == "code" and utils.is_grade(cell) and not utils.is_solution(cell)


def _grade_id(cell) -> str | None:
    # Plain dict access: cells nbgrader adds back carry plain dicts, not NotebookNodes.
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def where(resources, cell) -> str:
    nb = resources.get("nbgrader", {}).get("notebook", "notebook")
    return f"{nb} cell {cell.metadata.get('nbgrader', {}).get('grade_id', '?')}"


class StripSolutions(NbGraderPreprocessor):
    """ClearSolutions for Python AND the CUDA C inside its strings.

    nbgrader's ClearSolutions would write `raise NotImplementedError()` into the C source, which
    then fails to compile; `grader.lab.release.strip_solutions` writes `// YOUR CODE HERE` there.
    A marker outside a solution or grade cell is an error, never a silent leak.
    """

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        if utils.is_solution(cell):
            cell.source = release.strip_solutions(cell.source, where(resources, cell))
        markers = [release.PY_BEGIN, release.C_BEGIN]
        if not utils.is_grade(cell):
            markers.append(release.HIDDEN_BEGIN)
        for marker in markers:
            if marker in cell.source:
                raise release.ReleaseError(
                    f"{where(resources, cell)}: {marker!r} outside a solution/grade cell "
                    "would reach the release: mark the cell in labs/, or remove the marker")
        return cell, resources


class StripHiddenTests(NbGraderPreprocessor):
    """ClearHiddenTests with our markers; also in feedback, which nbgrader shows them in."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type == "code" and release.HIDDEN_BEGIN in cell.source:
            try:
                cell.source = release.strip_hidden(cell.source, where(resources, cell))
            except release.ReleaseError:
                # Unbalanced markers (an edited submission): show nothing after the first one.
                cell.source = cell.source.split(release.HIDDEN_BEGIN)[0].rstrip()
        return cell, resources


class CleanMetadata(NbGraderPreprocessor):
    """Keep only the metadata a release needs: no jupytext, no editor state, no stray keys."""

    def preprocess(self, nb, resources):
        nb.metadata = {k: v for k, v in nb.metadata.items() if k in RELEASE_NB_METADATA}
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, index):
        cell.metadata = {k: v for k, v in cell.metadata.items() if k in RELEASE_CELL_METADATA}
        return cell, resources


class DropTags(NbGraderPreprocessor):
    """Tags steer execution (`skip-execution`, `raises-exception`): a submission keeps none.

    Also drops our own RESTORED marker, so only RestoreCells can set it.
    """

    def preprocess_cell(self, cell, resources, index):
        cell.metadata.pop("tags", None)
        cell.metadata.pop(RESTORED, None)
        return cell, resources


class RestoreCells(OverwriteCells):
    """nbgrader's OverwriteCells with deleted grade cells added back, marked, and failed later.

    OverwriteCells already restores locked sources, types and points; it does not restore a
    cell's grade/solution flags, so a grade cell turned into a solution cell would escape
    grading. Here every known cell gets its role back from the gradebook, and a grade cell
    that was not one in the submission (deleted, or relabelled) is marked to score 0.
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self.add_missing_cells = True  # not a choice: a deleted test must not mean no test

    def preprocess(self, nb, resources):
        self._role_cache = None
        present = {_grade_id(cell) for cell in nb.cells if utils.is_grade(cell)}
        nb, resources = super().preprocess(nb, resources)
        for cell in nb.cells:
            if utils.is_grade(cell) and _grade_id(cell) not in present:
                cell.metadata[RESTORED] = {"restored": True}
                self.log.warning("grade cell %s was missing or relabelled: restored, and "
                                 "scores 0", _grade_id(cell))
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        # Roles first: OverwriteCells looks up a cell that claims to be graded as a graded
        # cell, and a solution cell relabelled as graded would crash it (MissingEntry).
        grade_id = _grade_id(cell)
        if grade_id is not None and grade_id in self._roles():
            meta = cell.metadata["nbgrader"]
            meta["grade"], meta["solution"] = self._roles()[grade_id]
            if meta["grade"]:
                meta["points"] = self._max_score(grade_id)
            else:
                meta.pop("points", None)
        return super().preprocess_cell(cell, resources, index)

    def _roles(self) -> dict[str, tuple[bool, bool]]:
        if getattr(self, "_role_cache", None) is None:
            source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            grades = {c.name for c in source_nb.grade_cells}
            solutions = {c.name for c in source_nb.solution_cells}
            self._role_cache = {n: (n in grades, n in solutions) for n in grades | solutions}
        return self._role_cache

    def _max_score(self, grade_id: str) -> float:
        return float(self.gradebook.find_graded_cell(grade_id, self.notebook_id,
                                                     self.assignment_id).max_score)


def kernel_env() -> dict:
    """The student's kernel: this environment without the grading secret, with the device
    the grader uses (and Triton's interpreter chosen before any kernel is defined, on a CPU)."""
    env = {k: v for k, v in os.environ.items() if k != cases.SECRET_ENV}
    env["TCLAB_DEVICE"] = dev.resolve()  # as the regrade reads it
    if env["TCLAB_DEVICE"] == "cpu":
        env["TRITON_INTERPRET"] = "1"
    return env


class GuardedExecute(Execute):
    """nbgrader's Execute, closed against what a submission could do to it.

    - grade cells are not run in the student's kernel: Regrade writes their outputs from
      checks run elsewhere, so running them here would only give a submission a place to act;
    - the kernel starts without the grading secret, with the device the grader uses, inside
      the sandbox (`grader.course.kernel`): it sees no course directory, no gradebook, no
      exchange, no other student's work, only an empty scratch folder of its own;
    - a kernel that dies or hangs ends execution, not the grading of this submission;
    - the kernel is killed once its cells have run, not asked to exit: a graceful shutdown
      took 2.8 s of a 4.7 s lab01 execution on the 2-core development machine, and a
      submission's timed checks wait for the kernel to be gone.
    """

    @default("shutdown_kernel")
    def _kill_when_done(self):
        return "immediate"

    def preprocess(self, nb, resources=None, km=None):
        started = time.monotonic()
        try:
            return super().preprocess(nb, resources, km)
        except Exception as exc:  # noqa: BLE001 - the student's kernel, whatever it did
            self.log.warning("execution stopped: %s: %s (grading goes on: the scores come "
                             "from the regrade)", type(exc).__name__, exc)
            return nb, resources
        finally:
            if resources is not None:
                resources.setdefault(WALL, {})["execute"] = \
                    round(time.monotonic() - started, 2)

    # The kernel's environment is given, not this process's mutated: the regrade may be
    # running checks in other threads meanwhile. (nbclient's sync start_new_kernel wraps its
    # own async one, so both are overridden.)
    def start_new_kernel(self, **kwargs):
        return super().start_new_kernel(**{**kwargs, "env": kernel_env()})

    async def async_start_new_kernel(self, **kwargs):
        return await super().async_start_new_kernel(**{**kwargs, "env": kernel_env()})

    def create_kernel_manager(self):
        """The kernel starts inside the sandbox (`grader.course.kernel`)."""
        from grader.course.kernel import manager_for

        self.kernel_manager_class = manager_for(dev.resolve())
        return super().create_kernel_manager()

    def preprocess_cell(self, cell, resources, index):
        if is_test_cell(cell):
            cell.outputs, cell.execution_count = [], None
            return cell, resources
        return super().preprocess_cell(cell, resources, index)


class ImportStaged(NbGraderPreprocessor):
    """Every code cell's outputs from the notebook a grading task staged
    (`grader.course.task`), in place of executing and regrading here: `autograde.finish()`
    writes the gradebook from them. The staged notebook must hold these very cells."""

    staged_dir = Unicode("", help="the tasks' autograded directory").tag(config=True)

    def preprocess(self, nb, resources):
        meta = resources["nbgrader"]
        path = (Path(self.staged_dir) / meta["student"] / meta["assignment"] /
                f"{meta['notebook']}.ipynb")
        if not path.exists():
            raise ValueError(f"{path}: no graded notebook staged for {meta['student']}")
        staged = nbformat.read(path, as_version=nbformat.NO_CONVERT)
        if [(c.cell_type, c.source) for c in staged.cells] != \
                [(c.cell_type, c.source) for c in nb.cells]:
            raise ValueError(f"{path} does not hold the cells of {meta['student']}'s "
                             "submission (handed in again since?): autograde it again")
        for mine, graded in zip(nb.cells, staged.cells):
            if mine.cell_type == "code":
                mine.outputs, mine.execution_count = graded.outputs, graded.execution_count
        return nb, resources
