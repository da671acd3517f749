"""`tclab course autograde --slurm`: the sbatch script, the errors, and a real Slurm.

The script and the error lines are checked without a cluster (fake `sbatch`/`squeue`/
`scancel` on PATH where a command must answer). The rest runs on a Slurm of one node
started by the test itself (tests/slurm_cluster.py: Debian's slurm-wlm and munge, as root,
CPU-only): ten fake students of lab01 graded through one job array and their scores read
from nbgrader's gradebook, and a node that crashes under two of them (one task lost once,
one lost twice). Without Slurm's binaries those tests skip and say what to install.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import nbformat
import pytest
import slurm_cluster  # tests/ is on sys.path under pytest
from course_cases import students
from course_cases.course import gradebook_scores, nbgrader, release_path

from grader import cli
from grader.course import autograde, slurm
from grader.lab import manifest

TESTS = Path(__file__).resolve().parent
LAB = students.LAB01
PARTITION = "cpu"
FAKE_GPUS = 2  # on the test node: Slurm hands them out, no job here runs a kernel on them
# Ten students of lab01, each graded as tests/course_cases/students.py says: two honest
# solutions, and one student for each way a submission must not earn points it did not write.
GRADED = {name: (make, expect) for name, (lab_id, make, expect) in students.STUDENTS.items()
          if lab_id == LAB and name != "snooper"}  # the sandbox's own student: test_course
GRADED["solution_again"] = GRADED["solution"]
assert len(GRADED) == 10, sorted(GRADED)


# --- the sbatch script and the error lines: no cluster -------------------------------------

def _script(device="cpu", **options) -> str:
    return slurm.script(Path("/courses/gpu 101"), LAB, Path("/courses/gpu 101/list.txt"), 10,
                        device, 1800.0, **options)


def _directives(text: str) -> list[str]:
    return [line.removeprefix("#SBATCH ") for line in text.splitlines()
            if line.startswith("#SBATCH ")]


def test_script_is_one_array_one_task_per_student():
    text = _script(partition="gpu-a", max_concurrent=4)
    got = _directives(text)
    assert f"--job-name=tclab-{LAB}" in got and "--array=0-9%4" in got, got
    assert "--ntasks=1" in got and "--partition=gpu-a" in got, got
    assert f"--time={30 + slurm.SLACK_MINUTES}" in got, "1800 s is 30 min, plus the slack"
    assert f"'--output=/courses/gpu 101/.tclab/slurm/{LAB}/%A_%a.out'" in got, \
        "the output path must be quoted (a space) and be one file per task"
    assert not any(o.startswith("--gpus") for o in got), "a CPU task asked for a GPU"
    assert 'student="${students[$SLURM_ARRAY_TASK_ID]}"' in text
    assert f"exec {sys.executable} -m grader.course.task '/courses/gpu 101' {LAB} \"$student\" " \
        f"--device cpu --limit 1800 >> '/courses/gpu 101/.tclab/logs/{LAB}'/\"$student\".log " \
        "2>&1" in text, "the task must be autograde.task_command, its output the student's log"
    assert "export TCLAB_DEVICE=cpu" in text


def test_script_on_gpu_asks_slurm_and_picks_nothing():
    text = _script(device="gpu", gpus_per_task=2)
    assert "--gpus-per-task=2" in _directives(text)
    assert "--array=0-9" in _directives(text), "no --max-concurrent: no throttle"
    assert "CUDA_VISIBLE_DEVICES=" not in text.replace("(CUDA_VISIBLE_DEVICES=${", ""), \
        "the task must use the GPU Slurm gives it, not one set by the script"


def test_script_carries_pythonpath_only_when_set(monkeypatch):
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert "PYTHONPATH" not in _script()
    monkeypatch.setenv("PYTHONPATH", "/opt/tclab")
    assert "export PYTHONPATH=/opt/tclab" in _script()


def _fake_bin(folder: Path, **commands: str) -> None:
    """Shell scripts named after Slurm's commands, first on PATH (nothing else is)."""
    folder.mkdir(exist_ok=True)
    for name, body in commands.items():
        path = folder / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)


@pytest.fixture
def bare_course(tmp_path) -> Path:
    """Enough of a course for the Slurm side to submit: config, release, two submissions."""
    (tmp_path / "nbgrader_config.py").write_text("")
    (tmp_path / "release" / LAB).mkdir(parents=True)
    for name in ("ada", "bob"):
        (tmp_path / "submitted" / name / LAB).mkdir(parents=True)
    return tmp_path


def test_no_sbatch_is_one_line(bare_course, tmp_path, monkeypatch, capsys):
    _fake_bin(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert cli.main(["course", "autograde", str(bare_course), LAB, "--slurm",
                     "--device", "cpu"]) == 2
    out = capsys.readouterr().out
    assert "sbatch not found on PATH" in out and "Traceback" not in out, out


def test_sbatch_refusal_is_its_stderr(bare_course, tmp_path, monkeypatch, capsys):
    _fake_bin(tmp_path / "bin", sbatch="echo 'sbatch: error: invalid partition specified: "
              "nope' >&2\nexit 1")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert cli.main(["course", "autograde", str(bare_course), LAB, "--slurm", "--device", "cpu",
                     "--partition", "nope"]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert "sbatch refused" in out and "invalid partition specified: nope" in out, out


def test_slurm_flags_need_slurm(bare_course, capsys):
    assert cli.main(["course", "autograde", str(bare_course), LAB, "--device", "cpu",
                     "--max-concurrent", "2"]) == 2
    assert "--max-concurrent only with --slurm" in capsys.readouterr().out


def test_ctrl_c_cancels_the_array(bare_course, tmp_path, monkeypatch, capsys):
    """Ctrl-C while waiting: scancel gets the array's id, and the user is told."""
    bin_dir = tmp_path / "bin"
    _fake_bin(bin_dir, sbatch="echo 4242", squeue="echo RUNNING; echo PENDING",
              scancel=f'echo "$@" > {bin_dir}/cancelled')
    monkeypatch.setenv("PATH", str(bin_dir))

    def interrupt(_seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(slurm.time, "sleep", interrupt)
    with pytest.raises(KeyboardInterrupt):
        slurm.autograde_slurm(bare_course, LAB, "cpu")
    assert (bin_dir / "cancelled").read_text().split() == ["4242"]
    assert "cancelled Slurm job 4242 (scancel)" in capsys.readouterr().out


# --- a real Slurm --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    why = slurm_cluster.why_not()
    if why:
        pytest.skip(why)
    c = slurm_cluster.Cluster(tmp_path_factory.mktemp("slurm"), partition=PARTITION,
                              fake_gpus=FAKE_GPUS)
    started = time.monotonic()
    c.start()
    print(f"slurm cluster up in {time.monotonic() - started:.1f} s")
    yield c
    c.stop()


def run_instead(monkeypatch, module: str) -> None:
    """The Slurm tasks run `python -m module` (from tests/) with the real task's arguments."""
    real = autograde.task_command
    monkeypatch.setattr(autograde, "task_command",
                        lambda *args: [sys.executable, "-m", module, *real(*args)[3:]])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        p for p in (str(TESTS), os.environ.get("PYTHONPATH")) if p))


@pytest.fixture(scope="session")
def slurm_course(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("slurm_course")
    assert cli.main(["course", "build", str(root), LAB]) == 0
    nbgrader(root, "generate_assignment", LAB, "--force")
    return root


def hand_in(root: Path, who: dict) -> None:
    lab = manifest.get(LAB)
    release = nbformat.read(release_path(root, LAB), as_version=4)
    for name, make in who.items():
        folder = root / "submitted" / name / LAB
        folder.mkdir(parents=True)
        nbformat.write(make(lab, release), folder / f"{LAB}.ipynb")


def wrong_scores(root: Path, name: str, expect: dict) -> list[str]:
    """How the gradebook differs from what the student earned (test_course's rule)."""
    scores = gradebook_scores(root, LAB, name)
    wrong = []
    for cell, want in expect.items():
        got, most = scores[cell]
        want = most if want == "full" else want
        if got != want:
            wrong.append(f"{name}: {cell} scored {got} of {most}, expected {want}")
    wrong += [f"{name}: {cell} scored {got} without a GPU" for cell, (got, _) in scores.items()
              if cell.startswith("perf_") and got != 0]
    return wrong


@pytest.mark.slow
@pytest.mark.xdist_group("slurm")
def test_one_array_grades_ten_students(cluster, slurm_course, capsys):
    hand_in(slurm_course, {name: make for name, (make, _) in GRADED.items()})
    started = time.monotonic()
    rc = cli.main(["course", "autograde", str(slurm_course), LAB, "--slurm", "--partition",
                   PARTITION, "--device", "cpu", "--max-concurrent", "2"])
    took = time.monotonic() - started
    out = capsys.readouterr().out
    with capsys.disabled():
        print(f"\n10 students through Slurm in {took:.0f} s")
    assert rc == 0, out
    wrong = [w for name, (_, expect) in GRADED.items()
             for w in wrong_scores(slurm_course, name, expect)]
    assert not wrong, "\n".join(wrong) + f"\n{out}"

    tasks = cluster.finished()
    arrays = {t["ArrayJobId"] for t in tasks}
    assert len(arrays) == 1 and len(tasks) == 10, f"expected one array of 10 tasks: {tasks}"
    assert sorted(int(t["ArrayTaskId"]) for t in tasks) == list(range(10))
    assert {t["JobState"] for t in tasks} == {"COMPLETED"}, tasks
    job = (slurm.folder(slurm_course, LAB) / "job.sh").read_text()
    assert "#SBATCH --array=0-9%2" in job and f"#SBATCH --partition={PARTITION}" in job
    assert not (slurm.folder(slurm_course, LAB) / "retry.sh").exists(), "a task was retried"
    assert f"submitted Slurm job array {arrays.pop()}: 10 task(s)" in out


@pytest.mark.slow
@pytest.mark.xdist_group("slurm")
def test_a_task_lost_is_resubmitted_once_then_reported(cluster, slurm_course, tmp_path,
                                                      monkeypatch, capsys):
    root = tmp_path / "course"
    shutil.copytree(slurm_course, root, ignore=shutil.ignore_patterns("submitted"))
    hand_in(root, {"crashes_once": students.solution, "crashes_always": students.solution})
    before = {t["ArrayJobId"] for t in cluster.finished()}
    run_instead(monkeypatch, "course_cases.crashing_task")
    rc = cli.main(["course", "autograde", str(root), LAB, "--slurm", "--device", "cpu"])
    out = " ".join(capsys.readouterr().out.split())
    assert rc == 1, out

    attempts = sorted(p.name for p in (root / ".tclab" / "attempts").iterdir())
    assert attempts == ["crashes_always.1", "crashes_always.2", "crashes_once.1",
                        "crashes_once.2"], attempts
    tasks = [t for t in cluster.finished() if t["ArrayJobId"] not in before]
    assert len({t["ArrayJobId"] for t in tasks}) == 2, f"expected two arrays: {tasks}"
    assert "2 task(s) ended without a verdict (crashes_always, crashes_once): submitting " \
        "them once more" in out, out
    retry = (slurm.folder(root, LAB) / "retry.txt").read_text().split()
    assert retry == ["crashes_always", "crashes_once"]

    wrong = wrong_scores(root, "crashes_once", GRADED["solution"][1])
    assert not wrong, "\n".join(wrong)
    assert "crashes_always: failed: no result from Slurm task" in out, out
    assert "submitted 2 time(s)" in out


@pytest.mark.slow
@pytest.mark.xdist_group("slurm")
def test_each_gpu_task_uses_the_gpu_slurm_gives_it(cluster, bare_course, monkeypatch):
    """--device gpu: every task asks for one GPU and runs on the one Slurm set in
    CUDA_VISIBLE_DEVICES; two tasks at once never share one (the node's GPUs are fakes)."""
    who = [f"s{i}" for i in range(4)]
    for name in who:
        (bare_course / "submitted" / name / LAB).mkdir(parents=True, exist_ok=True)
    run_instead(monkeypatch, "course_cases.gpu_probe")
    monkeypatch.setattr(autograde, "finish", lambda root, lab_id, who, console=None:
                        [autograde.Outcome(s) for s in who], raising=False)
    slurm.autograde_slurm(bare_course, LAB, "gpu", limit=60, partition=PARTITION,
                          gpus_per_task=1, max_concurrent=FAKE_GPUS)
    runs = {s: json.loads(autograde.outcome_path(bare_course, LAB, s).read_text())
            for s in ["ada", "bob", *who]}
    gpus = {s: r["note"] for s, r in runs.items()}
    allowed = {f"CUDA_VISIBLE_DEVICES={i} TCLAB_DEVICE=gpu" for i in range(FAKE_GPUS)}
    assert set(gpus.values()) <= allowed, f"a task without exactly one Slurm GPU: {gpus}"
    at_once = [(a, b) for a in runs for b in runs if a < b and
               runs[a]["started"] < runs[b]["ended"] and runs[b]["started"] < runs[a]["ended"]]
    assert at_once, f"no two tasks ran at once: the check below proves nothing: {runs}"
    clashes = [(a, b) for a, b in at_once if gpus[a] == gpus[b]]
    assert not clashes, f"tasks ran at once on the same GPU: {clashes} {runs}"
    assert "#SBATCH --gpus-per-task=1" in (slurm.folder(bare_course, LAB) / "job.sh").read_text()
