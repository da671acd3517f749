"""A grading task whose node crashes: the Slurm task ends and leaves no verdict file.

    # status: crashes_once_* dies on its first attempt only, then is graded as usual
    # status: crashes_always_* dies on every attempt: resubmitted once, then "failed"
    # reason: no result from Slurm task

Run as `python -m course_cases.crashing_task DIR LAB STUDENT [...]` in place of the real task
(the arguments are the same). Each attempt leaves DIR/.tclab/attempts/STUDENT.N, so a test can
count them. A student it lets through is graded by the real task.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

REAL_TASK = "grader.course.task"


def main() -> None:
    root, student = Path(sys.argv[1]), sys.argv[3]
    attempts = root / ".tclab" / "attempts"
    attempts.mkdir(parents=True, exist_ok=True)
    n = len(list(attempts.glob(f"{student}.*"))) + 1
    (attempts / f"{student}.{n}").touch()
    if student.startswith("crashes_always") or (student.startswith("crashes_once") and n == 1):
        print(f"{student}: attempt {n}: the node goes down", flush=True)
        os._exit(1)  # no verdict file, no clean-up: as a lost node leaves it
    runpy.run_module(REAL_TASK, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
