"""The nbgrader course the course tests share: built once per test session (the `course` and
`graded` fixtures in tests/conftest.py), with the fake students of students.py handed in and
autograded, and the helpers that read it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from course_cases import students
from grader import cli
from grader.course import autograde, build, regrade
from grader.lab import manifest

LABS = [students.LAB01, students.LAB07]
SECRET = "test-course-secret-4f1c9a"  # passed in the environment, as an instructor may


# `python -m nbgrader`, after grader.course's start-up (grader.base.startup: 2.5 s less of a 2-core
# CPU a call, where nbformat's jsonschema would build its RFC 3987 parser).
NBGRADER = ("import runpy, grader.course; "
            "runpy.run_module('nbgrader', run_name='__main__', alter_sys=True)")


def nbgrader(course: Path, *args: str, env: dict | None = None) -> str:
    proc = subprocess.run([sys.executable, "-c", NBGRADER, *args], cwd=course,
                          env=autograde.nbgrader_env(env), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{proc.stdout[-3000:]}" \
        f"\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


def release_path(course: Path, lab_id: str) -> Path:
    return course / "release" / lab_id / f"{lab_id}.ipynb"


def make_course(root: Path) -> Path:
    """A course built in `root` with its labs released through nbgrader."""
    assert cli.main(["course", "build", str(root)]) == 0
    for lab_id in LABS:
        nbgrader(root, "generate_assignment", lab_id, "--force")
    return root


def grade_students(course: Path) -> Path:
    """Every fake student handed in and autograded; the gradebook holds the result."""
    for name, (lab_id, make, _) in students.STUDENTS.items():
        lab = manifest.get(lab_id)
        nb = make(lab, nbformat.read(release_path(course, lab_id), as_version=4))
        folder = course / "submitted" / name / lab_id
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{lab_id}.ipynb")
    os.environ[regrade.cases.SECRET_ENV] = SECRET  # the instructor's environment
    try:
        assert cli.main(["course", "autograde", str(course), "lab01", "--device", "cpu"]) == 0
        nbgrader(course, "autograde", students.LAB07, "--force", env={"TCLAB_DEVICE": "cpu"})
    finally:
        os.environ.pop(regrade.cases.SECRET_ENV, None)
    return course


def gradebook_scores(course: Path, lab_id: str, student: str) -> dict[str, tuple[float, float]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", build.COURSE_ID) as gb:
        sub = gb.find_submission(lab_id, student)
        return {g.name: (g.score, g.max_score) for nb in sub.notebooks for g in nb.grades}


def copy_course(graded: Path, tmp_path: Path) -> Path:
    """A copy of the graded course to change: the shared one stays as graded."""
    root = tmp_path / "course"
    shutil.copytree(graded, root)  # the config finds its root from its own path
    return root


def autograded(course: Path, lab_id: str, student: str):
    """The student's notebook as nbgrader autograde left it in the course."""
    return nbformat.read(course / "autograded" / student / lab_id / f"{lab_id}.ipynb",
                         as_version=4)


def assert_snooper_found_nothing(course: Path, lab_id: str, student: str = "snooper") -> None:
    """The snooper's cells (students.snooper) walked the file system from inside the notebook
    kernel: what they printed, and the feedback page, name no course file and no other
    student's, and the gradebook was not writable to them."""
    nb = autograded(course, lab_id, student)
    text = "\n".join(str(o.get("text", "")) for c in nb.cells if c.cell_type == "code"
                     for o in c.outputs)  # what the cells printed, not their source
    assert "SNOOP-DONE" in text, "the snooping cell did not run: the test proves nothing"
    assert "SNOOP-FOUND" not in text and "SNOOP-WRITABLE" not in text, \
        [ln for ln in text.splitlines() if "SNOOP-" in ln][:5]
    nbgrader(course, "generate_feedback", lab_id, "--student", student, "--force")
    html = (course / "feedback" / student / lab_id / f"{lab_id}.html").read_text()
    assert "SNOOP-DONE " in html and "SNOOP-FOUND /" not in html
    assert SECRET not in html
