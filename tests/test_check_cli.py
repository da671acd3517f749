"""`tclab check` grades a run of labs as one pipeline: each lab's notebook is read once, its
parts graded in the per-implementation lanes, and on a GPU every timed check runs alone, after
every untimed check of the run.

The checks themselves are stood in for (`grading.untimed`, `grading.timed`): what is pinned
here is how the run is put together, not any verdict (the corpus tests decide those).
"""

from __future__ import annotations

import collections
import json
import threading
import time

import pytest

from grader import cli
from grader.judge.verdict import Grade, Verdict
from grader.lab import manifest, submission
from grader.pipeline import grading

LABS = ("lab01", "lab03")  # one exercise, then five: two impls each


def _passing(ex, impl, sources, device, *args, **kw) -> Grade:
    """`grading.untimed` without a worker: one correct case."""
    grade = Grade(ex.lab_id, ex.key, impl, device)
    grade.checks.append(Verdict("correctness", "pass", "1/1 shapes correct", ex.key, impl,
                                ex.dtypes[0], device, passed=1, total=1, seconds=0.0))
    return grade


@pytest.fixture
def no_workers(monkeypatch):
    """No worker server (their start-up is seconds) and no check run: `_passing` for each."""
    monkeypatch.setenv("TCLAB_SERVE", "0")
    monkeypatch.setattr(grading, "untimed", _passing)


def test_check_reads_each_notebook_once_per_run(no_workers, monkeypatch, tmp_path, capsys):
    """Each lab's notebook is read once per run, however many exercises and implementations it
    has (lab03: five exercises in two implementations)."""
    reads = collections.Counter()
    read = submission.read_notebook

    def counted(path):
        reads[str(path)] += 1
        return read(path)

    monkeypatch.setattr(submission, "read_notebook", counted)
    results = tmp_path / "results.json"
    code = cli.main(["check", *LABS, "--submission", "solutions", "--device", "cpu",
                     "--results", str(results), "--plots", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    labs = [manifest.get(lab) for lab in LABS]
    assert reads == {str(lab.source): 1 for lab in labs}, reads

    # The rows stay in lab, exercise, impl order, whichever lane finished first.
    want = [(lab.id, ex.key, impl) for lab in labs for ex in lab.exercises for impl in ex.impls]
    rows = [(g["lab"], g["exercise"], g["impl"])
            for g in json.loads(results.read_text())["results"]]
    assert rows == want, rows
    # Not a terminal: one progress line per finished part.
    progress = [line for line in out.splitlines() if line.startswith("[")]
    assert len(progress) == len(want), out
    assert progress[-1].startswith(f"[{len(want)}/{len(want)}] "), progress


def test_a_missing_notebook_is_one_verdict_per_part(no_workers, tmp_path, capsys):
    """A folder without the lab's notebook: each exercise and implementation says so."""
    results = tmp_path / "results.json"
    assert cli.main(["check", "lab03", "--submission", str(tmp_path), "--device", "cpu",
                     "--results", str(results), "--plots", str(tmp_path)]) == 1
    lab = manifest.get("lab03")
    grades = json.loads(results.read_text())["results"]
    assert [(g["exercise"], g["impl"]) for g in grades] == \
        [(ex.key, impl) for ex in lab.exercises for impl in ex.impls]
    assert {g["status"] for g in grades} == {"unreadable"}, grades
    assert "Traceback" not in capsys.readouterr().out


def test_on_a_gpu_every_timed_check_runs_alone_after_every_untimed_one(no_workers, monkeypatch):
    """Two labs' parts: the untimed checks side by side (their lanes), then each perf check
    with nothing else of the run beside it; a part is reported once its perf check is done."""
    spans: dict[str, list[tuple[float, float]]] = {"untimed": [], "timed": []}
    lock = threading.Lock()
    running = []

    def untimed(ex, impl, sources, device, *args, **kw):
        begun = time.monotonic()
        time.sleep(0.01)  # so that lanes overlap, if they can
        grade = _passing(ex, impl, sources, device)
        with lock:
            spans["untimed"].append((begun, time.monotonic()))
        return grade

    def timed(grade, ex, sources, *args, **kw):
        begun = time.monotonic()
        with lock:
            running.append(grade)
            alone = len(running) == 1
        time.sleep(0.01)
        with lock:
            running.remove(grade)
            spans["timed"].append((begun, time.monotonic()))
        assert alone, "a timed check ran beside another"
        return grade

    monkeypatch.setattr(grading, "untimed", untimed)
    monkeypatch.setattr(grading, "timed", timed)
    parts = [part for lab in LABS
             for part in grading.plan_submission(manifest.get(lab), "solutions", "gpu")]
    reported = []
    grades = grading.grade_parts(parts, "gpu",
                                 on_done=lambda g, seconds: reported.append(g.exercise))
    assert len(spans["untimed"]) == len(spans["timed"]) == len(parts), spans
    last_untimed = max(end for _, end in spans["untimed"])
    first_timed = min(begun for begun, _ in spans["timed"])
    assert last_untimed <= first_timed, "a timed check began before every untimed one ended"
    assert [(g.exercise, g.impl) for g in grades] == [(ex.key, impl) for ex, impl, _ in parts]
    assert reported == [ex.key for ex, _, _ in parts]  # each once its timed check is done
