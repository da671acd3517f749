"""nbgrader autograde on a GPU: perf points go to a reference-speed solution, not to a
half-speed one, and a notebook kernel that walks the file system on the GPU machine finds no
course file and no other student's. Needs a GPU (skipped without one) and the course tools
(nbgrader)."""

from __future__ import annotations

import json
import re

import corpus_controls
import nbformat
import pytest
from course_cases import students  # tests/ is on sys.path under pytest
from course_cases.course import (
    assert_snooper_found_nothing,
    gradebook_scores,
    nbgrader,
    release_path,
)

from grader import cli
from grader.course import autograde, leakcheck
from grader.lab import manifest

pytestmark = [pytest.mark.gpu, pytest.mark.slow]
SLOW = corpus_controls.CORPUS / "lab01_vector_add" / "triton_two_pass_slow.py"


def half_speed(lab, nb):
    """The solution, with the Triton cell replaced by a correct two-pass kernel (0.59x)."""
    nb = students.solution(lab, nb)
    cells = lab.exercise().impls["triton"].cells
    (slow,) = (corpus_controls.cells(SLOW)[c] for c in cells)
    students._cell(nb, "vector_add_triton").source = slow
    return nb


def test_perf_points_follow_the_measured_ratio(tmp_path):
    course = tmp_path / "course"
    assert cli.main(["course", "build", str(course)]) == 0
    lab_id = students.LAB01
    nbgrader(course, "generate_assignment", lab_id, "--force")
    lab = manifest.get(lab_id)
    who = ("fast", "slow", "snooper")
    for name, make in zip(who, (students.solution, half_speed, students.snooper)):
        nb = make(lab, nbformat.read(release_path(course, lab_id), as_version=4))
        folder = course / "submitted" / name / lab_id
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{lab_id}.ipynb")
    assert cli.main(["course", "autograde", str(course), "lab01", "--device", "gpu"]) == 0
    fast, slow, snooper = (gradebook_scores(course, lab_id, name) for name in who)
    print("gradebook:", {"fast": fast, "slow": slow, "snooper": snooper})
    for out in autograde.read_outcomes(course, lab_id, list(who)):
        print(f"{out.student}: {out.seconds} s;", json.dumps(out.wall))  # where the time went
    points = lab.exercise().points
    assert fast["test_triton"][0] == slow["test_triton"][0] == points["triton"]
    assert fast["perf_triton"][0] == points["perf_triton"]
    assert fast["perf_cuda"][0] == points["perf_cuda"]
    assert slow["perf_triton"][0] == 0.0
    assert snooper["test_triton"][0] == points["triton"]
    assert snooper["test_cuda"][0] == points["cuda"]
    assert_snooper_found_nothing(course, lab_id)  # with the GPU's /dev shown to the kernel

    # The feedback: the profile's advice and the sweep plot, and no hidden test (issue 13).
    nbgrader(course, "generate_feedback", lab_id, "--force")
    (page,) = (course / "feedback" / "slow" / lab_id).glob("*.html")
    html = page.read_text()
    print("slow's advice:", [ln for ln in html.splitlines() if "Nsight Compute" in ln][:2])
    assert re.search(r"one call\): (read|wrote) [\d.]+x the minimum bytes", html)  # 2nd pass
    assert "data:image/png;base64," in html
    (page,) = (course / "feedback" / "fast" / lab_id).glob("*.html")
    assert "profile (Nsight Compute, one call): within " in page.read_text()
    leaks, pages = leakcheck.scan_feedback(course)
    assert pages and leaks == [], leaks
