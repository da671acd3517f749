"""The nbgrader course, end to end on the CPU: build, release, leak check, autograde.

One course is built per session; fake students (tests/course_cases/students.py) are
autograded through `tclab course autograde` (lab01, a process per submission) and through
plain `nbgrader autograde` (lab07, every student in one call), and every assertion reads
nbgrader's own gradebook. Perf cells score 0 without a GPU; their partial credit is checked
on synthetic verdicts (`test_perf_partial_credit`).
"""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from course_cases import students  # tests/ is on sys.path under pytest
from course_cases.course import (
    LABS,
    SECRET,
    assert_snooper_found_nothing,
    autograded,
    copy_course,
    gradebook_scores,
    nbgrader,
    release_path,
)

from grader import cli
from grader.course import autograde, build, preprocessors, regrade
from grader.lab import manifest, release, submission

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course")]  # one course

# Test ids name the op, not the lab id: `pytest -k lab01` is the student's command.
OPS = [lab_id[6:] for lab_id in LABS]


def test_build_writes_notebooks_config_and_secrets_only(course):
    for lab_id in LABS:
        assert sorted(p.name for p in (course / "source" / lab_id).iterdir()) == \
            [f"{lab_id}.ipynb"], "nbgrader copies anything beside a source notebook"
    config = (course / "nbgrader_config.py").read_text()
    skip_tag = (course / build.STATE / build.SKIP_TAG_FILE).read_text().strip()
    assert f"c.Execute.skip_cells_with_tag = {skip_tag!r}" in config
    assert skip_tag != "skip-execution" and len(skip_tag) > 24
    for name in (build.SECRET_FILE, build.SKIP_TAG_FILE):
        mode = stat.S_IMODE((course / build.STATE / name).stat().st_mode)
        assert mode == 0o600, f"{name} is readable by others: {oct(mode)}"


def test_rebuild_keeps_secrets_and_refuses_extra_files(course, tmp_path):
    root = tmp_path / "again"
    shutil.copytree(course / build.STATE, root / build.STATE)
    build.build(root, [manifest.get("lab01")])
    assert (root / build.STATE / build.SECRET_FILE).read_text() == \
        (course / build.STATE / build.SECRET_FILE).read_text()
    (root / "source" / students.LAB01 / "vector_add.cu").write_text("// a reference\n")
    with pytest.raises(build.BuildError, match="vector_add.cu.*copied into every student"):
        build.build(root, [manifest.get("lab01")])


@pytest.mark.parametrize("lab_id", LABS, ids=OPS)
def test_nbgrader_release_is_the_exercise(course, lab_id):
    """Our stripping inside nbgrader writes exactly what `tclab release` writes (C stub too)."""
    got = nbformat.read(release_path(course, lab_id), as_version=4)
    want = nbformat.read(manifest.get(lab_id).exercise_path, as_version=4)
    assert [c.source for c in got.cells] == [c.source for c in want.cells]
    assert set(got.metadata) <= set(preprocessors.RELEASE_NB_METADATA)


def test_leakcheck_passes_a_clean_release(course, capsys):
    assert cli.main(["course", "leakcheck", str(course)]) == 0
    assert "release clean: 2 file(s)" in capsys.readouterr().out


def _plant_solution_line(root: Path) -> str:
    path = release_path(root, students.LAB01)
    nb = nbformat.read(path, as_version=4)
    lab = manifest.get(students.LAB01)
    gid = lab.exercise().impls["triton"].cells[0]
    cell = next(c for c in nb.cells if submission.grade_id(c) == gid)
    solution_line = "tl.store(out_ptr + offs, (x + y).to(out_ptr.dtype.element_ty), mask=mask)"
    cell.source = cell.source.replace("raise NotImplementedError()", solution_line)
    nbformat.write(nb, path)
    return path, "solution line of labs/lab01_vector_add/lab01_vector_add.py"


def _plant_reference_file(root: Path) -> str:
    ref = next((manifest.get(students.LAB01).reference_dir).glob("*.cu"))
    shutil.copy(ref, root / "release" / students.LAB01 / ref.name)
    return root / "release" / students.LAB01 / ref.name, "not a release notebook"


def _plant_hidden_test(root: Path) -> str:
    path = release_path(root, students.LAB07)
    text = path.read_text().replace('check(LAB, \\"triton\\", softmax_triton)',
                                    'check(LAB, \\"triton\\", softmax_triton, suite=\\"hidden\\")')
    assert text != path.read_text(), "the planted call did not land: did the lab change?"
    path.write_text(text)
    return path, "hidden-test call"


def _plant_secret(root: Path) -> str:
    path = release_path(root, students.LAB07)
    nb = nbformat.read(path, as_version=4)
    tag = (root / build.STATE / build.SKIP_TAG_FILE).read_text().strip()
    nb.cells[0].source += f"\n<!-- {tag} -->"
    nbformat.write(nb, path)
    return path, "this course's skip tag"


@pytest.mark.parametrize("plant", [_plant_solution_line, _plant_reference_file,
                                   _plant_hidden_test, _plant_secret],
                         ids=lambda f: f.__name__.removeprefix("_plant_"))
def test_leakcheck_fails_a_planted_leak(course, tmp_path, plant, capsys):
    root = tmp_path / "course"
    shutil.copytree(course / "release", root / "release")
    shutil.copytree(course / build.STATE, root / build.STATE)
    path, what = plant(root)
    assert cli.main(["course", "leakcheck", str(root)]) == 1, "a planted leak passed"
    out = capsys.readouterr().out
    assert f"LEAK {path.relative_to(root)}: {what}" in out, \
        f"the report should name {path.relative_to(root)} and {what!r}:\n{out}"


def test_leakcheck_refuses_an_empty_release(tmp_path):
    assert cli.main(["course", "leakcheck", str(tmp_path)]) == 2


@pytest.mark.parametrize("name", list(students.STUDENTS))
def test_gradebook_holds_only_earned_points(graded, name):
    lab_id, _, expect = students.STUDENTS[name]
    scores = gradebook_scores(graded, lab_id, name)
    for cell, want in expect.items():
        got, most = scores[cell]
        want = most if want == "full" else want
        assert got == want, f"{name}: {cell} scored {got} of {most}, expected {want}"
    for cell in (c for c in scores if c.startswith("perf_")):
        assert scores[cell][0] == 0, f"{name}: {cell} scored without a GPU"


def test_deleted_test_cell_is_restored_and_failed(graded):
    nb = autograded(graded, students.LAB01, "deleted_test")
    (cell,) = [c for c in nb.cells if submission.grade_id(c) == "test_triton"]
    assert cell.metadata[preprocessors.RESTORED]["restored"] is True
    assert [o.output_type for o in cell.outputs] == ["error"]
    assert "was deleted from the submission" in cell.outputs[0].evalue


def test_tags_are_dropped_and_outputs_are_verdicts(graded):
    nb = autograded(graded, students.LAB01, "skip_tags")
    assert not any(c.metadata.get("tags") for c in nb.cells), "tags survived sanitising"
    test_cells = [c for c in nb.cells if preprocessors.is_test_cell(c)]
    assert test_cells and all(c.outputs for c in test_cells), "a grade cell has no verdict"
    reasons = [o.evalue for c in test_cells for o in c.outputs if o.output_type == "error"]
    assert any("not implemented: fill in the Triton vector_add_kernel" in r for r in reasons)


def test_the_kernel_never_holds_the_secret(graded):
    nb = autograded(graded, students.LAB01, "unruly")
    text = nbformat.writes(nb)
    assert SECRET not in text, "the grading secret reached the student's kernel"
    assert students.NO_SECRET in text, "the snooping cell did not run: the test proves nothing"


def test_the_kernel_sees_no_course_and_no_other_student(graded):
    """The notebook kernel and the grader's processes run in the sandbox: a cell that walks the
    file system for the gradebook, the secret seed, the source notebooks and the others'
    submissions finds none of them, in its output or in its feedback."""
    assert_snooper_found_nothing(graded, students.LAB01)


def test_the_snooper_finds_the_course_outside_the_sandbox(graded):
    """The control for the test above: the same snooping code, run as a plain process in the
    snooper's folder of the course, finds the gradebook, the seed, the source notebooks and
    the other students' submissions: the sandbox is what hides them."""
    here = graded / "autograded" / "snooper" / students.LAB01
    out = subprocess.run([sys.executable, "-c", students.SNOOP], cwd=here, text=True,
                         capture_output=True, timeout=300).stdout
    assert "SNOOP-DONE" in out, out[-2000:]
    found = [ln.split()[1] for ln in out.splitlines() if ln.startswith("SNOOP-FOUND")]
    for wanted in ("/gradebook.db", "/secret_seed", f"/source/{students.LAB01}/",
                   f"/submitted/solution/{students.LAB01}/"):
        assert any(wanted in path for path in found), (wanted, found[:10])
    assert "SNOOP-WRITABLE" in out


def test_feedback_shows_verdicts_not_hidden_tests(graded):
    nbgrader(graded, "generate_feedback", students.LAB01, "--student", "solution", "--force")
    html = (graded / "feedback" / "solution" / students.LAB01 / f"{students.LAB01}.html") \
        .read_text()
    assert "shapes correct" in html and "checked outside your notebook" in html
    for leak in (release.HIDDEN_BEGIN, "suite=&quot;hidden&quot;", 'suite="hidden"',
                 "graded=True"):
        assert leak not in html, f"feedback shows {leak!r}"


def test_a_submission_over_its_limit_is_killed_and_zeroed(graded, tmp_path):
    """The wall-clock limit kills nbgrader, its kernel and the check processes, and the
    gradebook keeps no marks from an earlier, complete run."""
    import psutil

    root = tmp_path / "course"
    shutil.copytree(graded, root)  # the config finds its root from its own path
    assert gradebook_scores(root, students.LAB01, "solution")["test_triton"][0] == 3
    # What this worker ran before (another test module's fork server) is not the task's.
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    out = autograde.run_one(root, students.LAB01, "solution", "cpu", None, limit=4)
    assert out.status == "killed" and "killed after 4 s" in out.note, out
    autograde.read_scores(root, students.LAB01, [out])
    assert out.score == 0 and all(score == 0 for score, _ in out.scores.values()), out.scores
    left = [p.cmdline() for p in psutil.Process().children(recursive=True)
            if p.pid not in before]
    assert not left, f"processes outlived the kill: {left}"


def _digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_task_never_writes_the_gradebook_and_finish_does(graded, tmp_path):
    """A grading task (one per submission, in parallel or on Slurm) writes only its outcome
    and staged notebook; `finish()`, one process, imports them into the gradebook."""
    root = copy_course(graded, tmp_path)
    lab = manifest.get(students.LAB01)
    nb = students.solution(lab, nbformat.read(release_path(root, lab.id), as_version=4))
    folder = root / "submitted" / "late" / lab.id
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / f"{lab.id}.ipynb")
    before = _digest(root / "gradebook.db")
    proc = subprocess.run(autograde.task_command(root, lab.id, "late", "cpu", 600), cwd=root,
                          env=autograde.nbgrader_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert _digest(root / "gradebook.db") == before, "a task wrote the gradebook"
    (out,) = autograde.read_outcomes(root, lab.id, ["late"])
    assert out.status == "graded" and out.wall["execute"] > 0, out
    (out,) = autograde.finish(root, lab.id, ["late"])
    points = lab.exercise().points
    assert out.scores["test_triton"] == (points["triton"], points["triton"]), out.scores
    assert gradebook_scores(root, lab.id, "late")["test_cuda"][0] == points["cuda"]


def test_a_task_that_dies_without_a_result_is_run_once_more_then_reported(
        graded, tmp_path, monkeypatch):
    root = copy_course(graded, tmp_path)
    crash = [sys.executable, "-c", "print('the node went away'); raise SystemExit(3)"]
    monkeypatch.setattr(autograde, "task_command", lambda *a: crash)
    out = autograde.run_one(root, students.LAB01, "solution", "cpu", None, limit=60)
    assert out.status == "failed" and "exited 3" in out.note, out
    assert out.log.read_text().count("the node went away") == 1 + autograde.RETRIES
    (again,) = autograde.finish(root, students.LAB01, ["solution"])
    assert again.status == "failed" and again.score == 0, again  # no stale marks


def test_the_import_refuses_a_staged_notebook_of_other_cells(graded, tmp_path):
    """The staged notebook must hold the submission's cells: one edited after grading (or
    a submission handed in again since) is not imported."""
    root = copy_course(graded, tmp_path)
    staged = root / autograde.STAGED / "solution" / students.LAB01 / f"{students.LAB01}.ipynb"
    staged.chmod(0o644)
    nb = nbformat.read(staged, as_version=4)
    cell = students._cell(nb, "vector_add_triton")
    cell.source += "\n# changed after grading"
    nbformat.write(nb, staged)
    (out,) = autograde.finish(root, students.LAB01, ["solution"])
    assert out.status == "failed" and "does not hold the cells" in out.note, out
    assert out.score == 0


def test_the_tasks_and_plain_nbgrader_give_the_same_verdicts(graded, tmp_path):
    """The same submissions through plain `nbgrader autograde` (every check in turn, inside
    nbgrader) and through `tclab course autograde` (grading tasks, the untimed checks beside
    the notebook's execution): the same verdicts, check by check."""
    import json

    root = copy_course(graded, tmp_path)
    who = ["solution", "patched_solution", "stub"]
    saved_dir = root / ".tclab" / "verdicts" / students.LAB01
    for student in who:
        (saved_dir / f"{student}.json").unlink()  # the tasks' own: compared with themselves
        nbgrader(root, "autograde", students.LAB01, "--student", student, "--force",
                 env={"TCLAB_DEVICE": "cpu", regrade.cases.SECRET_ENV: SECRET})

    def verdicts(grades):
        return {(g["exercise"], g["impl"]): [(c["check"], c["dtype"], c["status"], c["reason"])
                                             for c in g["checks"] + g["perf"]] for g in grades}

    for out in autograde.read_outcomes(graded, students.LAB01, who):
        saved = saved_dir / f"{out.student}.json"
        plain = json.loads(saved.read_text())["grades"]
        assert verdicts(plain) == verdicts(out.verdicts), out.student


def _perf_cell(outputs, points=3.0):
    return nbformat.v4.new_code_cell(metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "grade_id": "perf_triton",
        "points": points, "schema_version": 3}}, outputs=outputs)


@pytest.mark.parametrize("status,ratio,want", [("pass", 0.95, 3.0), ("fail", 0.7, 1.5),
                                               ("fail", 0.59, 0.0), ("fail", 0.0, 0.0),
                                               ("impossible", 2.0, 0.0)])
def test_perf_partial_credit(status, ratio, want):
    """nbgrader's own determine_grade reads our perf outputs: all points at the bar (0.8),
    none at or below zero_below (0.6), linear between."""
    from nbgrader.utils import determine_grade

    from grader.judge.verdict import Grade, Verdict

    row = {"shape": {"n": 268435456}, "gbps": 3900.0, "roof_pct": 81.0, "ratio": ratio,
           "student_ms": 0.83, "reference_ms": 0.79, "unit": "bytes"}
    perf = {"bar": 0.8, "zero_below": 0.6, "roof_gbps": 4800.0, "gpu": {"gpu": "H200"},
            "rows": [row]}
    if status != "impossible":
        perf["ratio"] = ratio
    verdict = Verdict(check="perf", status=status, reason="faster than the copy roof allows",
                      exercise="lab01_vector_add", impl="triton", dtype="float32", perf=perf)
    grade = Grade("lab01_vector_add", "lab01_vector_add", "triton", "gpu", perf=[verdict])
    cell = _perf_cell(regrade.perf_outputs(grade, 3.0))
    assert determine_grade(cell) == (want, 3.0)
    text = "".join(o.get("text", "") for o in cell.outputs)
    if status in ("pass", "fail"):
        assert "3900 GB/s" in text and "81% of the 4800 GB/s copy roof" in text
        assert f"{ratio:.2f}x the reference" in text


def test_bad_submissions_get_a_verdict_and_exit_1(graded, tmp_path, capsys):
    """A corrupted notebook, an empty file and a notebook missing a solution cell: each is
    reported in one line, the others are graded, results/LAB.json is written, exit code 1."""
    import json

    root = tmp_path / "course"
    shutil.copytree(graded, root)
    shutil.rmtree(root / "submitted")
    lab = manifest.get(students.LAB01)
    nb = students.solution(lab, nbformat.read(release_path(root, lab.id), as_version=4))
    cuda_cell = lab.exercise().impls["cuda"].cells[-1]
    nb.cells = [c for c in nb.cells if submission.grade_id(c) != cuda_cell]
    texts = {"corrupted": '{"cells": [', "empty": "", "missing_cell": nbformat.writes(nb)}
    for name, text in texts.items():
        folder = root / "submitted" / name / lab.id
        folder.mkdir(parents=True)
        (folder / f"{lab.id}.ipynb").write_text(text)
    assert cli.main(["course", "autograde", str(root), "lab01", "--device", "cpu"]) == 1
    out = capsys.readouterr().out
    assert "Traceback" not in out
    report = json.loads((root / "results" / f"{lab.id}.json").read_text())
    got = {s["student"]: s for s in report["submissions"]}
    assert got["corrupted"]["status"] == "unreadable"
    assert "not a valid notebook" in got["corrupted"]["note"]
    assert got["empty"]["status"] == "unreadable" and "empty" in got["empty"]["note"]
    missing = got["missing_cell"]
    assert missing["status"] == "graded", missing
    assert any("is missing" in p for p in missing["problems"]), missing
    assert missing["scores"]["test_cuda"][0] == 0
    assert missing["scores"]["test_triton"][0] == missing["scores"]["test_triton"][1]


def test_build_inside_the_checkout_says_so(tmp_path, monkeypatch, capsys):
    """A course built inside the project's checkout gets a note naming it; one outside it, or
    in a folder git ignores there, gets none."""
    from grader.base import paths
    from grader.course import cli as course_cli

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / ".gitignore").write_text("/ignored/\n")
    monkeypatch.setattr(paths, "ROOT", checkout)
    assert course_cli.inside_checkout(checkout / "mycourse") == checkout.resolve()
    assert course_cli.inside_checkout(checkout / "ignored" / "mycourse") is None
    assert course_cli.inside_checkout(tmp_path / "elsewhere") is None
    assert cli.main(["course", "build", str(checkout / "mycourse"), "lab01"]) == 0
    assert "is inside the project's checkout" in capsys.readouterr().err
