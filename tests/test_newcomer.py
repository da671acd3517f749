"""What a new user tripped over, pinned: each was reported once and must not come back."""

from __future__ import annotations

import os

import pytest

from grader import cli
from grader.base import paths
from grader.course import autograde
from grader.lab import manifest


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


def _grade(key: str, impl: str, device: str, status: str = "pass", perf: dict | None = None,
           dtypes=("float32",), passed: int = 10, total: int = 10):
    from grader.judge.verdict import Grade, Verdict

    checks = [Verdict("correctness", status, "why", key, impl, dtypes[0], device,
                      passed=passed, total=total)]
    skipped = "skipped: needs a GPU" if device == "cpu" else "skipped: not correct"
    verdicts = [Verdict("perf", "skipped", skipped, key, impl, dt, device) if perf is None else
                Verdict("perf", "pass" if perf["ratio"] >= 1 else "fail", "why", key, impl, dt,
                        device, perf=dict(perf)) for dt in dtypes]
    return Grade(key.split("/")[0], key, impl, device, checks=checks, perf=verdicts)


def _rendered(grades, device: str) -> tuple[int, str]:
    from rich.console import Console

    console = Console(width=110, record=True)
    table = cli._table(grades, device)
    console.print(table)
    return console.measure(table).maximum, console.export_text()


def test_check_table_fits_110_columns_with_every_cell_whole():
    """`make run` on a CPU (every exercise of every lab), and the widest cells a GPU run can
    print: the longest exercise key, a stub's status, a compute-bound rate with its unit beside
    a bandwidth one, a failed ratio with its dtype. rich cuts a cell that does not fit with
    '…': the table printed `trit…` and `42/…` at 110 columns."""
    keys = [ex.key for lab in manifest.registry().values() for ex in lab.exercises]
    longest = max(keys, key=len)
    cpu = [_grade(key, impl, "cpu") for key in keys for impl in ("triton", "cuda")]
    bytes_perf = {"ratio": 0.81, "gbps": 4812.0, "roof_pct": 91.0}
    flops_perf = {"ratio": 0.81, "gbps": 2250.0, "x_torch": 0.92, "torch_name": "cuBLAS",
                  "unit": "flops"}
    flops_key = next(k for k in keys if manifest.exercise(k).unit == "flops")
    gpu = [_grade(longest, "triton", "gpu", perf=bytes_perf, dtypes=("float32", "bfloat16")),
           _grade(flops_key, "triton", "gpu", perf=flops_perf, dtypes=("float16", "bfloat16")),
           _grade(longest, "cuda", "gpu", status="not_implemented", passed=0, total=0),
           _grade(keys[0], "cuda", "gpu", status="fail", passed=38, total=42)]
    for device, grades, whole in (
            ("cpu", cpu, [longest, "triton", "10/10", "needs a GPU"]),
            ("gpu", gpu, [longest, "triton", "not_implemented", "2250 TFLOP/s", "4812 GB/s",
                          "0.92x cuBLAS", "0.81 fp32 FAIL", "fail 38/42", "not correct"])):
        width, text = _rendered(grades, device)
        assert width <= 110 and "…" not in text, f"{device}: {width} columns:\n{text}"
        for cell in whole:
            assert cell in text, f"{device}: {cell!r} not whole in:\n{text}"


def _lab01_variant(tmp_path, old: str, new: str):
    """lab01's solution notebook with one edit, as a student's kernel has its cells."""
    from test_notebook import launcher_from

    lab = manifest.get("lab01")
    text = lab.source.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / lab.source.name
    path.write_text(text.replace(old, new))
    return launcher_from(lab.id, "triton", path)


def test_a_wrong_result_is_told_once(tmp_path):
    """The reason opens the details of a wrong result: the message said its first line twice."""
    from grader.notebook import CheckFailed, check

    lab, launcher = _lab01_variant(tmp_path, "(x + y)", "(x - y)")
    with pytest.raises(CheckFailed) as info:
        check(lab.id, "triton", launcher)
    lines = str(info.value).splitlines()
    assert "elements differ" in lines[0] and "got" in lines[1], lines
    assert len(set(lines)) == len(lines), lines
    assert info.value._render_traceback_() == [f"CheckFailed: {lines[0]}", *lines[1:]]


RAISES = "def helper(n):\n    return 1 / (n - n)\n\n\ndef vector_add_triton("


@pytest.mark.slow
def test_a_students_exception_shows_their_frames_once_in_the_kernel(tmp_path):
    """In JupyterLab a launcher that raises showed the test cell's frame, check()'s own source
    lines, and the exception line twice. Now: the student's frames, named as IPython names
    cells, and the exception once, in a fresh kernel as a student runs the notebook."""
    import re

    from nbclient import NotebookClient

    from grader.lab import release
    nb = release.source_notebook(manifest.get("lab01"))
    cells = []
    for cell in (c for c in nb.cells if c.cell_type == "code"):
        gid = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if gid == "vector_add_triton":
            cell.source = cell.source.replace("def vector_add_triton(", RAISES, 1).replace(
                "    n = out.numel()\n", "    n = out.numel()\n    helper(n)\n", 1)
            assert "helper(n)\n" in cell.source
        cells.append(cell)
        if gid == "test_triton":
            break
    nb.cells = cells
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "TCLAB_DEVICE")}
    NotebookClient(nb, kernel_name="python3", timeout=300, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=env)
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert [o.ename for o in errors] == ["CheckFailed"], errors
    shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0].traceback))
    assert "ZeroDivisionError: division by zero on [n=1" in shown, shown
    assert shown.count("ZeroDivisionError") == 1, shown
    assert re.search(r"Cell In\[\d+\], line \d+, in helper\n +return 1 / \(n - n\)", shown), shown
    assert "notebook.py" not in shown and "raise CheckFailed" not in shown, shown
    assert "check(LAB" not in shown, shown


def test_bench_without_a_gpu_prints_one_short_line(monkeypatch, capsys):
    """It printed two paragraphs (what the profiler and the timing would show) per cell."""
    from grader import notebook
    monkeypatch.setattr(notebook.dev, "resolve", lambda *args: "cpu")

    def vector_add_triton(x, y, out):  # bench finds the exercise by the launcher's name
        raise AssertionError("bench ran the launcher without a GPU")

    assert notebook.bench("lab01", "triton", vector_add_triton) is None
    out = capsys.readouterr().out
    assert out == "lab01_vector_add triton bench: skipped: needs a GPU\n", out


def test_check_and_pytest_grade_the_working_copy_by_default(monkeypatch, tmp_path):
    """`tclab check` and `pytest -k labNN` graded exercises/ (the release) even where the
    student works in workspace/, their own copy: they were told 'a stub left' of a notebook
    they had filled in."""
    from types import SimpleNamespace

    from conftest import chosen_submission

    from grader.pipeline import grading
    lab = manifest.get("lab01")
    mine = lab.release_path(tmp_path / "workspace")
    monkeypatch.setattr(paths, "WORKSPACE", tmp_path / "workspace")
    seen = []
    monkeypatch.setattr(grading, "plan_notebook",
                        lambda lab, path, *args, **kw: seen.append(path) or [])
    unset = SimpleNamespace(getoption=lambda name: None)
    for present, want in ((False, lab.exercise_path), (True, mine)):
        if present:
            mine.parent.mkdir(parents=True)
            mine.write_text("{}")
        seen.clear()
        assert cli.main(["check", "lab01", "--results", str(tmp_path / "r.json")]) == 0
        assert seen and set(seen) == {want}, seen
        assert grading.resolve_submission(lab, chosen_submission(unset)) == want


def _config(keyword: str = "", markexpr: str = "not bench", args=("tests",)):
    from types import SimpleNamespace

    options = {"keyword": keyword, "markexpr": markexpr}
    return SimpleNamespace(getoption=options.get, args=list(args), rootpath=paths.ROOT,
                           invocation_params=SimpleNamespace(dir=paths.ROOT),
                           getini=lambda name: ["tests"])


def test_k_with_a_lab_id_is_the_students_command_unless_a_maintainer_marker_or_path():
    from conftest import student_only

    assert student_only(_config("lab03"))
    assert student_only(_config("lab03 and relu", args=[str(paths.ROOT / "tests")]))
    assert not student_only(_config("relu"))  # no lab named: every test that matches
    assert not student_only(_config("lab13", markexpr="corpus"))
    assert not student_only(_config("lab13", markexpr="maintainer and not slow"))
    assert not student_only(_config("lab03", args=["tests/test_corpus.py"]))


def test_a_new_labs_corpus_controls_carry_its_lab_id(tmp_path):
    """A control's tests carry its lab folder as a keyword (`_corpus_lab`), whatever their ids:
    `-m corpus -k lab13` finds a new lab's controls."""
    from types import SimpleNamespace

    import conftest

    control = conftest.CORPUS / "lab13_row_sum" / "triton_stub.py"
    item = SimpleNamespace(callspec=SimpleNamespace(params={"path": control}))
    assert conftest._corpus_lab(item) == "lab13_row_sum"
    other = SimpleNamespace(callspec=SimpleNamespace(params={"path": tmp_path / "lab13_x.py"}))
    assert conftest._corpus_lab(other) is None and conftest._corpus_lab(object()) is None


def _collected(*args: str) -> list[str]:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider",
                           *args], capture_output=True, text=True, cwd=paths.ROOT, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


@pytest.mark.slow
def test_pytest_k_lab_selects_the_students_tests_and_m_corpus_the_controls():
    """`pytest -k lab03` collected the maintainers' tests of lab03 too (notebook runs,
    references, profiles) and none of its corpus controls."""
    students = _collected("-k", "lab03")
    assert students and all(t.startswith("tests/test_labs.py::") and "lab03_" in t
                            for t in students), students
    controls = _collected("-m", "corpus", "-k", "lab03")
    assert controls and all(t.startswith("tests/test_corpus.py::") and "[lab03_activations-" in t
                            for t in controls), controls


def _parsers(monkeypatch):
    """The `tclab` parser and every parser below it, by command path ("", "check", "course
    build", ...), as `tclab` builds them."""
    import argparse

    def caught(self, args=None, namespace=None):
        raise _Parsed(self)

    with monkeypatch.context() as patch, pytest.raises(_Parsed) as info:
        patch.setattr(argparse.ArgumentParser, "parse_args", caught)
        cli.main([])
    found, todo = {}, [("", info.value.parser)]
    while todo:
        name, parser = todo.pop()
        found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {sub}".strip(), p) for sub, p in action.choices.items()]
    return found


class _Parsed(Exception):
    def __init__(self, parser):
        self.parser = parser


def test_every_command_and_option_of_tclab_has_help(monkeypatch):
    """`tclab --help` did not list `course` where nbgrader is missing, and `tclab check --help`
    showed --device and --results without a word."""
    import argparse

    parsers = _parsers(monkeypatch)
    assert {"check", "new", "release", "course", "course build", "course leakcheck",
            "course autograde"} <= set(parsers), sorted(parsers)
    missing = set()
    for name, parser in parsers.items():
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                listed = {a.dest for a in action._choices_actions if a.help}
                missing |= {(name, sub) for sub in action.choices if sub not in listed}
            elif not isinstance(action, argparse._HelpAction) and not action.help:
                missing.add((name, action.dest))
    assert not missing, sorted(missing)


def test_tclab_lists_course_without_nbgrader_and_says_what_to_install(monkeypatch, capsys,
                                                                      tmp_path):
    import sys

    import grader.course

    monkeypatch.setitem(sys.modules, "grader.course.cli", None)  # import fails as without it
    monkeypatch.delattr(grader.course, "cli", raising=False)
    assert "course" in _parsers(monkeypatch)[""].format_help()
    assert cli.main(["course", "build", str(tmp_path / "mycourse")]) == 2
    assert not (tmp_path / "mycourse").exists()
    assert "pip install -e .[course]" in capsys.readouterr().err


def test_autograde_table_says_why_perf_scores_0_on_a_cpu():
    """A CPU-graded perf column read `0/2` with no word of why."""
    from rich.console import Console

    scores = {"test_triton": (3.0, 3.0), "perf_triton": (0.0, 2.0)}
    outcome = autograde.Outcome("ada", status="graded", seconds=12.0, score=3, max_score=5,
                                scores=scores)
    shown = {}
    for device in ("cpu", "gpu"):
        console = Console(width=120, record=True)
        console.print(autograde.table("lab01_vector_add", [outcome], device))
        shown[device] = console.export_text()
    assert "0/2 (no GPU)" in shown["cpu"] and "graded on a GPU only" in shown["cpu"]
    assert "3/3 " in shown["cpu"] and "3/3 (no GPU)" not in shown["cpu"]
    assert "0/2" in shown["gpu"] and "GPU" not in shown["gpu"]


def test_autograde_names_a_submission_graded_without_the_sandbox():
    """tclab course autograde's output warned of nothing where the sandbox could not be made
    (tclab check did)."""
    boxed = autograde.Outcome("ada", status="graded", verdicts=[{"unsandboxed": ""}])
    loose = autograde.Outcome("bob", status="graded",
                              verdicts=[{"unsandboxed": ""}, {"unsandboxed": "no user namespaces"}])
    assert autograde.unsandboxed([boxed]) == ""
    assert autograde.unsandboxed([boxed, loose]) == "no user namespaces"
