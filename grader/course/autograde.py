"""`tclab course autograde DIR LAB`: every submission of one lab, one worker per GPU.

Each submission is graded by one task (`grader.course.task`, a process of its own with its own
wall-clock limit and GPU): nbgrader autograde on a private copy of the gradebook, the scores
from the out-of-kernel regrade. The tasks run here, one per GPU at a time (`--gpus`), or as a
Slurm job array (`grader.course.slurm`). Then `finish()`, in this one process, imports every
task's graded notebook into nbgrader's gradebook, the record, and reads the scores back from
it. Logs go to DIR/.tclab/logs/LAB/STUDENT.log.
"""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.course import build

DEFAULT_LIMIT = 1800.0  # seconds per submission; every check inside has its own timeout too
GRACE = 30.0  # past the limit, a task that has not stopped itself is killed from here
RETRIES = 1  # a task that ended without an outcome (a crash) is run once more
NBGRADER_WRAPPER = "nbgrader.converters.base.NbGraderException"  # says only "see above"
STAGED = f"{build.STATE}/staged"  # nbgrader's autograded directory, for the tasks


@dataclass
class Outcome:
    student: str
    status: str = "pending"  # graded | unreadable | failed | killed
    seconds: float = 0.0
    note: str = ""
    log: Path | None = None
    scores: dict = field(default_factory=dict)  # grade cell -> (score, max)
    score: float | None = None
    max_score: float | None = None
    verdicts: list = field(default_factory=list)  # the regrade's Grade dicts
    wall: dict = field(default_factory=dict)  # seconds per step: where the time went

    @property
    def problems(self) -> list[str]:
        """What an instructor must look at: cells that could not be graded as handed in."""
        return [f"{g['exercise']} {g['impl']}: {g['reason']}" for g in self.verdicts
                if g["status"] in ("missing", "unreadable")]

    def to_dict(self) -> dict:
        return {"student": self.student, "status": self.status, "note": self.note,
                "seconds": self.seconds, "score": self.score, "max_score": self.max_score,
                "scores": {k: list(v) for k, v in self.scores.items()},
                "problems": self.problems, "verdicts": self.verdicts, "wall": self.wall,
                "log": str(self.log) if self.log else None}

    @classmethod
    def from_dict(cls, data: dict) -> Outcome:
        out = cls(data["student"], data["status"], data.get("seconds", 0.0),
                  data.get("note", ""), verdicts=data.get("verdicts", []),
                  wall=data.get("wall", {}))
        out.log = Path(data["log"]) if data.get("log") else None
        return out


def load_config(root: Path, **overrides):
    """The course's nbgrader_config.py, as nbgrader would load it, with `overrides`
    ({"Class.trait": value}) on top."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    for key, value in overrides.items():
        cls, trait = key.split(".")
        setattr(config[cls], trait, value)
    return config


class AutogradeError(RuntimeError):
    pass


def students(root: Path, lab_id: str) -> list[str]:
    submitted = Path(root) / "submitted"
    if not submitted.is_dir():
        return []
    return sorted(p.name for p in submitted.iterdir() if (p / lab_id).is_dir())


def nbgrader_env(extra: dict | None = None) -> dict:
    """This environment, with our Python's bin/ first: nbgrader runs `alembic` from PATH."""
    bin_dir = str(Path(sys.executable).parent)
    path = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
    return {**os.environ, "PATH": path, "PYTHONUNBUFFERED": "1", **(extra or {})}


def gpu_slots(device: str, gpus: int | None) -> list[str | None]:
    """One slot per worker: a CUDA device id on a GPU machine, a single None on the CPU."""
    if device != "gpu":
        return [None]
    import torch

    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    ids = visible.split(",") if visible else [str(i) for i in range(torch.cuda.device_count())]
    if gpus is not None:
        if gpus > len(ids):
            raise AutogradeError(f"--gpus {gpus}: only {len(ids)} GPU(s) visible "
                                 f"({', '.join(ids)})")
        ids = ids[:gpus]
    return ids


def outcome_path(root: Path, lab_id: str, student: str) -> Path:
    return Path(root) / build.STATE / "outcomes" / lab_id / f"{student}.json"


def write_outcome(path: Path, out: Outcome) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(out.to_dict(), indent=1))
    tmp.replace(path)  # whole or absent: a reader never sees half a file


def log_path(root: Path, lab_id: str, student: str) -> Path:
    return Path(root) / build.STATE / "logs" / lab_id / f"{student}.log"


def kill_family(pid: int, itself: bool = False, created: float | None = None) -> None:
    """Every descendant of `pid` (nbgrader's kernel and the check subprocesses run in sessions
    of their own, so a process group does not hold them), and `pid` too if `itself`. With
    `created` (its start time, psutil's create_time), nothing if `pid` now names another
    process: one that ended and was reaped can have its pid reused within a grading run."""
    import psutil

    try:
        me = psutil.Process(pid)
        if created is not None and abs(me.create_time() - created) > 0.01:
            return
        family = me.children(recursive=True) + ([me] if itself else [])
    except psutil.NoSuchProcess:
        return
    for p in family:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass


def task_command(root: Path, lab_id: str, student: str, device: str, limit: float) -> list[str]:
    return [sys.executable, "-m", "grader.course.task", str(root), lab_id, student,
            "--device", device, "--limit", f"{limit:g}"]


def task_env(device: str, gpu: str | None) -> dict:
    env = nbgrader_env({"TCLAB_DEVICE": device})
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    return env


START_TIMEOUT = 600.0  # seconds a task server may take to import and fork


class TaskServer:
    """`python -m grader.course.task --serve` for one GPU slot: each task a fork of a process
    that has imported torch, nbgrader and the grader already (their start-up, seconds, paid
    once per slot instead of once per submission). One task at a time."""

    def __init__(self, root: Path, device: str, gpu: str | None):
        self.proc = subprocess.Popen([sys.executable, "-m", "grader.course.task", "--serve"],
                                     cwd=root, env=task_env(device, gpu), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, start_new_session=True)
        self._lines = b""

    def _answer(self, timeout: float) -> dict | None:
        """The server's next line; None at the timeout, {} if the server is gone."""
        import select

        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._lines:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return {}
            self._lines += chunk
        line, self._lines = self._lines.split(b"\n", 1)
        return json.loads(line)

    def run(self, argv: list[str], log: Path, append: bool, timeout: float,
            more: bool = True) -> int | None:
        """The task's exit code; None if it was killed at `timeout`. A server that is gone
        is an exit code of -1 (the task is then run once more, in a new server). `more`:
        other tasks follow (the server starts their worker servers meanwhile)."""
        try:
            self.proc.stdin.write(json.dumps({"argv": argv, "log": str(log), "append": append,
                                              "more": more}).encode() + b"\n")
            self.proc.stdin.flush()
        except OSError:
            return -1
        started = self._answer(START_TIMEOUT)  # the server's imports come first
        if not started:
            return -1
        answer = self._answer(timeout)
        if answer is None:
            kill_family(started["pid"], itself=True, created=started.get("created"))
            self._answer(60)
            return None
        return answer.get("rc", -1)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                kill_family(self.proc.pid, itself=True)
                self.proc.wait()


def run_one(root: Path, lab_id: str, student: str, device: str, gpu: str | None,
            limit: float, server: TaskServer | None = None, more: bool = True) -> Outcome:
    """One task on GPU `gpu` (a CUDA device id, None on the CPU), forked by `server` if given
    (else a process of its own), its outcome as it wrote it; run once more if it ended without
    writing one (a crash). `more`: other tasks follow it (see `TaskServer.run`)."""
    log = log_path(root, lab_id, student)
    log.parent.mkdir(parents=True, exist_ok=True)
    path = outcome_path(root, lab_id, student)
    command = task_command(root, lab_id, student, device, limit)
    started = time.monotonic()
    for attempt in range(RETRIES + 1):
        path.unlink(missing_ok=True)
        if server is not None and server.alive():
            rc = server.run(command[3:], log, bool(attempt), limit + GRACE, more)
        else:
            with open(log, "a" if attempt else "w") as f:
                proc = subprocess.Popen(command, cwd=root, env=task_env(device, gpu), stdout=f,
                                        stderr=subprocess.STDOUT, start_new_session=True)
                try:
                    rc = proc.wait(timeout=limit + GRACE)
                except subprocess.TimeoutExpired:
                    kill_family(proc.pid, itself=True)
                    proc.wait()
                    rc = None
        if path.exists():
            out = Outcome.from_dict(json.loads(path.read_text()))
            break
        text = log.read_text(errors="replace")
        out = Outcome(student, "killed" if rc is None else "failed")
        out.note = (f"killed after {limit:g} s (the limit)" if rc is None else
                    error_line(text) or f"the grading task exited {rc} without a result")
        if rc is None:
            break
    out.log = log
    out.seconds = round(time.monotonic() - started, 1)
    write_outcome(path, out)  # what `finish()` reads
    return out


def write_results(root: Path, lab_id: str, outcomes: list[Outcome], device: str) -> Path:
    """Every submission's outcome, scores and verdicts: DIR/results/LAB.json."""
    path = Path(root) / "results" / f"{lab_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"lab": lab_id, "device": device,
                                "submissions": [o.to_dict() for o in outcomes]}, indent=1))
    return path


def error_line(text: str) -> str:
    """The exception nbgrader logged (its own last ERROR line, and its NbGraderException, only
    say 'see above')."""
    lines = [s.strip() for s in text.splitlines()]
    raised = [s for s in lines if re.match(r"^[\w.]+(Error|Exception|Exit): ", s)
              and not s.startswith(NBGRADER_WRAPPER)]
    if raised:
        return raised[-1]
    errors = [s.split("]", 1)[-1].strip() for s in lines if "| ERROR]" in s]
    return errors[0] if errors else ""


def read_outcomes(root: Path, lab_id: str, who: list[str]) -> list[Outcome]:
    """Each student's outcome as their task wrote it; "failed" where none did."""
    outcomes = []
    for student in who:
        path = outcome_path(root, lab_id, student)
        if path.exists():
            out = Outcome.from_dict(json.loads(path.read_text()))
        else:
            out = Outcome(student, "failed", note="no result: the grading task did not finish "
                          "(see its log)")
        out.log = log_path(root, lab_id, student)
        outcomes.append(out)
    return outcomes


def finish(root: Path, lab_id: str, who: list[str], console=None) -> list[Outcome]:
    """Every student's outcome (as their task wrote it), each graded submission imported into
    nbgrader's gradebook in this one process (the only writer), every score read back from
    it."""
    from nbformat.warnings import MissingIDFieldWarning
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, SaveAutoGrades
    from sqlalchemy.exc import SAWarning

    from grader.course.preprocessors import ImportStaged

    root = Path(root).resolve()
    outcomes = read_outcomes(root, lab_id, who)
    graded = [o for o in outcomes if o.status == "graded"]
    config = load_config(root, **{"CourseDirectory.root": str(root),
                                       "ImportStaged.staged_dir": str(root / STAGED)})
    # The course's pipeline with the task's outputs in place of executing and regrading.
    config.Autograde.autograde_preprocessors = [ImportStaged, SaveAutoGrades,
                                                AssignLatePenalties, CheckCellMetadata]
    api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
    with progress_bar(console) as progress, warnings.catch_warnings():
        # nbgrader's own session handling warns on every new submission: not ours to fix
        warnings.simplefilter("ignore", SAWarning)
        warnings.simplefilter("ignore", MissingIDFieldWarning)  # on nbgrader's own writes
        for out in progress.track(graded, description=f"import {lab_id} into the gradebook"):
            result = api.autograde(lab_id, out.student, force=True, create=True)
            if result.get("success"):
                continue
            error = (result.get("error") or "").strip()
            out.status = "failed"
            out.note = "import into the gradebook failed: " + (
                error_line(f"{result.get('log', '')}\n{error}") or "see the log")
            with open(out.log, "a") as f:
                f.write(f"\n--- import into the gradebook ---\n{result.get('log', '')}\n"
                        f"{error}\n")
    read_scores(root, lab_id, outcomes)
    return outcomes


def progress_bar(console=None):
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=console, transient=False)


def read_scores(root: Path, lab_id: str, outcomes: list[Outcome]) -> None:
    """Fill each outcome's scores from nbgrader's gradebook: the record, not our logs."""
    from nbgrader.api import Gradebook, MissingEntry

    course_id = (Path(root) / build.STATE / build.COURSE_ID_FILE).read_text().strip()
    db = f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"
    with Gradebook(db, course_id) as gb:
        for out in outcomes:
            try:
                sub = gb.find_submission(lab_id, out.student)
            except MissingEntry:
                continue
            if out.status != "graded":
                _zero(gb, sub)  # no stale marks from an earlier run for an unfinished one
            out.score, out.max_score = sub.score, sub.max_score
            for nb in sub.notebooks:
                for grade in nb.grades:
                    out.scores[grade.name] = (grade.score, grade.max_score)


def _zero(gb, sub) -> None:
    for nb in sub.notebooks:
        for grade in nb.grades:
            grade.auto_score, grade.needs_manual_grade = 0.0, True
    gb.db.commit()


def autograde(root: Path, lab_id: str, device: str, gpus: int | None = None,
              limit: float = DEFAULT_LIMIT, console=None) -> list[Outcome]:
    root = Path(root).resolve()
    who = check_course(root, lab_id)
    slots: queue.Queue = queue.Queue()
    for slot in gpu_slots(device, gpus):
        slots.put(slot)
    with progress_bar(console) as progress:
        if device == "gpu":
            prime_references(lab_id, progress)
        task = progress.add_task(f"autograde {lab_id} ({device})", total=len(who))
        running: set[str] = set()

        servers: dict = {}  # a task server per slot, started on its first task
        waiting = [len(who)]  # not yet handed to a slot
        lock = threading.Lock()

        def job(student: str) -> Outcome:
            slot = slots.get()
            with lock:
                waiting[0] -= 1
                more = waiting[0] > 0
            running.add(student)
            progress.update(task, description=f"autograde {lab_id}: {', '.join(sorted(running))}")
            try:
                if os.environ.get("TCLAB_TASK_SERVER", "1") != "0" and (
                        slot not in servers or not servers[slot].alive()):
                    servers[slot] = TaskServer(root, device, slot)
                return run_one(root, lab_id, student, device, slot, limit, servers.get(slot),
                               more)
            finally:
                running.discard(student)
                slots.put(slot)
                progress.advance(task)

        try:
            with ThreadPoolExecutor(max_workers=slots.qsize()) as pool:
                list(pool.map(job, who))
        finally:
            for server in servers.values():
                server.close()
        progress.update(task, description=f"autograde {lab_id} ({device}): done")
    return finish(root, lab_id, who, console)


def prime_references(lab_id: str, progress) -> None:
    """The references' profiles (the perf feedback's yardstick), made here once per machine
    and lab before the first task, alone on the GPU, instead of inside the first
    submission's checks; a reference that cannot be profiled is said, and grading goes on
    (its checks' advice then stands without it)."""
    from grader.lab import manifest
    from grader.pipeline import profiling

    todo = profiling.unprimed(manifest.get(lab_id))
    if not todo:
        return
    task = progress.add_task(f"profile {lab_id}'s references (once per machine)",
                             total=len(todo))
    for ex, impl in todo:
        why = profiling.prime(ex, impl)
        if why is not None:
            progress.console.print(f"{ex.key} {impl}: the reference was not profiled: {why}")
        progress.advance(task)


def check_course(root: Path, lab_id: str) -> list[str]:
    """The students who handed `lab_id` in, once the course is ready to grade it."""
    if not (root / "nbgrader_config.py").exists():
        raise AutogradeError(f"{root}: no nbgrader_config.py; run `tclab course build {root}`")
    if not (root / "release" / lab_id).is_dir():
        raise AutogradeError(f"{lab_id} was never released here: run `nbgrader "
                             f"generate_assignment {lab_id}` in {root} first")
    who = students(root, lab_id)
    if not who:
        raise AutogradeError(f"no submissions of {lab_id}: expected {root}/submitted/STUDENT/"
                             f"{lab_id}/{lab_id}.ipynb (`nbgrader collect {lab_id}` puts "
                             "them there)")
    return who


def unsandboxed(outcomes: list[Outcome]) -> str:
    """Why some submission's code ran outside the sandbox ("" where every one ran inside)."""
    return next((g["unsandboxed"] for o in outcomes for g in o.verdicts
                 if g.get("unsandboxed")), "")


def table(lab_id: str, outcomes: list[Outcome], device: str):
    from rich.table import Table

    cells = sorted({name for o in outcomes for name in o.scores},
                   key=lambda n: (not n.startswith("test_"), n))
    # Perf is graded on a GPU only: on the CPU every perf cell scores 0, and says why.
    no_gpu = device != "gpu"
    t = Table(title=f"{lab_id}: scores from the nbgrader gradebook ({device})",
              caption="perf: 0 without a GPU (perf is graded on a GPU only)" if no_gpu and
              any(c.startswith("perf_") for c in cells) else None)
    t.add_column("student", no_wrap=True)
    t.add_column("result", no_wrap=True)  # why a submission failed is printed below the table
    t.add_column("score", no_wrap=True, justify="right")
    for cell in cells:  # test_triton → "triton", perf_triton → "perf triton" (may wrap)
        t.add_column(cell.removeprefix("test_").replace("_", " "), justify="right", min_width=5)
    t.add_column("seconds", no_wrap=True, justify="right")
    for o in outcomes:
        result = o.status if not o.problems else f"{o.status}, {len(o.problems)} problem(s)"
        score = "-" if o.score is None else f"{o.score:g}/{o.max_score:g}"
        per_cell = [f"{o.scores[c][0]:g}/{o.scores[c][1]:g}"
                    + (" (no GPU)" if no_gpu and c.startswith("perf_") else "")
                    if c in o.scores and o.scores[c][0] is not None else "-" for c in cells]
        t.add_row(o.student, result, score, *per_cell, f"{o.seconds:.0f}")
    return t
