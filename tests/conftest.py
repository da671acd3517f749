"""Shared pytest options and markers.

    pytest -k lab01                          # your notebook: workspace/ where you have one,
                                             # else the release in exercises/
    pytest -k lab01 --submission solutions   # the lab's own solution cells
    pytest --submission path/to/my.ipynb -k lab01

A `-k` that names a lab id selects the student's tests (tests/test_labs.py) of that lab only.
The maintainers' tests of a lab (its corpus controls, notebook runs, references, profiles) are
selected with their marker or a path:

    pytest -m corpus -k lab03                # lab03's negative controls (tests/corpus/lab03_*)
    pytest -m maintainer -k lab03            # every maintainers' test of lab03
    pytest tests/test_corpus.py -k lab03     # the same controls, by path

`make quick` (`pytest -m quick`) is the contributors' inner loop: the unit tests of the judge,
the manifest, the wire, the CUDA CPU backend, the import rules and the install route, and one
plainly wrong control per lab, graded end to end.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

# The student's tests: their notebook, graded as `tclab check` grades it. Every other test
# file is the maintainers'.
STUDENT_TESTS = "test_labs.py"
CORPUS = Path(__file__).parent / "corpus"
MAINTAINER_MARKERS = ("maintainer", "corpus")
LAB_ID = re.compile(r"lab\d\d")
_NARROWED = pytest.StashKey[bool]()
# `-m quick`: these files' tests that are neither slow nor GPU-only, and per lab one corpus
# control whose verdict is a wrong result alone (status fail, no perf, no timeout, any device).
QUICK_FILES = {"test_bench.py", "test_manifest.py", "test_wire.py", "test_cuda_backend.py",
               "test_architecture.py", "test_install.py"}
QUICK_CONTROL = "test_corpus_verdict"


def pytest_addoption(parser):
    parser.addoption("--submission", default=None,
                     help="workspace | exercises | solutions | a notebook or folder (default: "
                          "workspace/, your working copy, where it exists, else exercises/)")
    parser.addoption("--device", default=None, choices=("auto", "cpu", "gpu"),
                     help="where kernels run (default: TCLAB_DEVICE or auto)")


def _has_gpu() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


def pytest_configure(config):
    config.addinivalue_line("markers", "maintainer: a maintainers' test (every test outside "
                            f"tests/{STUDENT_TESTS}), marked at collection")
    config.addinivalue_line("markers", "corpus: a negative or positive control of "
                            "tests/corpus/, marked at collection with its lab id as a keyword")
    config.addinivalue_line("markers", "quick: the inner loop (`make quick`), marked at "
                            "collection")


def _plainly_wrong(control: Path) -> bool:
    """A control whose header asks for a wrong result only: graded quickly on any device."""
    from corpus_controls import header  # tests/ is on sys.path under pytest

    head = header(control)
    return head.get("status") == ["fail"] and not {"perf", "timeout", "device",
                                                   "parity"} & set(head)


def _mark_quick(items) -> None:
    labs = set()
    for item in items:
        slow = item.get_closest_marker("slow") or item.get_closest_marker("gpu")
        if item.path.name in QUICK_FILES and not slow:
            item.add_marker("quick")
        lab = _corpus_lab(item)
        if lab and lab not in labs and item.originalname == QUICK_CONTROL and not slow \
                and _plainly_wrong(item.callspec.params["path"]):
            labs.add(lab)
            item.add_marker("quick")


def _corpus_lab(item) -> str | None:
    """The lab id of the tests/corpus/ control an item is parametrized with, if any."""
    for value in getattr(getattr(item, "callspec", None), "params", {}).values():
        if isinstance(value, Path) and value.parent.parent == CORPUS:
            return value.parent.name
    return None


def _named_paths(config) -> bool:
    """Whether the command line named test paths other than the default `testpaths`."""
    here = config.invocation_params.dir
    default = {(config.rootpath / p).resolve() for p in config.getini("testpaths")}
    return any((here / arg.split("::")[0]).resolve() not in default for arg in config.args)


def student_only(config) -> bool:
    """`-k` names a lab and neither a maintainers' marker nor a path was given: the student's
    command for their own notebook."""
    return bool(LAB_ID.search(config.getoption("keyword") or "")) and \
        not any(m in (config.getoption("markexpr") or "") for m in MAINTAINER_MARKERS) and \
        not _named_paths(config)


@pytest.hookimpl(tryfirst=True)  # before `-k` and `-m` deselect: they read these marks
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name != STUDENT_TESTS:
            item.add_marker("maintainer")
        lab = _corpus_lab(item)
        if lab:
            item.add_marker("corpus")
            item.extra_keyword_matches.add(lab)  # `-m corpus -k lab13`
    _mark_quick(sorted(items, key=lambda item: item.nodeid))
    if student_only(config):
        theirs = [item for item in items if item.get_closest_marker("maintainer")]
        if theirs:
            config.hook.pytest_deselected(items=theirs)
            items[:] = [item for item in items if not item.get_closest_marker("maintainer")]
            config.stash[_NARROWED] = True
    if _has_gpu():
        return
    skip = pytest.mark.skip(reason="skipped: needs a GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_report_collectionfinish(config, start_path, items):
    if config.stash.get(_NARROWED, False):
        return ("-k names a lab: the student's tests only (tests/test_labs.py); the maintainers' "
                "tests of a lab: add -m maintainer (-m corpus for its controls) or a path")
    return None


@pytest.fixture(scope="session")
def device(request):
    from grader.backends import device as dev
    chosen = dev.resolve(request.config.getoption("--device"))
    dev.use(chosen)
    return chosen


def chosen_submission(config) -> str:
    """`--submission`, else what `tclab check` grades when not told (the working copy, else the
    release)."""
    from grader.pipeline import grading
    return config.getoption("--submission") or grading.default_submission()


@pytest.fixture(scope="session")
def submission_choice(request):
    return chosen_submission(request.config)


@pytest.fixture(scope="module")
def shared_servers():
    """One module's checks share worker servers (`runner.session`), as `tclab check` has one
    submitter's share them: a server (2-3 s of imports, the CUDA CPU runtime built) forks a
    fresh child per check, and a run that does not end cleanly discards its server."""
    from grader.execution import runner
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
