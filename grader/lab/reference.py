"""The hidden reference launchers: `reference/<lab>/<exercise>_triton.py` and `_cuda.py`.

Absent from student machines; the perf bar is measured against them in the same process.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from grader.base import paths
from grader.lab import manifest
from grader.lab.manifest import Exercise


class NoReference(RuntimeError):
    pass


def path(ex: Exercise, impl: str) -> Path:
    return paths.REFERENCE / ex.lab_id / f"{ex.name}_{impl}.py"


def available(ex: Exercise, impl: str) -> bool:
    return path(ex, impl).exists()


# What a reference is made of: its launchers, and the CUDA C they compile.
SOURCES = ("*.py", "*.cu", "*.cuh")


def shared_folders(reference_dir: Path | None = None) -> list[Path]:
    """The folders of reference/ that are no lab's: code the labs' references share
    (reference/common's GEMM body), part of every reference that includes it."""
    reference_dir = reference_dir or paths.REFERENCE
    if not reference_dir.is_dir():  # a student's machine has no reference/
        return []
    labs = set(manifest.registry())
    return sorted(p for p in reference_dir.iterdir()
                  if p.is_dir() and p.name not in labs and not p.name.startswith((".", "_")))


def source_files(folder: Path) -> list[Path]:
    return sorted(f for pattern in SOURCES for f in folder.rglob(pattern))


def digest(ex: Exercise, impl: str, *also) -> str:
    """What a result measured on the reference depends on: its folder's sources (launchers
    and CUDA C) and the shared folders', and `also` (the case, the GPU, ...), as one hex key
    for a file kept under the reference cache."""
    import hashlib
    import json

    folder = path(ex, impl).parent
    h = hashlib.sha256()
    for top in (folder, *shared_folders()):
        for f in source_files(top):
            h.update(f"{top.name}/{f.relative_to(top)}".encode() + f.read_bytes())
    h.update(json.dumps([ex.key, impl, *also], sort_keys=True).encode())
    return h.hexdigest()[:32]


def shared(reference_file: str, stem: str):
    """A module beside a reference file (`shared(__file__, "elementwise_cuda")`), loaded once
    per process: several exercises' launchers can share one kernel and its tuning."""
    folder = Path(reference_file).resolve().parent
    name = f"tclab_reference_{folder.name}_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, folder / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def load(ex: Exercise, impl: str):
    """The reference launcher for `impl`, with the same signature as the student's."""
    file = path(ex, impl)
    if not file.exists():
        raise NoReference(f"no reference for {ex.key} {impl} ({file.name} is not on this "
                          "machine)")
    name = f"tclab_reference_{ex.lab_id}_{ex.name}_{impl}"
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return getattr(module, ex.impls[impl].launcher)
