"""The hidden reference launchers: `reference/labNN_<op>/<op>_triton.py` and `<op>_cuda.py`.

Absent from student machines; the perf bar is measured against them in the same process.
"""

from __future__ import annotations

import importlib.util
import sys

from grader.manifest import Lab


class NoReference(RuntimeError):
    pass


def path(lab: Lab, impl: str):
    return lab.reference_dir / f"{lab.op}_{impl}.py"


def available(lab: Lab, impl: str) -> bool:
    return path(lab, impl).exists()


def load(lab: Lab, impl: str):
    """The reference launcher for `impl`, with the same signature as the student's."""
    file = path(lab, impl)
    if not file.exists():
        raise NoReference(f"no reference for {lab.id} {impl} ({file.name} is not on this machine)")
    name = f"tclab_reference_{lab.id}_{impl}"
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, lab.impls[impl].launcher)
