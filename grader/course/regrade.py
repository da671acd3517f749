"""The out-of-kernel regrade: every grade cell's output, and so its score, from the runner.

nbgrader scores a grade cell by what its execution printed: no error means full points, which
a notebook can arrange for itself (skip the cell, blank it with an input transformer, patch the
checker). Here the solution cells are read from the notebook JSON and every registered check
runs through `pipeline.grading.grade_impl`, in subprocesses that never share a process with the
student's kernel. The outputs written into the grade cells are the verdicts:

    test_<impl>  all points (a stdout line) or an error output with the one-line reason
    perf_<impl>  a number in [0, points] (nbgrader's partial credit): all points at the lab's
                 bar, none at or below `zero_below`, linear in between; with
                 GB/s, % of the copy roof and the ratio printed; 0 without a GPU

The outputs never hold the hidden tests' source: only verdicts, numbers and the student's
own tracebacks.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import time
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Unicode

from grader.backends import device as dev
from grader.course.preprocessors import RESTORED, WALL, is_test_cell
from grader.execution import runner
from grader.judge import perf, report
from grader.judge.verdict import Grade
from grader.lab import cases, manifest
from grader.pipeline import grading

MAX_DETAIL_LINES = 30
# (lab id, student) -> a Future of `grading.untimed_many()`'s results, started by
# `grader.course.task` before nbgrader executes the notebook: the untimed checks run beside it.
AHEAD: dict = {}


class RegradeError(RuntimeError):
    pass


def stdout(text: str):
    return new_output("stream", name="stdout", text=text if text.endswith("\n") else text + "\n")


def failure(ename: str, reason: str, details: str = ""):
    lines = [f"{ename}: {reason}"]
    if details and details.strip() != reason.strip():
        lines += ["", *details.rstrip().splitlines()[-MAX_DETAIL_LINES:]]
    return new_output("error", ename=ename, evalue=reason, traceback=lines)


def number(score: float):
    return new_output("execute_result", data={"text/plain": repr(float(score))},
                      metadata={}, execution_count=None)


def correctness_outputs(grade: Grade, points: float) -> list:
    who = f"{grade.exercise} {grade.impl}"
    if grade.correct:
        checks = ", ".join(f"{v.dtype} {v.passed}/{v.total}" if v.check == "correctness"
                           else f"{v.check} {v.status}" for v in grade.checks)
        return [stdout(f"{who}: {grade.reason} ({checks}; {grade.device}; checked outside "
                       f"your notebook): {points:g} of {points:g} points")]
    bad = grade.first_failure
    return [failure("CheckFailed", f"{who}: {grade.reason}", bad.details if bad else "")]


def perf_outputs(grade: Grade, points: float) -> list:
    """Each benchmarked dtype's rows; the score is the worst dtype's partial credit."""
    who = f"{grade.exercise} {grade.impl} performance"
    worst = grade.worst_perf
    if worst is None or worst.status == "skipped":
        reason = worst.reason if worst else "skipped: not measured"
        return [stdout(f"{who}: {reason}: 0 of {points:g} points"), number(0.0)]
    if "ratio" not in worst.perf:
        return [failure("PerfFailed", f"{who}: {worst.status}: {worst.reason}")]
    lines = [f"{who} on {worst.perf.get('gpu', {}).get('gpu', 'the GPU')}:"]
    ex = manifest.exercise(grade.exercise)
    for v in grade.perf:
        again = bool(v.perf.get("remeasured"))
        lines += ["  " + report.row_line(ex, row, v.dtype, v.perf["roof_gbps"], remeasured=again)
                  for row in v.perf.get("rows", [])]
    score = perf.score(worst, points)
    verdict = "at or above" if worst.status == "pass" else "below"
    lines.append(f"  worst ratio {worst.perf['ratio']:.2f}x ({worst.dtype}), {verdict} the bar "
                 f"{worst.perf['bar']:.2f}x: {score:g} of {points:g} points")
    advice = report.advice(grade.perf)
    if advice:
        lines.append(f"  {report.profile_note(advice)}")
    outputs = [stdout("\n".join(lines))]
    plot = next((v.perf.get("plot") for v in grade.perf if v.perf.get("plot")), None)
    if plot and Path(plot).exists():
        png = base64.b64encode(Path(plot).read_bytes()).decode()
        outputs.append(new_output("display_data", data={"image/png": png}, metadata={}))
    return outputs + [number(score)]


def cell_outputs(lab, cell, grades: dict[tuple[str, str], Grade]) -> list:
    meta = cell.metadata["nbgrader"]
    grade_id, points = meta["grade_id"], float(meta["points"])
    if cell.metadata.get(RESTORED, {}).get("restored"):
        return [failure("DeletedTestCell",
                        f"test cell {grade_id} was deleted from the submission, or its nbgrader "
                        "metadata was changed; the grader put it back and it scores 0. Keep "
                        "every test cell as released (copy it from the released notebook if "
                        "you deleted it by mistake).")]
    known = lab.grade_cells()
    if grade_id not in known:
        return [failure("NoCheck", f"no out-of-kernel check grades cell {grade_id!r} of "
                        f"{lab.id} (its grade cells: {', '.join(known)})")]
    ex, kind, impl = known[grade_id]
    grade = grades[(ex.key, impl)]
    if kind == "test":
        return correctness_outputs(grade, points)
    return perf_outputs(grade, points)


class Regrade(NbGraderPreprocessor):
    """Grade cells get the verdicts of checks run outside the notebook (see module doc)."""

    secret_file = Unicode(
        "", help="file holding the grading secret (TCLAB_SECRET_SEED in the environment wins)"
    ).tag(config=True)
    timeout = Float(0.0, help="seconds per check; 0 keeps the runner's default").tag(config=True)
    verdict_dir = Unicode(
        "", help="folder for each submission's verdicts (VERDICT_DIR/LAB/STUDENT.json)"
    ).tag(config=True)

    def secret(self) -> str:
        if os.environ.get(cases.SECRET_ENV):
            return os.environ[cases.SECRET_ENV]
        if not self.secret_file:
            raise RegradeError("no grading secret: set Regrade.secret_file (tclab course build "
                               f"does) or {cases.SECRET_ENV}")
        path = Path(self.secret_file)
        if not path.exists():
            raise RegradeError(f"{path}: the course's grading secret is missing; restore it "
                               "from a backup (rebuilding makes a new one)")
        return path.read_text().strip()

    def grade(self, lab, nb, device: str, plot_dir: Path,
              ahead=None) -> dict[tuple[str, str], Grade]:
        """Every part's grade; `ahead` holds untimed results computed beside the notebook's
        execution (`tclab course autograde`), used where their sources are these."""
        parts = grading.plan(lab, nb, lab.id, device)
        with cases.using_secret(self.secret()), runner.session():  # one worker server
            grades = grading.grade_parts(parts, device, timeout=self.timeout or None,
                                         plot_dir=plot_dir, ahead=ahead)
        for grade in grades:
            self.log.info("regrade %s %s: %s", grade.exercise, grade.impl, grade.reason)
        return {(g.exercise, g.impl): g for g in grades}

    def save(self, lab, resources, grades: dict) -> None:
        """VERDICT_DIR/LAB/STUDENT.json: the grades, and where the submission's time went."""
        student = resources["nbgrader"].get("student")
        if not self.verdict_dir or not student:
            return
        path = Path(self.verdict_dir) / lab.id / f"{student}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"grades": [g.to_dict() for g in grades.values()],
                                    "wall": resources.get(WALL, {})}, indent=1))

    def preprocess(self, nb, resources):
        notebook_id = resources["nbgrader"]["notebook"]
        try:
            lab = manifest.get(notebook_id)
        except manifest.ManifestError as exc:
            raise RegradeError(f"notebook {notebook_id}: not a lab of this project ({exc})") \
                from None
        device = dev.resolve()
        wall = resources.setdefault(WALL, {})
        started = time.monotonic()
        early = AHEAD.pop((lab.id, resources["nbgrader"].get("student")), None)
        try:
            ahead = early.result() if early is not None else None
        except Exception as exc:  # noqa: BLE001 - then every check runs here, in turn
            self.log.warning("the untimed checks run beside the notebook failed (%s: %s): "
                             "running them again", type(exc).__name__, exc)
            ahead = None
        wall["wait_for_untimed"] = round(time.monotonic() - started, 2)
        with tempfile.TemporaryDirectory(prefix="tclab-regrade-") as tmp:
            results = self.grade(lab, nb, device, Path(tmp), ahead)
            wall["regrade"] = round(time.monotonic() - started, 2)
            self.save(lab, resources, results)
            for cell in nb.cells:
                if is_test_cell(cell):
                    cell.outputs = cell_outputs(lab, cell, results)
                    cell.execution_count = None
        return nb, resources
