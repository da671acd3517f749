"""The one registry of labs: every `labs/*/lab.toml`, loaded and validated.

Nothing else in the project lists labs, shapes, tolerances, points or bars.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import tomllib

from grader import paths

SUITES = ("public", "hidden", "gpu", "perf", "sweep")
IMPLS = ("triton", "cuda")


class ManifestError(ValueError):
    pass


@dataclass(frozen=True)
class Impl:
    name: str  # "triton" | "cuda"
    launcher: str  # the Python function the student writes and the checks call
    kernel: str  # the kernel's name, the same on both sides
    cells: tuple[str, ...]  # nbgrader grade_ids of the solution cells, in notebook order


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[str, ...]  # symbolic dims, bound by each shape entry


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    op: str
    summary: str
    dir: Path
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    oracle: str
    bytes_formula: str
    impls: dict[str, Impl]
    tolerances: dict[str, tuple[float, float]]  # dtype -> (atol, rtol)
    shapes: dict[str, tuple[dict, ...]]
    points: dict[str, float]
    bar: float
    zero_below: float  # perf partial credit: 0 at or below this ratio, full at the bar
    raw: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def number(self) -> str:
        return self.id[3:5]

    @property
    def source(self) -> Path:
        """The jupytext notebook source (solutions, hidden tests)."""
        return self.dir / f"{self.id}.py"

    @property
    def exercise(self) -> Path:
        return paths.EXERCISES / self.id / f"{self.id}.ipynb"

    @property
    def reference_dir(self) -> Path:
        return paths.REFERENCE / self.id

    def dims(self, shape: dict) -> dict[str, int]:
        """The symbolic dims of one shape entry (extra keys like scale are options)."""
        names = {d for t in self.inputs + self.outputs for d in t.shape}
        return {k: int(v) for k, v in shape.items() if k in names}

    def numel(self, tensor: Tensor, shape: dict) -> int:
        return math.prod(shape[d] for d in tensor.shape)

    def bytes_moved(self, shape: dict, itemsize: int) -> int:
        env = {"itemsize": itemsize, **self.dims(shape)}
        return int(eval(self.bytes_formula, {"__builtins__": {}}, env))  # trusted manifest

    def describe(self, shape: dict) -> str:
        """`n=129` or `n_rows=33, n_cols=129, row_stride=160` for messages."""
        return ", ".join(f"{k}={v}" for k, v in shape.items())


def _require(table: dict, key: str, where: str):
    if key not in table:
        raise ManifestError(f"{where}: missing key {key!r}")
    return table[key]


def load(path: Path) -> Lab:
    where = str(path)
    with open(path, "rb") as f:
        raw = tomllib.load(f)
    lab_id = _require(raw, "id", where)
    if lab_id != path.parent.name:
        raise ManifestError(f"{where}: id {lab_id!r} differs from its folder {path.parent.name!r}")
    tensors = {
        kind: tuple(Tensor(t["name"], tuple(t["shape"])) for t in _require(raw, kind, where))
        for kind in ("inputs", "outputs")
    }
    dims = {d for ts in tensors.values() for t in ts for d in t.shape}
    impls = {}
    for name, table in _require(raw, "impl", where).items():
        if name not in IMPLS:
            raise ManifestError(f"{where}: unknown impl {name!r} (known: {', '.join(IMPLS)})")
        impls[name] = Impl(name, table["launcher"], table["kernel"], tuple(table["cells"]))
    shapes = {s: tuple(_require(raw, "shapes", where).get(s, ())) for s in SUITES}
    for suite, entries in shapes.items():
        for entry in entries:
            missing = dims - entry.keys()
            if missing:
                raise ManifestError(
                    f"{where}: shapes.{suite} entry {entry} lacks {sorted(missing)}")
    tolerances = {dt: (float(t["atol"]), float(t["rtol"])) for dt, t in raw["dtypes"].items()}
    for dt, (atol, rtol) in tolerances.items():
        if atol > 1e-2 or rtol > 1e-2:  # a vacuous tolerance checks nothing
            raise ManifestError(f"{where}: tolerance for {dt} is too loose ({atol=}, {rtol=})")
    bar = float(raw.get("perf", {}).get("bar", 0.8))
    zero_below = float(raw.get("perf", {}).get("zero_below", 0.75 * bar))
    if not 0 < zero_below < bar:
        raise ManifestError(f"{where}: perf.zero_below ({zero_below}) must be in (0, bar={bar})")
    return Lab(
        id=lab_id,
        title=_require(raw, "title", where),
        op=_require(raw, "op", where),
        summary=raw.get("summary", ""),
        dir=path.parent,
        inputs=tensors["inputs"],
        outputs=tensors["outputs"],
        oracle=_require(raw, "oracle", where),
        bytes_formula=_require(raw, "bytes", where),
        impls=impls,
        tolerances=tolerances,
        shapes=shapes,
        points={k: float(v) for k, v in raw.get("points", {}).items()},
        bar=bar,
        zero_below=zero_below,
        raw=raw,
    )


@cache
def registry(labs_dir: Path | None = None) -> dict[str, Lab]:
    labs_dir = labs_dir or paths.LABS
    found = {}
    for toml in sorted(labs_dir.glob("lab[0-9][0-9]_*/lab.toml")):
        lab = load(toml)
        found[lab.id] = lab
    return found


def get(name: str) -> Lab:
    """A lab by id, or by a unique prefix such as `lab01` or `lab07_soft`."""
    labs = registry()
    if name in labs:
        return labs[name]
    matches = [lab for lab_id, lab in labs.items() if lab_id.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(labs) or "none"
    raise ManifestError(f"no single lab matches {name!r} (labs: {known})")


def select(names: list[str] | None) -> list[Lab]:
    return [get(n) for n in names] if names else list(registry().values())
