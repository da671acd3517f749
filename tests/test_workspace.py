"""The student's working copy (`python -m grader.lab.workspace`, `make lab`): made from the release,
never written over, told of a release that changed; and the student path writes no tracked
file.

The copy's tests run `workspace.sync` on a copy of exercises/ in `tmp_path`; the student path
runs in a clone of the repository, in subprocesses whose project root (`TCLAB_ROOT`) is the
clone and whose `grader` is this checkout's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from course_cases.students import solution  # tests/ is on sys.path under pytest

from grader.base import paths
from grader.lab import manifest, release, workspace

CHECKOUT = Path(workspace.__file__).resolve().parents[2]
WORK = "# MY WORK: a kernel I wrote"
LAB01 = "lab01_vector_add/lab01_vector_add.ipynb"


@pytest.fixture
def trees(tmp_path):
    """A copy of exercises/ as the release, and where the workspace goes."""
    ex = tmp_path / "exercises"
    shutil.copytree(paths.EXERCISES, ex)
    return ex, tmp_path / "workspace"


def _edit(path: Path) -> bytes:
    nb = json.loads(path.read_text())
    nb["cells"][0]["source"] = [WORK + "\n"]
    path.write_text(json.dumps(nb, indent=1))
    return path.read_bytes()


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and p.name != workspace.RECORD}


def test_first_use_copies_the_release(trees):
    ex, ws = trees
    lines = workspace.sync(ex, ws)
    assert _files(ws) == _files(ex) and len(_files(ex)) == len(manifest.registry())
    assert lines == [f"{ws}/: made from {ex}/, {len(manifest.registry())} labs"]


def test_second_use_keeps_an_edited_copy(trees):
    ex, ws = trees
    workspace.sync(ex, ws)
    mine = _edit(ws / LAB01)
    lines = workspace.sync(ex, ws)
    assert (ws / LAB01).read_bytes() == mine
    assert lines == [f"{ws}/: {len(manifest.registry())} labs, nothing new"]


def test_a_lab_released_later_is_copied(trees):
    ex, ws = trees
    workspace.sync(ex, ws)
    mine = _edit(ws / LAB01)
    (ex / "lab13_row_sum").mkdir()
    (ex / "lab13_row_sum" / "lab13_row_sum.ipynb").write_text('{"cells": []}\n')
    lines = workspace.sync(ex, ws)
    assert (ws / "lab13_row_sum" / "lab13_row_sum.ipynb").read_text() == '{"cells": []}\n'
    assert (ws / LAB01).read_bytes() == mine
    assert lines == [f"{ws}/: {len(manifest.registry()) + 1} labs, 1 new (lab13_row_sum)"]


@pytest.mark.parametrize("edited", [True, False], ids=["edited-copy", "untouched-copy"])
def test_a_changed_release_is_named_and_the_copy_kept(trees, edited):
    ex, ws = trees
    workspace.sync(ex, ws)
    mine = _edit(ws / LAB01) if edited else (ws / LAB01).read_bytes()
    lab = manifest.get("lab01")
    nb = release.student_notebook(lab)
    nb.cells[0].source += "\n\nA new release's wording."
    (ex / LAB01).write_text(release.render(nb))
    head, *changed = workspace.sync(ex, ws)
    assert (ws / LAB01).read_bytes() == mine
    assert changed == [f"{ws / LAB01}: a new release is at {ex / LAB01}; your copy is as you "
                       f"left it (move it aside and run this again for the new one)"]
    # Moved aside, the copy is replaced by the new release, and nothing is said of it again.
    (ws / LAB01).rename(ws / LAB01.replace(".ipynb", ".mine.ipynb"))
    workspace.sync(ex, ws)
    assert (ws / LAB01).read_bytes() == (ex / LAB01).read_bytes()
    assert workspace.sync(ex, ws) == [f"{ws}/: {len(manifest.registry())} labs, nothing new"]


def test_work_brought_from_an_edited_release_is_no_new_release(trees):
    """A student who filled exercises/ in place: the first use copies their work, and the
    release put back (`git checkout`) is the release they copied, not a new one."""
    ex, ws = trees
    released = (ex / LAB01).read_bytes()
    mine = _edit(ex / LAB01)
    workspace.sync(ex, ws)
    assert (ws / LAB01).read_bytes() == mine
    (ex / LAB01).write_bytes(released)
    assert workspace.sync(ex, ws) == [f"{ws}/: {len(manifest.registry())} labs, nothing new"]


def _run(clone: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("TRITON_INTERPRET", "TCLAB_WORKSPACE")}
    env.update(TCLAB_ROOT=str(clone), TCLAB_DEVICE="cpu",
               PYTHONPATH=os.pathsep.join(filter(None, [str(CHECKOUT), env.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, *args], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
def test_the_student_path_writes_no_tracked_file(tmp_path):
    """`make lab`'s first step, a filled notebook saved in the workspace, `tclab check lab01`:
    the clone's `git status` is as clean as after the clone."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(CHECKOUT), str(clone)], check=True)
    made = _run(clone, "-m", "grader.lab.workspace")
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("workspace/: made from exercises/"), made.stdout
    lab = manifest.get("lab01")
    mine = clone / "workspace" / LAB01
    mine.write_text(release.render(solution(lab, release.student_notebook(lab))))
    checked = _run(clone, "-m", "grader.cli", "check", "lab01", "--device", "cpu",
                   "--submission", "workspace")
    # Graded the workspace's copy: the release's stubs would fail.
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout
    assert status == "", f"the student path changed tracked or unignored files:\n{status}"
