"""What a new user tripped over, pinned: each was reported once and must not come back."""

from __future__ import annotations

from grader import cli, manifest, paths
from grader.course import autograde


def test_lab01_handout_says_how_to_pass_a_pointer():
    text = manifest.get("lab01").exercise_path.read_text()
    assert "np.uintp(x.data_ptr())" in text and "np.int32(n)" in text


def test_readme_warns_that_a_shared_login_makes_one_student():
    text = (paths.ROOT / "README.md").read_text()
    assert "--student=" in text and "same user" in text


def test_course_build_prints_next_steps_that_work_from_inside_the_course(tmp_path, capsys):
    root = tmp_path / "course-test"
    assert cli.main(["course", "build", str(root), "lab01"]) == 0
    out = capsys.readouterr().out
    assert f"cd {root}" in out and "tclab course leakcheck .\n" in out
    assert f"leakcheck {root}" not in out


def test_autograde_table_names_its_columns():
    from rich.console import Console

    outcome = autograde.Outcome("ada", status="graded", seconds=12.0, score=3, max_score=10,
                                scores={"test_triton": (3.0, 3.0)})
    console = Console(width=200, record=True)
    console.print(autograde.table("lab01_vector_add", [outcome], "cpu"))
    text = console.export_text()
    assert "seconds" in text and " s " not in text.splitlines()[2]


IRI_PROBE = """
import sys
{setup}
import nbformat
nbformat.validate(nbformat.v4.new_notebook())  # the schema still checks a notebook
print(sys.modules.get("rfc3987_syntax") is not None)
"""


def test_the_cli_and_a_task_do_not_build_the_iri_grammar_at_start():
    """`tclab` and the course tools (an autograde task) start without jsonschema's RFC 3987
    parser (2.5 s of a 2-core CPU at every start); notebooks still validate. The control: a
    plain process that imports nbformat builds it, wherever the package is installed."""
    import subprocess
    import sys

    import pytest

    setups = {"plain": "", "task": "import grader.course.task",
              "cli": "import grader.cli\ngrader.cli.startup.skip_iri_grammar()"}
    got = {}
    for name, setup in setups.items():
        proc = subprocess.run([sys.executable, "-c", IRI_PROBE.format(setup=setup)],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        got[name] = proc.stdout.strip()
        if got == {"plain": "False"}:
            pytest.skip("rfc3987_syntax is not installed here: nothing to skip")
    assert got == {"plain": "True", "task": "False", "cli": "False"}, got
