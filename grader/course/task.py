"""One submission of one lab, graded without writing the course's gradebook.

    python -m grader.course.task DIR LAB STUDENT [--device auto|cpu|gpu] [--limit SECONDS]
    python -m grader.course.task --serve      (a task server: see `serve`)

`tclab course autograde` starts one per submission: a subprocess per GPU of this machine
(`--gpus`), or one task of a Slurm job array (`--slurm`), on the GPU it was given
(CUDA_VISIBLE_DEVICES as set). nbgrader autograde runs here, in this process, against a
private copy of the gradebook, and writes its notebook under DIR/.tclab/staged/. The regrade's
untimed checks (correctness, memcheck) start before nbgrader executes the notebook and run
beside it; its perf checks run after the notebook's kernel is gone, alone on the GPU.

    DIR/.tclab/outcomes/LAB/STUDENT.json       the Outcome: status, verdicts, wall times
    DIR/.tclab/staged/STUDENT/LAB/LAB.ipynb    the graded notebook, for `autograde.finish()`

This process's output is the submission's log. It exits 0 once the outcome is written,
whatever the verdict. Only `autograde.finish()`, in one process, writes the gradebook.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import os
import sqlite3
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from grader.backends import device as dev
from grader.course import autograde as ag
from grader.execution import runner
from grader.judge.verdict import Grade
from grader.lab import cases, manifest, submission
from grader.pipeline import grading

# The reference's times serve every submission graded on the same GPU within this many
# seconds (grading.REFERENCE_MAX_AGE_ENV; TCLAB_REFERENCE_MAX_AGE=0 measures it per check).
REFERENCE_MAX_AGE = 600.0
WARM_ENV = "TCLAB_WARM_SERVERS"  # "0": a task server starts no worker processes ahead


def _private_gradebook(root: Path, student: str, lab_id: str) -> Path:
    """A copy of the gradebook for this task's nbgrader to write (and then be deleted)."""
    path = root / ag.STAGED / student / f".gradebook-{lab_id}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{root / 'gradebook.db'}?mode=ro", uri=True)
    dst = sqlite3.connect(path)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    return path


def _watchdog(limit: float, path: Path, out: ag.Outcome, started: float) -> None:
    """At the limit: the outcome says killed, everything this task started is killed, and
    the task exits (a thread: the grading itself may be stuck anywhere)."""
    def fire():
        out.status, out.note = "killed", f"killed after {limit:g} s (the limit)"
        out.seconds = round(time.monotonic() - started, 1)
        ag.write_outcome(path, out)
        print(f"tclab task: {out.note}", flush=True)
        ag.kill_family(os.getpid())
        os._exit(0)

    timer = threading.Timer(limit, fire)
    timer.daemon = True
    timer.start()


def grade(root: Path, lab_id: str, student: str, device: str,
          limit: float = ag.DEFAULT_LIMIT) -> ag.Outcome:
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    from grader.course import regrade

    started = time.monotonic()
    out = ag.Outcome(student)
    path = ag.outcome_path(root, lab_id, student)
    path.unlink(missing_ok=True)
    _watchdog(limit, path, out, started)
    lab = manifest.get(lab_id)
    try:  # nbgrader would stop on it with a traceback: say what is wrong in one line instead
        nb = submission.read_notebook(root / "submitted" / student / lab_id / lab.notebook_name)
    except submission.SubmissionError as exc:
        out.status, out.note = "unreadable", str(exc)
        print(f"not graded: {exc}", flush=True)
        return out
    os.environ["TCLAB_DEVICE"] = device  # the regrade and the notebook's kernel read it
    os.environ.setdefault(grading.REFERENCE_MAX_AGE_ENV, f"{REFERENCE_MAX_AGE:g}")
    private = _private_gradebook(root, student, lab_id)
    config = ag.load_config(root, **{"CourseDirectory.db_url": f"sqlite:///{private}",
                                  "CourseDirectory.autograded_directory": ag.STAGED,
                                  "CourseDirectory.root": str(root)})
    rg = regrade.Regrade(config=config)
    parts = [p for p in grading.plan(lab, nb, lab.id, device) if not isinstance(p, Grade)]
    wall = {}
    with cases.using_secret(rg.secret()), runner.session(), \
            ThreadPoolExecutor(max_workers=1) as early:
        # The untimed checks of the submitted cells, beside nbgrader's execution of the
        # notebook; the regrade uses them where its (sanitized) cells are the same.
        context = contextvars.copy_context()
        regrade.AHEAD[(lab.id, student)] = early.submit(
            context.run, grading.untimed_many, parts, device, True, rg.timeout or None)
        wall["setup"] = round(time.monotonic() - started, 2)
        begun = time.monotonic()
        api = NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)
        result = api.autograde(lab_id, student, force=True, create=True)
        wall["nbgrader"] = round(time.monotonic() - begun, 2)
        regrade.AHEAD.pop((lab.id, student), None)
    private.unlink(missing_ok=True)
    print(result.get("log", ""), flush=True)
    if result.get("success"):
        out.status = "graded"
    else:
        out.status = "failed"
        error = (result.get("error") or "").strip()
        print(error, flush=True)
        out.note = ag.error_line(f"{result.get('log', '')}\n{error}") or \
            "nbgrader autograde failed (see the log)"
    verdicts = Path(rg.verdict_dir) / lab_id / f"{student}.json" if rg.verdict_dir else None
    if verdicts is not None and verdicts.exists():
        saved = json.loads(verdicts.read_text())
        out.verdicts = saved["grades"]
        wall.update(saved.get("wall", {}))
    out.wall = {**wall, **check_walls(out.verdicts)}
    out.seconds = round(time.monotonic() - started, 1)
    return out


def check_walls(verdicts: list[dict]) -> dict:
    """Seconds per kind of check, summed over the exercises and implementations."""
    total: dict[str, float] = {}
    for g in verdicts:
        for step, seconds in g.get("wall", {}).items():
            total[step] = round(total.get(step, 0.0) + seconds, 2)
    return {f"{step} (sum)": s for step, s in total.items()}


def _since_start() -> float:
    """Seconds since this process started (the interpreter and its imports included)."""
    import psutil

    return time.time() - psutil.Process().create_time()


def _created(pid: int) -> float | None:
    """The start time of our child `pid` (unreaped: its pid is still its own), by which the
    parent's backstop tells it from a later process given the same pid."""
    import psutil

    try:
        return psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return None


def serve() -> None:
    """`python -m grader.course.task --serve`: a task server, one per GPU slot of `tclab course
    autograde`. It imports what a task needs (torch, nbgrader, the grader: seconds) once, then
    for each request line on stdin, {"argv": [task arguments], "log": path, "append": bool},
    forks a child that runs the task as `main(argv)` would in a fresh process, with its output
    in the log; it answers {"pid": child, "created": its start time} at once and
    {"rc": exit code} once the child has ended. It makes no CUDA call itself: every child
    starts from the same clean state."""
    from nbgrader.apps import NbGraderAPI  # noqa: F401 - imported once, for every child
    from nbgrader.coursedir import CourseDirectory  # noqa: F401

    from grader.course import regrade  # noqa: F401

    warm = runner.Warm()  # the next task's processes, started while this one runs
    try:
        for line in sys.stdin:
            warm = _serve_one(json.loads(line), warm)
    finally:
        runner.reap(warm)


def _warm(request: dict) -> runner.Warm:
    """The processes the task after `request`'s will use, started now if one is to come (the
    request's "more"; `TCLAB_WARM_SERVERS=0`: never): a worker server per implementation its
    lab grades and, on a GPU, a process for each memcheck run of the lab
    (`grading.memcheck_runs`: 9-11 s of imports each under compute-sanitizer on an H200
    machine, the last of the untimed checks to end when started on request) and for each
    profile (`profiling.warm_runs`). From this
    process's main thread, which outlives them (see runner.Session)."""
    # TCLAB_DEVICE is set by the autograde: asking torch would start CUDA in this process.
    device = os.environ.get("TCLAB_DEVICE")
    if not (request.get("more", True) and os.environ.get(WARM_ENV, "1") != "0"
            and device in ("gpu", "cpu")):
        return runner.Warm()
    try:
        lab = manifest.get(request["argv"][1])
    except (IndexError, manifest.ManifestError):
        return runner.Warm()
    roles = list(dict.fromkeys(impl for ex in lab.exercises for impl in ex.impls))
    if device != "gpu":
        return runner.prestart(device, roles)
    from grader.pipeline import profiling

    return runner.prestart(device, roles, grading.memcheck_runs(lab) + profiling.warm_runs(lab))


def _serve_one(request: dict, warm: runner.Warm) -> runner.Warm:
    """Fork the task of `request`, handing it `warm` (`runner.adopt`); start the next task's
    processes meanwhile (`_warm`); once the task has ended, kill what is left of those it
    held. Returns the next task's."""
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            runner.adopt(warm)
            os.setsid()  # a session of its own: the parent's backstop kills its family
            flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if request["append"] else
                                                 os.O_TRUNC)
            log = os.open(request["log"], flags, 0o644)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log, 1)
            os.dup2(log, 2)
            code = main(request["argv"])
        except BaseException:  # noqa: BLE001 - its log says what happened
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    held, warm = warm, runner.Warm()
    runner.forget(held)
    print(json.dumps({"pid": pid, "created": _created(pid)}), flush=True)
    try:
        warm = _warm(request)
    finally:
        _, status = os.waitpid(pid, 0)
        runner.reap(held)
    print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)
    return warm


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.course.task", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dir")
    p.add_argument("lab")
    p.add_argument("student")
    p.add_argument("--device", choices=dev.CHOICES, default=None)
    p.add_argument("--limit", type=float, default=ag.DEFAULT_LIMIT)
    args = p.parse_args(argv)
    root = Path(args.dir).resolve()
    lab_id = manifest.get(args.lab).id
    began = time.monotonic()
    device = dev.resolve(args.device)
    dev.use(device)
    os.chdir(root)  # as `nbgrader autograde` is run: from the course directory
    out = grade(root, lab_id, args.student, device, args.limit)
    out.wall = {"start-up": round(_since_start() - (time.monotonic() - began), 2), **out.wall}
    ag.write_outcome(ag.outcome_path(root, lab_id, args.student), out)
    print(f"tclab task: {args.student} {lab_id}: {out.status} after {out.seconds:g} s",
          flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        sys.exit(main())
