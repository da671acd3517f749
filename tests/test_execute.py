"""GuardedExecute, the autograde's run of a student's cells: its kernel is killed once the cells
have run, not asked to exit (a graceful exit cost seconds of every submission)."""

from __future__ import annotations

import nbformat
import pytest

from grader.course.preprocessors import GuardedExecute

# A student's cell whose exit hook leaves a mark: it runs only if the kernel exits by itself.
CELL = """
import atexit, pathlib
_ = atexit.register(lambda: pathlib.Path({mark!r}).write_text("exited"))
"""


def run(tmp_path, **traits) -> bool:
    """Unsandboxed (the kernel's sandbox would hide the mark's folder from it: the kill is
    what is tested here, the sandbox in test_course)."""
    from grader.execution import sandbox
    mark = tmp_path / "mark"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(CELL.format(mark=str(mark)))])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    sandbox.available.cache_clear()
    try:
        GuardedExecute(timeout=120, **traits).preprocess(
            nb, {"metadata": {"path": str(tmp_path)}})
    finally:
        sandbox.available.cache_clear()
    assert not nb.cells[0].get("outputs"), nb.cells[0].outputs  # the cell ran cleanly
    return mark.exists()


@pytest.mark.parametrize("traits, exits", [({}, False), ({"shutdown_kernel": "graceful"}, True)])
def test_the_kernel_is_killed_once_its_cells_have_run(tmp_path, traits, exits, monkeypatch):
    """The default kills it: the exit hook never runs. The control, nbclient's graceful
    shutdown, runs it (so the mark is a fair witness)."""
    monkeypatch.setenv("TCLAB_SANDBOX", "0")
    assert run(tmp_path, **traits) is exits
