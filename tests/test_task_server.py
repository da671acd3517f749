"""The task server (`python -m grader.course.task --serve`): each submission's task a fork of
a process that has imported torch, nbgrader and the grader once; the same outcome as a task
of its own, a backstop kill that takes the task's family and leaves the server serving, and a
server that dies costing a retry, not a verdict."""

from __future__ import annotations

import pytest
from course_cases import students  # tests/ is on sys.path under pytest
from course_cases.course import copy_course

from grader.course import autograde
from grader.lab import manifest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("course")]  # test_course's course
LAB = students.LAB01


def test_a_forked_task_grades_as_a_task_of_its_own_without_the_start_up(graded, tmp_path):
    root = copy_course(graded, tmp_path)
    server = autograde.TaskServer(root, "cpu", None)
    try:
        out = autograde.run_one(root, LAB, "solution", "cpu", None, 600, server)
    finally:
        server.close()
    assert out.status == "graded", out
    assert out.wall["start-up"] < 1.0, out.wall  # forked: its imports were the server's
    (final,) = autograde.finish(root, LAB, ["solution"])
    points = manifest.get(LAB).exercise().points
    for impl in ("triton", "cuda"):
        assert final.scores[f"test_{impl}"] == (points[impl], points[impl]), final.scores


def test_a_task_over_the_backstop_is_killed_and_the_server_serves_on(graded, tmp_path):
    import psutil

    root = copy_course(graded, tmp_path)
    server = autograde.TaskServer(root, "cpu", None)
    try:
        argv = autograde.task_command(root, LAB, "solution", "cpu", 600)[3:]
        log = tmp_path / "killed.log"
        assert server.run(argv, log, False, timeout=3) is None
        server_proc = psutil.Process(server.proc.pid)
        left = [c for c in server_proc.children(recursive=True)
                if "--serve" not in " ".join(c.cmdline())]  # not the next task's servers
        assert left == [], "the task's family outlived it"
        assert server.alive()
        # the next task, any task (a stub: the quickest to grade) is served by the same server
        out = autograde.run_one(root, LAB, "stub", "cpu", None, 600, server)
        assert out.status == "graded", out
    finally:
        server.close()
    assert not server.alive()


@pytest.mark.parametrize("warm", ["1", "0"])
def test_the_next_task_finds_its_worker_servers_started(graded, tmp_path, monkeypatch, warm):
    """While a task runs, the task server starts the next task's worker servers (their
    imports, seconds, out of its way); the next task adopts them, grades as before, and
    leaves none behind; after the last task none are started. TCLAB_WARM_SERVERS=0 (the
    control): none ever are."""
    import psutil

    def workers():
        return [c for c in psutil.Process(server.proc.pid).children()
                if "grader.execution.worker" in " ".join(c.cmdline())]

    monkeypatch.setenv("TCLAB_TRACE", "1")
    monkeypatch.setenv("TCLAB_WARM_SERVERS", warm)
    root = copy_course(graded, tmp_path)
    server = autograde.TaskServer(root, "cpu", None)
    try:  # the first task only has to run while the next one's servers start: a stub will
        first = autograde.run_one(root, LAB, "stub", "cpu", None, 600, server, more=True)
        logs, ahead = [first.log.read_text()], len(workers())  # the same log path: read it now
        second = autograde.run_one(root, LAB, "solution", "cpu", None, 600, server, more=False)
        logs.append(second.log.read_text())
        left = len(workers())
    finally:
        server.close()
    assert first.status == second.status == "graded", (first, second)
    adopted = ["adopted 2 worker servers" in log for log in logs]
    assert adopted == [False, warm == "1"], adopted
    assert (ahead, left) == (2 if warm == "1" else 0, 0)  # the second's, then none
    (final,) = autograde.finish(root, LAB, ["solution"])
    points = manifest.get(LAB).exercise().points
    for impl in ("triton", "cuda"):
        assert final.scores[f"test_{impl}"] == (points[impl], points[impl]), final.scores


def test_a_server_that_dies_costs_a_retry_in_a_process_of_its_own(graded, tmp_path):
    root = copy_course(graded, tmp_path)
    server = autograde.TaskServer(root, "cpu", None)
    server.proc.kill()
    server.proc.wait()
    out = autograde.run_one(root, LAB, "stub", "cpu", None, 600, server)  # quickest to grade
    assert out.status == "graded", out
    assert out.wall["start-up"] > 1.0, out.wall  # not forked: it imported for itself


def test_the_backstop_kills_only_the_process_it_started():
    """A task's pid, once the task has ended and been reaped, may name a later process: the
    backstop compares start times and leaves such a process alone."""
    import subprocess
    import sys

    import psutil

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        created = psutil.Process(proc.pid).create_time()
        autograde.kill_family(proc.pid, itself=True, created=created - 5.0)  # another's pid
        assert proc.poll() is None, "a process that is not the task's was killed"
        autograde.kill_family(proc.pid, itself=True, created=created)  # the task itself
        assert proc.wait(timeout=10) != 0
    finally:
        proc.kill()
        proc.wait()
