"""The feedback a student gets back (`nbgrader generate_feedback`) holds no hidden test and no
course secret: `tclab course leakcheck` scans it beside the release. Its own code is no leak
there, even where it matches the solution."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from course_cases import students  # tests/ is on sys.path under pytest
from course_cases.course import copy_course, nbgrader

from grader import cli
from grader.course import leakcheck
from grader.lab import manifest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course")]  # test_course's course


@pytest.fixture(scope="module")
def fed_back(graded, tmp_path_factory) -> Path:
    """A copy of the graded course with lab01's feedback generated."""
    root = copy_course(graded, tmp_path_factory.mktemp("feedback"))
    nbgrader(root, "generate_feedback", students.LAB01, "--force")
    return root


def _pages(root: Path) -> list[Path]:
    return sorted((root / "feedback").rglob("*.html"))


def test_clean_feedback_passes(fed_back, capsys):
    assert _pages(fed_back), "nbgrader generate_feedback wrote no page"
    leaks, pages = leakcheck.scan_feedback(fed_back)
    assert leaks == [] and pages == len(_pages(fed_back))
    assert cli.main(["course", "leakcheck", str(fed_back)]) == 0
    assert "feedback clean" in capsys.readouterr().out


def test_a_student_s_own_solution_lines_are_no_leak(fed_back):
    """The solution's distinctive lines are in a correct student's feedback: their code."""
    lab = manifest.get(students.LAB01)
    solution = leakcheck.secret_lines([lab], kinds=("solution",))
    text = "\n".join(leakcheck._page_text(p.read_text()) for p in _pages(fed_back))
    assert any(line in text for line in solution)  # the control holds: they are there
    assert leakcheck.scan_feedback(fed_back)[0] == []


def test_a_hidden_test_line_planted_in_feedback_fails_naming_it(fed_back, tmp_path, capsys):
    root = copy_course(fed_back, tmp_path)
    lab = manifest.get(students.LAB01)
    hidden = leakcheck.secret_lines([lab], kinds=("hidden test",))
    line = next(iter(hidden))
    page = _pages(root)[0]
    # As nbconvert renders code: every token in a span, quotes as entities.
    rendered = "".join(f'<span class="n">{tok}</span>' for tok in
                       re.split(r"(\W)", line.replace('"', "&quot;")) if tok)
    page.write_text(page.read_text().replace("</body>", f"<pre>{rendered}</pre></body>", 1))
    leaks, _ = leakcheck.scan_feedback(root)
    assert any(leak.detail == repr(line) and leak.path == page.relative_to(root)
               for leak in leaks), leaks
    assert any(leak.what == "hidden-test call" for leak in leaks)
    assert cli.main(["course", "leakcheck", str(root)]) == 1
    out = capsys.readouterr()
    assert repr(line) in out.out and "do not return this feedback" in out.err


def test_a_course_secret_in_feedback_fails(fed_back, tmp_path):
    root = copy_course(fed_back, tmp_path)
    secrets = leakcheck.course_secrets(root)
    assert secrets, "the course has a grading secret"
    page = _pages(root)[-1]
    page.write_text(page.read_text() + next(iter(secrets)))
    leaks, _ = leakcheck.scan_feedback(root)
    assert [leak.detail for leak in leaks] == ["the value itself"]
