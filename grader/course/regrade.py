"""The out-of-kernel regrade: every grade cell's output, and so its score, from the runner.

nbgrader scores a grade cell by what its execution printed: no error means full points, which
a notebook can arrange for itself (skip the cell, blank it with an input transformer, patch the
checker). Here the solution cells are read from the notebook JSON and every registered check
runs through `grader.grading.grade_impl`, in subprocesses that never share a process with the
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
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Float, Unicode

from grader import check, grading, manifest, submission
from grader import device as dev
from grader.course.preprocessors import RESTORED, is_test_cell

MAX_DETAIL_LINES = 30


class RegradeError(RuntimeError):
    pass


@contextmanager
def secret_in_env(value: str):
    """The secret in this process's environment only while the checks run.

    The runner takes it from here to draw inputs and strips it from the student's subprocess;
    the kernel nbgrader started for the notebook has already been shut down.
    """
    old = os.environ.get(check.SECRET_ENV)
    os.environ[check.SECRET_ENV] = value
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(check.SECRET_ENV, None)
        else:
            os.environ[check.SECRET_ENV] = old


def _missing(lab, impl: str, device: str, reason: str) -> dict:
    return {"lab": lab.id, "impl": impl, "device": device, "correct": False, "status": "missing",
            "reason": reason, "checks": [], "passed": 0, "total": 0,
            "perf": {"status": "skipped", "reason": "skipped: not correct"}}


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


def correctness_outputs(result: dict, points: float) -> list:
    who = f"{result['lab']} {result['impl']}"
    if result["correct"]:
        suites = ", ".join(f"{c['suite']} {c['passed']}/{c['total']}" if "total" in c
                           else f"{c['suite']} {c['status']}" for c in result["checks"])
        return [stdout(f"{who}: {result['reason']} ({suites}; {result['device']}; "
                       f"checked outside your notebook): {points:g} of {points:g} points")]
    details = next((c.get("details", "") for c in result["checks"]
                    if c["status"] != "pass"), "")
    return [failure("CheckFailed", f"{who}: {result['reason']}", details or "")]


def perf_score(perf: dict, points: float) -> float:
    if perf.get("status") in ("pass", "fail") and "ratio" in perf:
        zero = perf.get("zero_below", 0.75 * perf["bar"])
        share = (perf["ratio"] - zero) / (perf["bar"] - zero)
        return round(points * max(0.0, min(1.0, share)), 2)
    return 0.0


def perf_outputs(result: dict, points: float) -> list:
    who = f"{result['lab']} {result['impl']} performance"
    perf = result.get("perf", {"status": "skipped", "reason": "skipped: not measured"})
    if perf["status"] == "skipped":
        return [stdout(f"{who}: {perf['reason']}: 0 of {points:g} points"), number(0.0)]
    if perf["status"] not in ("pass", "fail") or "ratio" not in perf:
        return [failure("PerfFailed", f"{who}: {perf['status']}: {perf['reason']}")]
    lines = [f"{who} on {perf.get('device', {}).get('gpu', 'the GPU')}:"]
    for row in perf.get("rows", []):
        lines.append(
            f"  [{', '.join(f'{k}={v}' for k, v in row['shape'].items())}] "
            f"{row['gbps']:.0f} GB/s, {row['roof_pct']:.0f}% of the {perf['roof_gbps']:.0f} GB/s "
            f"copy roof; {row['ratio']:.2f}x the reference ({row['student_ms']:.3f} ms vs "
            f"{row['reference_ms']:.3f} ms){' (re-measured)' if row.get('remeasured') else ''}")
    score = perf_score(perf, points)
    verdict = "at or above" if perf["status"] == "pass" else "below"
    lines.append(f"  worst ratio {perf['ratio']:.2f}x, {verdict} the bar {perf['bar']:.2f}x: "
                 f"{score:g} of {points:g} points")
    outputs = [stdout("\n".join(lines))]
    plot = perf.get("plot")
    if plot and Path(plot).exists():
        png = base64.b64encode(Path(plot).read_bytes()).decode()
        outputs.append(new_output("display_data", data={"image/png": png}, metadata={}))
    return outputs + [number(score)]


def cell_outputs(lab, cell, results: dict[str, dict]) -> list:
    meta = cell.metadata["nbgrader"]
    grade_id, points = meta["grade_id"], float(meta["points"])
    if cell.metadata.get(RESTORED, {}).get("restored"):
        return [failure("DeletedTestCell",
                        f"test cell {grade_id} was deleted from the submission, or its nbgrader "
                        "metadata was changed; the grader put it back and it scores 0. Keep "
                        "every test cell as released (copy it from the released notebook if "
                        "you deleted it by mistake).")]
    kind, _, impl = grade_id.partition("_")
    if impl in results and kind == "test":
        return correctness_outputs(results[impl], points)
    if impl in results and kind == "perf":
        return perf_outputs(results[impl], points)
    return [failure("NoCheck", f"no out-of-kernel check grades cell {grade_id!r} of {lab.id}: "
                    f"grade cells must be test_<impl> or perf_<impl> ({', '.join(lab.impls)})")]


class Regrade(NbGraderPreprocessor):
    """Grade cells get the verdicts of checks run outside the notebook (see module doc)."""

    secret_file = Unicode(
        "", help="file holding the grading secret (TCLAB_SECRET_SEED in the environment wins)"
    ).tag(config=True)
    timeout = Float(0.0, help="seconds per check; 0 keeps the runner's default").tag(config=True)

    def secret(self) -> str:
        if os.environ.get(check.SECRET_ENV):
            return os.environ[check.SECRET_ENV]
        if not self.secret_file:
            raise RegradeError("no grading secret: set Regrade.secret_file (tclab course build "
                               f"does) or {check.SECRET_ENV}")
        path = Path(self.secret_file)
        if not path.exists():
            raise RegradeError(f"{path}: the course's grading secret is missing; restore it "
                               "from a backup (rebuilding makes a new one)")
        return path.read_text().strip()

    def grade(self, lab, nb, device: str, plot_dir: Path) -> dict[str, dict]:
        results = {}
        with secret_in_env(self.secret()):
            for impl, spec in lab.impls.items():
                try:
                    sources = submission.cell_sources(nb, spec.cells, where=lab.id)
                except submission.SubmissionError as exc:
                    results[impl] = _missing(lab, impl, device, str(exc))
                    continue
                results[impl] = grading.grade_impl(lab, impl, sources, device,
                                                   timeout=self.timeout or None,
                                                   plot_dir=plot_dir)
                self.log.info("regrade %s %s: %s; perf %s", lab.id, impl,
                              results[impl]["reason"], results[impl]["perf"]["reason"])
        return results

    def preprocess(self, nb, resources):
        notebook_id = resources["nbgrader"]["notebook"]
        try:
            lab = manifest.get(notebook_id)
        except manifest.ManifestError as exc:
            raise RegradeError(f"notebook {notebook_id}: not a lab of this project ({exc})") \
                from None
        device = dev.resolve()
        with tempfile.TemporaryDirectory(prefix="tclab-regrade-") as tmp:
            results = self.grade(lab, nb, device, Path(tmp))
            for cell in nb.cells:
                if is_test_cell(cell):
                    cell.outputs = cell_outputs(lab, cell, results)
                    cell.execution_count = None
        return nb, resources
