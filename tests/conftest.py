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
