"""The negative controls in tests/corpus/: each submission gets the verdict its header names,
and the notebook's own `check()` reaches the same status as the grader (one judge) on every
control whose verdict comes from more than a wrong result (see PARITY). A control holds what
differs from its lab's solution; `corpus_controls` builds the notebook that both grade."""

from __future__ import annotations

import functools
import multiprocessing
import os
from pathlib import Path

import pytest
from corpus_controls import CORPUS, ControlError, cells, header, notebook, solution

from grader.execution import runner
from grader.lab import manifest
from grader.pipeline import grading

FILES = sorted(CORPUS.glob("lab*/*.py"))
# TCLAB_CORPUS_SHARD=K/N keeps every N-th control from the K-th (1-based): the GPU check times
# the controls graded on speed in two calls of bounded length.
if os.environ.get("TCLAB_CORPUS_SHARD"):
    _k, _n = (int(v) for v in os.environ["TCLAB_CORPUS_SHARD"].split("/"))
    _timed = [p for p in FILES if "# perf:" in p.read_text()]  # split evenly: timed, untimed
    FILES = sorted(_timed[_k - 1 :: _n] + [p for p in FILES if p not in _timed][_k - 1 :: _n])



def expected(path: Path, device: str) -> dict:
    """The header as it reads on `device`: `KEY-gpu:` (or `KEY-cpu:`) lines replace `KEY:`
    lines there, and a device's own status drops the other device's reasons."""
    fields = header(path)
    own = {k[: -len(device) - 1]: v for k, v in fields.items() if k.endswith(f"-{device}")}
    fields = {k: v for k, v in fields.items() if not k.endswith(("-gpu", "-cpu"))}
    if "status" in own:
        fields = {k: v for k, v in fields.items() if not k.startswith("reason")}
    return {**fields, **own}


def slow_only(want: dict) -> bool:
    """A control whose one flaw is its speed: correct everywhere, failed by the perf bar."""
    return "perf" in want and want["status"] == ["fail"] and \
        "x the reference" in want.get("reason", [])


def _marks(path: Path, timed: bool):
    want = header(path)
    marks = [pytest.mark.gpu] if want.get("device", ["any"])[0] == "gpu" else []
    return marks + ([pytest.mark.timed] if timed and "perf" in want else [])


def _params(files, timed: bool = False):
    """`timed`: the test times the control's kernel (on a GPU it runs alone)."""
    return pytest.mark.parametrize(
        # one xdist worker per control: its verdict and parity tests share one grading
        "path", [pytest.param(p, marks=[*_marks(p, timed), pytest.mark.xdist_group(p.stem)])
                 for p in files],
        ids=[f"{p.parent.name}-{p.stem}" for p in files])  # `pytest -m corpus -k lab01`


def _runnable(want: dict, device: str) -> None:
    if want.get("device", ["any"])[0] == "cpu" and device != "cpu":
        pytest.skip("a CPU-only control")


@pytest.fixture(scope="module", autouse=True)
def shared_worker_servers(device, request):
    """Without a GPU, the controls' checks share worker servers (`shared_servers`): a run
    that does not end cleanly (a hang, a crash, a kill) discards its server, so nothing of
    that control reaches the next. On a GPU each control keeps a session of its own: a
    session's reference server is one lab's."""
    if device == "cpu":
        request.getfixturevalue("shared_servers")


@functools.cache
def grade(path: Path, device: str, perf: bool, hidden: bool = True):
    """Graded once per session: the tests that ask the same share it."""
    want = expected(path, device)
    lab = manifest.get(path.parent.name)
    timeout = float(want["timeout"][0]) if "timeout" in want else None
    exercises = want.get("exercise")  # a lab with several exercises: the one it answers
    (result,) = grading.grade_notebook(lab, notebook(path), device, impls=[want["impl"][0]],
                                       perf=perf, hidden=hidden, timeout=timeout,
                                       exercises=exercises)
    return result


@_params(FILES, timed=True)
def test_corpus_verdict(path, device):
    want = expected(path, device)
    _runnable(want, device)
    perf = "perf" in want
    # A control whose one flaw is speed is timed after its public cases only: its hidden
    # cases and memcheck are test_slow_control_is_correct_everywhere's, run beside others.
    result = grade(path, device, perf, hidden=not slow_only(want))
    if want["status"][0] == "pass":  # honest work: a positive control
        assert result.ok, f"{path.name}: refused: {result.status}: {result.reason}"
        return
    got = result.worst_perf if perf and result.correct else result.first_failure
    assert got is not None, f"{path.name}: every check passed: {result.reason}"
    assert got.status == want["status"][0], f"{path.name}: {got.status}: {got.reason}"
    for phrase in want.get("reason", []):
        assert phrase in got.reason, f"{path.name}: {phrase!r} not in {got.reason!r}"
    if "reason-any" in want:
        phrases = [p.strip() for p in want["reason-any"][0].split("|")]
        assert any(p in got.reason for p in phrases), f"{path.name}: {got.reason!r}"


SLOW = [p for p in FILES if slow_only(header(p))]


@_params(SLOW)
def test_slow_control_is_correct_everywhere(path, device):
    """What grading does before it times a slow control, apart from the timing: every hidden
    case and (on a GPU) memcheck pass, so its verdict comes from the perf bar alone."""
    result = grade(path, device, False)
    assert result.correct and all(v.ok for v in result.checks), \
        f"{path.name}: {result.first_failure.status}: {result.reason}"


# The notebook path, as a kernel runs it: the lab's setup cell, then the submission's cells,
# then check()'s judge on the public and hidden shapes. A cell that raises is classified as
# the grader classifies it. One process per submission, killed like a hung kernel; forked from
# a server that imported torch, Triton and the grader once (a kernel has them loaded too).
def _notebook_path(conn, lab_id: str, path: str, impl: str, exercise: str, scratch: str,
                   device: str, setup: str) -> None:
    import linecache
    import tempfile

    from grader.judge import correctness
    from grader.lab import manifest, submission

    os.environ["TCLAB_DEVICE"] = device  # (the server imported Triton as the setup cell does)
    lab = manifest.get(lab_id)
    ex = lab.exercise(exercise or None)
    ns: dict = {}
    cells = Path(tempfile.mkdtemp(prefix="tclab-cells-", dir=scratch))

    def run_cell(name, src):  # a file per cell, kept in linecache, as IPython does
        cell = cells / f"{name}.py"
        cell.write_text(src)
        linecache.cache[str(cell)] = (len(src), None, src.splitlines(True), str(cell))
        exec(compile(src, str(cell), "exec"), ns)

    try:
        run_cell("setup", setup)
        nb = submission.read_notebook(path)
        wanted = ex.impls[impl].cells  # and the solution cells above them, as a notebook has
        for gid, src in {**submission.earlier_cells(nb, wanted),
                         **submission.cell_sources(nb, wanted)}.items():
            run_cell(gid, src)
    except BaseException as exc:  # noqa: BLE001 - a cell that raises, as the grader sees it
        conn.send({"status": correctness.classify(exc), "reason": str(exc)[:300]})
        return
    from grader import notebook
    for suite in ("public", "hidden"):
        found = notebook.verdicts(lab.id, impl, ns[ex.impls[impl].launcher], suite, ex.name)
        bad = next((v for v in found if not v.ok), None)
        if bad:
            conn.send({"status": bad.status, "reason": bad.reason})
            return
    conn.send({"status": "pass", "reason": "every case correct"})


@functools.cache
def _forks():
    ctx = multiprocessing.get_context("forkserver")
    # nbformat too: every child reads its control's notebook with it, and its import
    # (jsonschema, see grader.base.startup) cost each one 2.5 s of a 2-core CPU.
    ctx.set_forkserver_preload(["torch", "triton", "triton.language", "grader.notebook",
                                "grader.lab.submission", "grader.judge.correctness", "nbformat"])
    return ctx


def notebook_status(path: Path, impl: str, exercise: str, device: str, timeout: float,
                    scratch: Path) -> dict:
    ctx = _forks()
    mine, theirs = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_notebook_path, args=(theirs, path.parent.name,
                                                    str(notebook(path)), impl,
                                                    exercise, str(scratch), device,
                                                    runner.setup_source(path.parent.name)))
    proc.start()
    theirs.close()
    try:
        if not mine.poll(timeout):
            return {"status": "timeout", "reason": f"no answer after {timeout:g} s"}
        return mine.recv()
    except EOFError:
        proc.join(5)
        if proc.exitcode is not None and proc.exitcode < 0:  # a kernel killed by a signal
            return {"status": "crash", "reason": f"killed by signal {-proc.exitcode}"}
        raise AssertionError(f"{path.name}: the notebook path died (exit code "
                             f"{proc.exitcode}) and said nothing") from None
    finally:
        proc.kill()
        proc.join()


def _plainly_wrong(want: dict) -> bool:
    """Failed for its result alone (a classic mistake), or correct and slow: both paths reach
    that verdict through the same judge_case, so one such control per lab shows the notebook
    path agrees; every other verdict has machinery of its own on each path."""
    return want["status"] == ["fail"] and not any(
        word in " ".join(want.get("reason", [])) for word in ("never written", "modified"))


def _parity_set(files: list[Path]) -> list[Path]:
    """Hangs are left out: the notebook path has no time limit of its own (a hung cell hangs
    the kernel), so its "timeout" would be this harness's kill, compared with the grader's.
    So is a control marked `parity: no`: one aimed at the grader's own processes (its sandbox,
    its functions), which the student's kernel shares with nothing."""
    kept, labs_seen = [], set()
    for path in files:
        if header(path)["status"] == ["timeout"] or header(path).get("parity") == ["no"]:
            continue
        if _plainly_wrong(header(path)):
            if path.parent.name in labs_seen:
                continue
            labs_seen.add(path.parent.name)
        kept.append(path)
    return kept


# Every control but the hangs and the second and later plainly wrong ones of a lab (a notebook
# path run costs a forked process and the public and hidden cases again: ~3-6 s of a 2-core
# CPU).
PARITY = _parity_set(FILES)


@_params(PARITY)
@pytest.mark.slow
def test_notebook_check_decides_as_the_grader(path, device, tmp_path):
    """Correctness only: the notebook's bench is feedback, its grade is the grader's."""
    want = expected(path, device)
    _runnable(want, device)
    result = grade(path, device, "perf" in want and device != "gpu")  # CPU: as the verdict
    failure = next((v for v in result.checks if not v.ok), None)  # correctness only
    graded = failure.status if failure else "pass"
    # The notebook path's own start-up (imports, compiles) on top of the grader's limit; a
    # control that hangs only on one device (status-gpu: timeout) needs no more than enough
    # to be seen hanging.
    timeout = float(want.get("timeout", ["120"])[0]) + (5 if graded == "timeout" else 30)
    seen = notebook_status(path, want["impl"][0], want.get("exercise", [""])[0], device,
                           timeout, tmp_path)
    assert seen["status"] == graded, (f"{path.name}: notebook says {seen['status']} "
                                      f"({seen['reason']}), the grader {graded} "
                                      f"({result.reason})")


def test_a_header_reads_per_device(tmp_path):
    path = tmp_path / "control.py"
    path.write_text("# impl: cuda\n# status: exception\n# reason: line 15\n# status-gpu: timeout\n"
                    "# timeout-gpu: 20\n\n# %% nbgrader={}\n")
    assert expected(path, "cpu") == {"impl": ["cuda"], "status": ["exception"],
                                     "reason": ["line 15"]}
    assert expected(path, "gpu") == {"impl": ["cuda"], "status": ["timeout"], "timeout": ["20"]}


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}-{p.stem}" for p in FILES])
def test_a_control_builds(path):
    """Every edit finds its lines once, the header names a graded implementation and a
    status, and the submission differs from the solution in a cell it grades."""
    want = header(path)
    assert want.get("status") and want.get("impl"), f"{path.name}: no status or impl line"
    lab = manifest.get(path.parent.name)
    graded = lab.exercise(want.get("exercise", [None])[0]).impls[want["impl"][0]].cells
    built = cells(path)
    assert set(graded) <= set(built)
    assert any(built[g] != solution(lab.id)[g] for g in graded), \
        f"{path.name}: grades as the solution does"


def test_an_edit_is_the_solution_with_its_lines_replaced(tmp_path):
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text("# impl: cuda\n# status: fail\n\n# %% edit vector_add_cu\n"
                    "# (a comment between blocks)\n# <<<\n#     int tail = n_chunks * PACK + i;\n"
                    "# ===\n#     int tail = n_chunks * PACK + i + 1;\n# >>>\n")
    built, sol = cells(path), solution("lab01_vector_add")
    assert list(built) == ["vector_add_cu", "vector_add_cuda"]
    assert built["vector_add_cuda"] == sol["vector_add_cuda"]  # not named: the solution's
    assert built["vector_add_cu"] == sol["vector_add_cu"].replace(
        "int tail = n_chunks * PACK + i;", "int tail = n_chunks * PACK + i + 1;")
    assert "/// BEGIN SOLUTION" not in built["vector_add_cu"]  # as a student hands it in


@pytest.mark.parametrize("edit,said", [
    ("# <<<\n#     int tail = n_chunks + i;\n# ===\n# >>>\n", "block 1: the lines after # <<< "
     "are nowhere"),
    ("# <<<\n#     vector_add(x, y, out, n);\n# ===\n# >>>\n", "are there 3 times"),
    ("# <<<\n#     int tail = n_chunks * PACK + i;\n# ===\n", "vector_add_cu: # <<< without"),
    ("# <<<\n    int tail = n_chunks * PACK + i;\n# ===\n# >>>\n", "write each line"),
    ("    int tail = 0;\n", "edit of vector_add_cu: code outside"),
])
def test_an_edit_that_finds_no_one_place_names_the_control_and_cell(tmp_path, edit, said):
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text(f"# impl: cuda\n# status: fail\n\n# %% edit vector_add_cu\n{edit}")
    with pytest.raises(ControlError, match="lab01_vector_add/control.py") as info:
        cells(path)
    assert said in str(info.value)


def test_a_released_cell_is_the_stub_students_receive(tmp_path):
    """`# %% released <grade_id>`: the cell as the release writes it (the solution regions
    replaced by their stubs), so a stub control follows the lab's release."""
    from grader.lab import submission

    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text("# impl: triton\n# status: not_implemented\n\n"
                    "# %% released vector_add_triton\n")
    built = cells(path)
    assert "raise NotImplementedError()" in built["vector_add_triton"]
    assert built["vector_add_triton"] != solution("lab01_vector_add")["vector_add_triton"]
    lab = manifest.get("lab01_vector_add")
    shipped = {submission.grade_id(c): c.source
               for c in submission.read_notebook(lab.exercise_path).cells}
    assert built["vector_add_triton"] == shipped["vector_add_triton"]  # exercises/, as shipped


@pytest.mark.parametrize("body,said", [
    ("# %% released vector_add_triton\n# %% released vector_add_triton\n", "named twice"),
    ("# %% released vector_add_triton\n# %% edit vector_add_triton\n# <<<\n#     pass\n# ===\n"
     "# >>>\n", "named twice"),
    ("# %% released vector_add triton\n", "write a released cell as"),
    ("# %% released no_such_cell\n", "no_such_cell is not a solution cell"),
])
def test_a_released_cell_named_wrongly_is_refused(tmp_path, body, said):
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text(f"# impl: triton\n# status: not_implemented\n\n{body}")
    with pytest.raises(ControlError, match="lab01_vector_add/control.py") as info:
        cells(path)
    assert said in str(info.value)


def test_a_gap_in_a_quote_stands_for_the_lines_between(tmp_path):
    """`# ~~~` in a quote: the solution's lines from the quoted line above to the quoted line
    below are replaced, however many they are."""
    sol = solution("lab01_vector_add")["vector_add_triton"].split("\n")
    first = next(i for i, ln in enumerate(sol) if ln.startswith("def vector_add_kernel"))
    last = next(i for i, ln in enumerate(sol) if i > first and ln.startswith("    tl.store"))
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text("# impl: triton\n# status: fail\n\n# %% edit vector_add_triton\n# <<<\n"
                    f"# {sol[first]}\n# ~~~\n# {sol[last]}\n# ===\n# def vector_add_kernel():\n"
                    "#     pass\n# >>>\n")
    built = cells(path)["vector_add_triton"].split("\n")
    assert built == sol[:first] + ["def vector_add_kernel():", "    pass"] + sol[last + 1:]


@pytest.mark.parametrize("quote,said", [
    ("# ~~~\n#     tl.store(out_ptr + offsets, x + y, mask=mask)\n", "quote a line before"),
    ("# def vector_add_kernel(\n# ~~~\n", "quote a line before"),
    ("#     mask = offsets < n_elements\n# ~~~\n# no such line\n", "are nowhere"),
])
def test_a_gap_needs_its_ends(tmp_path, quote, said):
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text("# impl: triton\n# status: fail\n\n# %% edit vector_add_triton\n# <<<\n"
                    f"{quote}# ===\n# >>>\n")
    with pytest.raises(ControlError, match="lab01_vector_add/control.py") as info:
        cells(path)
    assert said in str(info.value)


def test_a_cell_of_its_own_is_refused(tmp_path):
    """A control is what it changes in the solution: a whole cell of its own would be a copy
    that drifts from the lab (quote the ends of what it replaces instead)."""
    path = tmp_path / "lab01_vector_add" / "control.py"
    path.parent.mkdir()
    path.write_text('# impl: triton\n# status: fail\n\n# %% nbgrader={"grade_id": '
                    '"vector_add_triton", "solution": true}\nx = 1\n')
    with pytest.raises(ControlError, match="not cells of its own"):
        cells(path)
