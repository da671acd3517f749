"""`tclab course autograde DIR LAB`: every submission of one lab, one worker per GPU.

Each submission is one `nbgrader autograde LAB --student S --force` process: nbgrader keeps
its gradebook as the record, our config makes the scores come from the out-of-kernel
regrade, and a process per submission gives each its own wall-clock limit and device
(`CUDA_VISIBLE_DEVICES`). Logs go to DIR/.tclab/logs/LAB/S.log; scores are read back from
nbgrader's gradebook.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader import submission
from grader.course import build

DEFAULT_LIMIT = 1800.0  # seconds per submission; every check inside has its own timeout too
LOCKED_DB = "database is locked"  # SQLite under concurrent writers: worth one more try
RETRIES = 2


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

    @property
    def problems(self) -> list[str]:
        """What an instructor must look at: cells that could not be graded as handed in."""
        return [f"{g['exercise']} {g['impl']}: {g['reason']}" for g in self.verdicts
                if g["status"] in ("missing", "unreadable")]

    def to_dict(self) -> dict:
        return {"student": self.student, "status": self.status, "note": self.note,
                "seconds": self.seconds, "score": self.score, "max_score": self.max_score,
                "scores": {k: list(v) for k, v in self.scores.items()},
                "problems": self.problems, "verdicts": self.verdicts,
                "log": str(self.log) if self.log else None}


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


def _kill_tree(proc: subprocess.Popen) -> None:
    """nbgrader, its kernel and the check subprocesses (which run in sessions of their own)."""
    import psutil

    try:
        family = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        family = []
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    for p in family:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    proc.wait()


def run_one(root: Path, lab_id: str, student: str, device: str, gpu: str | None,
            limit: float) -> Outcome:
    out = Outcome(student)
    log_dir = Path(root) / build.STATE / "logs" / lab_id
    log_dir.mkdir(parents=True, exist_ok=True)
    out.log = log_dir / f"{student}.log"
    env = nbgrader_env({"TCLAB_DEVICE": device})
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    cmd = [sys.executable, "-m", "nbgrader", "autograde", lab_id, "--student", student,
           "--force"]
    started = time.monotonic()
    verdicts = Path(root) / build.STATE / "verdicts" / lab_id / f"{student}.json"
    verdicts.unlink(missing_ok=True)
    try:  # nbgrader would stop on it with a traceback: say what is wrong in one line instead
        submission.read_notebook(Path(root) / "submitted" / student / lab_id /
                                 f"{lab_id}.ipynb")
    except submission.SubmissionError as exc:
        out.status, out.note = "unreadable", str(exc)
        out.log.write_text(f"not graded: {exc}\n")
        return out
    for _attempt in range(RETRIES + 1):
        with open(out.log, "w") as log:
            proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            try:
                rc = proc.wait(timeout=max(1.0, limit - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                _kill_tree(proc)
                out.status, out.note = "killed", f"killed after {limit:g} s (the limit)"
                break
        text = out.log.read_text(errors="replace")
        if rc == 0:
            out.status = "graded"
            break
        out.status = "failed"
        out.note = _error_line(text) or f"nbgrader exited {rc}"
        if LOCKED_DB not in text:
            break
    out.seconds = round(time.monotonic() - started, 1)
    if verdicts.exists():
        out.verdicts = json.loads(verdicts.read_text())
    return out


def write_results(root: Path, lab_id: str, outcomes: list[Outcome], device: str) -> Path:
    """Every submission's outcome, scores and verdicts: DIR/results/LAB.json."""
    path = Path(root) / "results" / f"{lab_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"lab": lab_id, "device": device,
                                "submissions": [o.to_dict() for o in outcomes]}, indent=1))
    return path


def _error_line(text: str) -> str:
    """The exception nbgrader logged (its own last ERROR line only says 'see above')."""
    lines = [s.strip() for s in text.splitlines()]
    raised = [s for s in lines if re.match(r"^[\w.]+(Error|Exception|Exit): ", s)]
    if raised:
        return raised[-1]
    errors = [s.split("]", 1)[-1].strip() for s in lines if "| ERROR]" in s]
    return errors[0] if errors else ""


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    root = Path(root).resolve()
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
    slots: queue.Queue = queue.Queue()
    for slot in gpu_slots(device, gpus):
        slots.put(slot)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(f"autograde {lab_id} ({device})", total=len(who))
        running: set[str] = set()

        def job(student: str) -> Outcome:
            slot = slots.get()
            running.add(student)
            progress.update(task, description=f"autograde {lab_id}: {', '.join(sorted(running))}")
            try:
                return run_one(root, lab_id, student, device, slot, limit)
            finally:
                running.discard(student)
                slots.put(slot)
                progress.advance(task)

        with ThreadPoolExecutor(max_workers=slots.qsize()) as pool:
            outcomes = list(pool.map(job, who))
        progress.update(task, description=f"autograde {lab_id} ({device}): done")
    read_scores(root, lab_id, outcomes)
    return outcomes


def table(lab_id: str, outcomes: list[Outcome], device: str):
    from rich.table import Table

    cells = sorted({name for o in outcomes for name in o.scores},
                   key=lambda n: (not n.startswith("test_"), n))
    t = Table(title=f"{lab_id}: scores from the nbgrader gradebook ({device})")
    t.add_column("student", no_wrap=True)
    t.add_column("result", no_wrap=True)  # why a submission failed is printed below the table
    t.add_column("score", no_wrap=True, justify="right")
    for cell in cells:  # test_triton → "triton", perf_triton → "perf triton" (may wrap)
        t.add_column(cell.removeprefix("test_").replace("_", " "), justify="right", min_width=5)
    t.add_column("seconds", no_wrap=True, justify="right")
    for o in outcomes:
        result = o.status if not o.problems else f"{o.status}, {len(o.problems)} problem(s)"
        score = "-" if o.score is None else f"{o.score:g}/{o.max_score:g}"
        per_cell = [f"{o.scores[c][0]:g}/{o.scores[c][1]:g}" if c in o.scores and
                    o.scores[c][0] is not None else "-" for c in cells]
        t.add_row(o.student, result, score, *per_cell, f"{o.seconds:.0f}")
    return t
