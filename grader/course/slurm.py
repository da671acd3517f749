"""`tclab course autograde DIR LAB --slurm`: every submission as one task of one Slurm job array.

    DIR/.tclab/slurm/LAB/job.sh, students.txt    the array: task i grades line i+1
    DIR/.tclab/slurm/LAB/retry.sh, retry.txt     once, for tasks that ended without a result
    DIR/.tclab/slurm/LAB/JOB_TASK.out            each task's Slurm output

Each task runs `python -m grader.course.task DIR LAB STUDENT` (`autograde.task_command`, as
the local workers do), which grades one submission, writes its verdict to
DIR/.tclab/outcomes/LAB/STUDENT.json and its output to DIR/.tclab/logs/LAB/STUDENT.log; it
never writes the gradebook, so tasks on many nodes never contend for it. This process submits
the array, waits for it (a progress bar counts the verdict files), submits once more the
tasks that ended without one (a crashed node), and then imports every verdict into the
gradebook itself (`autograde.finish`). DIR must be on a filesystem the compute nodes share.

On a GPU, each task asks for `--gpus-per-task` GPUs and uses whatever Slurm gives it
(`CUDA_VISIBLE_DEVICES` as set by Slurm, devices fenced by `ConstrainDevices`): nothing
here picks a GPU. This module calls `sbatch`, `squeue`, `scancel` (and `sacct` where the
cluster keeps accounting) directly: a job array is a few `#SBATCH` lines, and a Python
wrapper such as submitit would be one more dependency for them.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader.backends import device as dev
from grader.course import autograde, build

POLL = 3.0  # seconds between two looks at the queue
SLACK_MINUTES = 5  # Slurm's --time over the grading limit: start-up, and the verdict written
# after the task's own limit has killed the grading. Slurm's limit is only the backstop.
NOT_IN_QUEUE = "Invalid job id"  # squeue, once a finished job has left the controller


class SlurmError(autograde.AutogradeError):
    pass


@dataclass
class Array:
    """One submitted job array: its id and the students of its tasks, in task order."""
    job: str
    students: list[str]
    output: Path  # the folder of the tasks' Slurm output files

    def task(self, student: str) -> str:
        return f"{self.job}_{self.students.index(student)}"

    def output_of(self, student: str) -> Path:
        return self.output / f"{self.task(student)}.out"


def resolve_device(choice: str | None) -> str:
    """As everywhere, but `gpu` is taken at its word: the GPUs are on the compute nodes, and
    a task asked to grade on one that has none says so in its verdict."""
    if (choice or os.environ.get("TCLAB_DEVICE") or "").lower() == "gpu":
        return "gpu"
    return dev.resolve(choice)


def folder(root: Path, lab_id: str) -> Path:
    return Path(root) / build.STATE / "slurm" / lab_id


def time_minutes(limit: float) -> int:
    return math.ceil(limit / 60) + SLACK_MINUTES


def script(root: Path, lab_id: str, list_file: Path, n_tasks: int, device: str,
           limit: float, partition: str | None = None, gpus_per_task: int = 1,
           max_concurrent: int | None = None) -> str:
    """The sbatch script of one array: task i grades the student on line i+1 of list_file."""
    root = Path(root)
    throttle = f"%{max_concurrent}" if max_concurrent else ""
    options = [f"--job-name=tclab-{lab_id}", f"--array=0-{n_tasks - 1}{throttle}",
               "--ntasks=1", f"--time={time_minutes(limit)}", f"--chdir={root}",
               f"--output={folder(root, lab_id)}/%A_%a.out"]
    if partition:
        options.append(f"--partition={partition}")
    if device == "gpu":
        options.append(f"--gpus-per-task={gpus_per_task}")
    env = {"TCLAB_DEVICE": device, "PYTHONUNBUFFERED": "1"}  # as autograde.nbgrader_env
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    student = "$student"  # the task's name in the script: each task reads its own
    task = " ".join(f'"{student}"' if a == student else shlex.quote(a)
                    for a in autograde.task_command(root, lab_id, student, device, limit))
    logs = autograde.log_path(root, lab_id, student).parent
    log = f'{shlex.quote(str(logs))}/"{student}".log'
    return "\n".join([
        "#!/bin/bash",
        f"# `tclab course autograde {root} {lab_id} --slurm`: task i grades line i+1 of the list",
        *(f"#SBATCH {shlex.quote(o)}" for o in options),
        "set -euo pipefail",
        *(f"export {k}={shlex.quote(v)}" for k, v in env.items()),
        # our Python's bin/ first, as autograde.nbgrader_env: nbgrader runs `alembic` from PATH
        f'export PATH={shlex.quote(str(Path(sys.executable).parent))}:"$PATH"',
        f"mapfile -t students < {shlex.quote(str(list_file))}",
        'student="${students[$SLURM_ARRAY_TASK_ID]}"',
        'echo "tclab: $student on $(hostname) (CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-})"',
        f"exec {task} >> {log} 2>&1",
        ""])


def write_script(root: Path, lab_id: str, students: list[str], device: str, limit: float,
                 name: str = "job", list_name: str = "students", **options) -> Path:
    out = folder(root, lab_id)
    out.mkdir(parents=True, exist_ok=True)
    autograde.log_path(root, lab_id, "any").parent.mkdir(parents=True, exist_ok=True)
    list_file = out / f"{list_name}.txt"
    list_file.write_text("".join(f"{s}\n" for s in students))
    path = out / f"{name}.sh"
    path.write_text(script(root, lab_id, list_file, len(students), device, limit, **options))
    return path


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    if shutil.which(cmd[0]) is None:
        raise SlurmError(f"{cmd[0]} not found on PATH: --slurm runs where Slurm's commands "
                         "do (a login node of the cluster)")
    return subprocess.run(cmd, capture_output=True, text=True)


def submit(path: Path, students: list[str]) -> Array:
    proc = _run(["sbatch", "--parsable", str(path)])
    if proc.returncode != 0:
        said = " ".join(proc.stderr.split()) or f"exit {proc.returncode}"
        raise SlurmError(f"sbatch refused {path}: {said}")
    job = proc.stdout.strip().split(";")[0]  # "JOB" or "JOB;CLUSTER"
    return Array(job, students, path.parent)


def queued(job: str) -> list[str] | None:
    """The states of the array's tasks still in the queue; None when squeue cannot say."""
    proc = _run(["squeue", "-h", "-r", "-j", job, "-o", "%T"])  # -r: a line per task
    if proc.returncode != 0:
        return [] if NOT_IN_QUEUE in proc.stderr else None
    return proc.stdout.split()


def ended_as(task: str) -> str:
    """How a task ended, from Slurm's accounting ('' where the cluster keeps none)."""
    if shutil.which("sacct") is None:
        return ""
    proc = subprocess.run(["sacct", "-n", "-X", "-P", "-j", task, "-o", "State"],
                          capture_output=True, text=True)
    states = proc.stdout.split() if proc.returncode == 0 else []
    return states[-1] if states else ""


def cancel(arrays: list[Array], console) -> None:
    jobs = [a.job for a in arrays]
    proc = subprocess.run(["scancel", *jobs], capture_output=True, text=True)
    if proc.returncode != 0:
        console.print(f"scancel {' '.join(jobs)} failed: {' '.join(proc.stderr.split())}; "
                      "cancel it by hand", markup=False)
        return
    console.print(f"cancelled Slurm job {', '.join(jobs)} (scancel); nothing was imported "
                  "into the gradebook", markup=False)


def _wait(root: Path, lab_id: str, array: Array, progress, bar, total: list[str]) -> None:
    """Until no task of the array is left in the queue, counting verdict files as we go."""
    while True:
        states = queued(array.job)
        done = sum(autograde.outcome_path(root, lab_id, s).exists() for s in total)
        if states is None:
            what = "squeue did not answer"
        else:
            what = ", ".join(f"{states.count(s)} {s.lower()}" for s in sorted(set(states)))
        progress.update(bar, completed=done,
                        description=f"slurm {array.job} {lab_id}: {what or 'done'}")
        if states == []:
            return
        time.sleep(POLL)


def autograde_slurm(root: Path, lab_id: str, device: str, limit: float = autograde.DEFAULT_LIMIT,
                    partition: str | None = None, gpus_per_task: int = 1,
                    max_concurrent: int | None = None, console=None) -> list[autograde.Outcome]:
    from rich.console import Console

    console = console or Console()
    root = Path(root).resolve()
    who = autograde.check_course(root, lab_id)
    for student in who:  # a verdict or log left by an earlier run is not this run's
        autograde.outcome_path(root, lab_id, student).unlink(missing_ok=True)
        autograde.log_path(root, lab_id, student).unlink(missing_ok=True)
    options = dict(partition=partition, gpus_per_task=gpus_per_task,
                   max_concurrent=max_concurrent)
    arrays = [submit(write_script(root, lab_id, who, device, limit, **options), who)]
    console.print(f"submitted Slurm job array {arrays[0].job}: {len(who)} task(s), "
                  f"script {folder(root, lab_id) / 'job.sh'}", markup=False)
    try:
        with autograde.progress_bar(console) as progress:
            bar = progress.add_task(f"slurm {arrays[0].job} {lab_id}", total=len(who))
            _wait(root, lab_id, arrays[0], progress, bar, who)
            lost = [s for s in who if not autograde.outcome_path(root, lab_id, s).exists()]
            if lost:
                progress.console.print(f"{len(lost)} task(s) ended without a verdict "
                                       f"({', '.join(lost)}): submitting them once more")
                path = write_script(root, lab_id, lost, device, limit, name="retry",
                                    list_name="retry", **options)
                arrays.append(submit(path, lost))
                _wait(root, lab_id, arrays[1], progress, bar, who)
    except KeyboardInterrupt:
        cancel(arrays, console)
        raise
    outcomes = autograde.finish(root, lab_id, who, console=console)
    for out in outcomes:
        if not autograde.outcome_path(root, lab_id, out.student).exists():
            last = arrays[-1] if out.student in arrays[-1].students else arrays[0]
            state = ended_as(last.task(out.student))
            out.note = (f"no result from Slurm task {last.task(out.student)}"
                        f"{f' ({state})' if state else ''}, submitted {len(arrays)} time(s); "
                        f"Slurm's output: {last.output_of(out.student)}")
    return outcomes

