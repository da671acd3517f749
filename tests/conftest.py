"""Shared pytest options and markers.

    pytest -k lab01                          # your notebook in exercises/ (the default)
    pytest -k lab01 --submission solutions   # the lab's own solution cells
    pytest --submission path/to/my.ipynb -k lab01
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption("--submission", default="exercises",
                     help="solutions | exercises | a notebook or folder (default: exercises)")
    parser.addoption("--device", default=None, choices=("auto", "cpu", "gpu"),
                     help="where kernels run (default: TCLAB_DEVICE or auto)")


def _has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def pytest_collection_modifyitems(config, items):
    if _has_gpu():
        return
    skip = pytest.mark.skip(reason="skipped: needs a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def device(request):
    from grader import device as dev

    chosen = dev.resolve(request.config.getoption("--device"))
    dev.use(chosen)
    return chosen


@pytest.fixture(scope="session")
def submission_choice(request):
    return request.config.getoption("--submission")


@pytest.fixture(scope="module")
def shared_servers():
    """One module's checks share worker servers (`runner.session`), as `tclab check` has one
    submitter's share them: a server (2-3 s of imports, the CUDA CPU runtime built) forks a
    fresh child per check, and a run that does not end cleanly discards its server."""
    from grader import runner

    with runner.session():
        yield


# The nbgrader course of the course tests (tests/course_cases/course.py), built and graded once
# per session. Defined here, once: a fixture imported into several test modules is a fixture
# of each, built again for each (three builds, 170 s apiece, were seen). Session scope: under
# xdist a group's tests may interleave with other modules' on its worker, and pytest tears a
# module fixture down whenever the next test is elsewhere.
@pytest.fixture(scope="session")
def course(tmp_path_factory):
    from course_cases.course import make_course

    return make_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="session")
def graded(course):
    from course_cases.course import grade_students

    return grade_students(course)
