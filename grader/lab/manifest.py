"""The one registry of labs: every `labs/*/lab.toml`, loaded and validated.

Nothing else in the project lists labs, exercises, shapes, dtypes, tolerances, points or bars;
docs/lab-toml.md is the schema. `grader/` reads what it needs from the objects made here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import tomllib

from grader.base import paths

SUITES = ("public", "hidden", "gpu", "perf", "sweep")
IMPLS = ("triton", "cuda")
IMPL_WORDS = {"triton": "Triton", "cuda": "CUDA C"}
DTYPES = ("float32", "float16", "bfloat16", "uint8", "int8", "int32")
INTEGER_DTYPES = ("uint8", "int8", "int32")
DISTS = ("normal", "uniform", "randint")
LAYOUTS = ("contiguous", "padded", "transposed", "offset")
INPUT_OPTIONS = {"dtype", "dist", "scale", "low", "high", "layout", "pad", "specials"}
SPECIALS = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
MAX_TOLERANCE = 1e-2  # a looser tolerance checks nothing
LAB_ID = re.compile(r"lab\d\d_[a-z0-9_]+")


class ManifestError(ValueError):
    pass


@dataclass(frozen=True)
class Impl:
    name: str  # "triton" | "cuda"
    launcher: str  # the Python function the student writes and the checks call
    kernel: str  # the kernel's name, the same on both sides
    cells: tuple[str, ...]  # nbgrader grade_ids of the solution cells, in notebook order

    @property
    def words(self) -> str:
        """`Triton add_kernel`: how messages name what the student wrote."""
        return f"{IMPL_WORDS[self.name]} {self.kernel}"


@dataclass(frozen=True)
class Tensor:
    name: str
    shape: tuple[str, ...]  # symbolic dims bound by each shape entry; () is a scalar
    options: dict = field(default_factory=dict, compare=False)  # dtype, dist, scale, layout...


@dataclass(frozen=True)
class Param:
    name: str
    default: float | int
    type: str  # "float" | "int"


@dataclass(frozen=True)
class Exercise:
    lab_id: str
    name: str
    oracle: str
    baseline: str  # the torch a user would write instead (the notebook's comparison)
    baseline_name: str  # what messages call it: "torch", or what it runs ("cuBLAS")
    work: str  # the minimum bytes (or FLOPs) formula
    unit: str  # "bytes" | "flops"
    dtypes: tuple[str, ...]
    perf_dtypes: tuple[str, ...]
    tolerances: dict[str, tuple[float, float]]  # dtype -> (atol, rtol)
    inputs: tuple[Tensor, ...]
    outputs: tuple[Tensor, ...]
    params: tuple[Param, ...]
    impls: dict[str, Impl]
    points: dict[str, float]
    shapes: dict[str, tuple[dict, ...]]
    bar: float
    zero_below: float  # perf partial credit: 0 at or below this ratio, full at the bar
    targets: dict[str, dict[str, float]]  # per implementation, what its reference must reach
    # on the course GPU: "torch" (ratio to the manifest's torch) and/or "roof" (fraction of the
    # copy roof); tuning only
    allowed_ops: frozenset[str]
    single: bool  # the only exercise of its lab: grade cells are test_<impl>, perf_<impl>

    @property
    def key(self) -> str:
        """`labNN_op` for a lab's only exercise, else `labNN_op/exercise`."""
        return self.lab_id if self.single else f"{self.lab_id}/{self.name}"

    @property
    def dim_names(self) -> tuple[str, ...]:
        names = []
        for t in self.inputs + self.outputs:
            names += [d for d in t.shape if d not in names]
        return tuple(names)

    def target(self, impl: str) -> dict[str, float]:
        """What the reference of `impl` must reach (benchmarks/tune_references.py)."""
        return self.targets.get(impl, {})

    def rate(self, ms: float, shape: dict, itemsize: int) -> float:
        """GB/s (bytes) or TFLOP/s (flops) of one call that took `ms` milliseconds."""
        return self.work_amount(shape, itemsize) / (ms * (1e6 if self.unit == "bytes" else 1e9))

    @property
    def rate_unit(self) -> str:
        return "GB/s" if self.unit == "bytes" else "TFLOP/s"

    def grade_id(self, kind: str, impl: str) -> str:
        """The grade cell of `kind` ("test" or "perf") for `impl`."""
        return f"{kind}_{impl}" if self.single else f"{kind}_{self.name}_{impl}"

    def points_for(self, grade_id: str) -> float | None:
        for kind, prefix in (("test", ""), ("perf", "perf_")):
            for impl in self.impls:
                if grade_id == self.grade_id(kind, impl):
                    return self.points.get(prefix + impl, 0.0)
        return None

    def dims(self, shape: dict) -> dict[str, int]:
        return {d: int(shape[d]) for d in self.dim_names}

    def param_values(self, shape: dict) -> dict[str, float | int]:
        cast = {"float": float, "int": int}
        return {p.name: cast[p.type](shape.get(p.name, p.default)) for p in self.params}

    def input_options(self, tensor: Tensor, shape: dict) -> dict:
        return {**tensor.options, **shape.get(tensor.name, {})}

    def numel(self, tensor: Tensor, shape: dict) -> int:
        return math.prod(int(shape[d]) for d in tensor.shape)

    def work_amount(self, shape: dict, itemsize: int) -> int:
        env = {"itemsize": itemsize, **self.dims(shape), **self.param_values(shape)}
        return int(eval(self.work, {"__builtins__": {}}, env))  # trusted manifest

    def describe(self, shape: dict, dtype: str | None = None) -> str:
        """`n=129, float16` or `rows=33, cols=129, x rows padded by 31` for messages."""
        parts = [f"{k}={v}" for k, v in self.dims(shape).items()]
        parts += [f"{p}={v}" for p, v in shape.items() if p in {q.name for q in self.params}]
        for t in self.inputs:
            opts = dict(shape.get(t.name, {}))
            layout = opts.pop("layout", None)
            pad = opts.pop("pad", 1)
            specials = opts.pop("specials", ())
            if specials:
                parts.append(f"{t.name} holds {', '.join(map(str, specials))}")
            if layout == "padded":
                parts.append(f"{t.name} rows padded by {pad}")
            elif layout in ("transposed", "offset"):
                parts.append(f"{t.name} {layout}")
            parts += [f"{t.name} {k}={v}" for k, v in opts.items()]
        if dtype and (len(self.dtypes) > 1 or dtype != "float32"):
            parts.append(dtype)
        return ", ".join(parts)


@dataclass(frozen=True)
class Lab:
    id: str
    title: str
    summary: str
    dir: Path
    exercises: tuple[Exercise, ...]
    raw: dict = field(repr=False, compare=False, default_factory=dict)

    @property
    def number(self) -> str:
        return self.id[3:5]

    @property
    def source(self) -> Path:
        """The jupytext notebook source (solutions, hidden tests)."""
        return self.dir / f"{self.id}.py"

    @property
    def notebook_name(self) -> str:
        return f"{self.id}.ipynb"

    @property
    def exercise_path(self) -> Path:
        """The released student notebook."""
        return self.release_path(paths.EXERCISES)

    def release_path(self, root: Path) -> Path:
        """Where this lab's notebook sits in a release tree (exercises/, a course's source/)."""
        return Path(root) / self.id / self.notebook_name

    @property
    def reference_dir(self) -> Path:
        return paths.REFERENCE / self.id

    def exercise(self, name: str | None = None) -> Exercise:
        if name is None and len(self.exercises) == 1:
            return self.exercises[0]
        for ex in self.exercises:
            if ex.name == name:
                return ex
        known = ", ".join(ex.name for ex in self.exercises)
        raise ManifestError(f"{self.id} has no exercise {name!r} (exercises: {known})")

    def exercise_for_launcher(self, launcher_name: str) -> Exercise:
        for ex in self.exercises:
            if any(impl.launcher == launcher_name for impl in ex.impls.values()):
                return ex
        if len(self.exercises) == 1:
            return self.exercises[0]
        raise ManifestError(f"{self.id}: no exercise has a launcher named {launcher_name!r}")

    def grade_cells(self) -> dict[str, tuple[Exercise, str, str]]:
        """{grade_id: (exercise, "test"|"perf", impl)} for every grade cell of the lab."""
        return {ex.grade_id(kind, impl): (ex, kind, impl)
                for ex in self.exercises for impl in ex.impls for kind in ("test", "perf")}

    def solution_cells(self) -> tuple[str, ...]:
        return tuple(c for ex in self.exercises for impl in ex.impls.values() for c in impl.cells)


def _require(table: dict, key: str, where: str):
    if key not in table:
        raise ManifestError(f"{where}: missing key {key!r}")
    return table[key]


def _tensor(table: dict, where: str) -> Tensor:
    name = _require(table, "name", where)
    opts = {k: v for k, v in table.items() if k not in ("name", "shape")}
    _check_options(opts, f"{where} {name}")
    return Tensor(name, tuple(_require(table, "shape", where)), opts)


def _check_options(opts: dict, where: str) -> None:
    unknown = set(opts) - INPUT_OPTIONS
    if unknown:
        raise ManifestError(f"{where}: unknown option(s) {sorted(unknown)} "
                            f"(known: {', '.join(sorted(INPUT_OPTIONS))})")
    for key, allowed in (("dtype", DTYPES), ("dist", DISTS), ("layout", LAYOUTS)):
        if key in opts and opts[key] not in allowed:
            raise ManifestError(f"{where}: {key} {opts[key]!r} is not one of {allowed}")
    for value in opts.get("specials", ()):
        if not isinstance(value, (int, float)) and value not in SPECIALS:
            raise ManifestError(f"{where}: special value {value!r} is not a number or one of "
                                f"{', '.join(SPECIALS)}")


def _targets(raw: dict, impls: dict, unit: str, where: str) -> dict[str, dict[str, float]]:
    """`target = { torch = 0.9, cuda = { torch = 0.45 } }`: every implementation's reference
    aims at the plain keys, and a key named after an implementation overrides them for it."""
    known = {"torch"} if unit == "flops" else {"torch", "roof"}
    words = "torch (ratio to torch)" + ("" if unit == "flops" else " and roof (of the copy roof)")

    def values(table: dict, at: str) -> dict[str, float]:
        if set(table) - known:
            raise ManifestError(f"{where}: {at} {sorted(set(table) - known)}: known targets are "
                                f"{words}" + (" (a compute-bound exercise has no copy roof)"
                                              if unit == "flops" else ""))
        return {k: float(v) for k, v in table.items()}

    common = values({k: v for k, v in raw.items() if k not in IMPLS}, "perf.target")
    own = {impl: raw[impl] for impl in IMPLS if impl in raw}
    for impl, table in own.items():
        if impl not in impls or not isinstance(table, dict):
            raise ManifestError(f"{where}: perf.target.{impl} must be a table, for an "
                                f"implementation the exercise has ({', '.join(impls)})")
    return {impl: {**common, **values(own.get(impl, {}), f"perf.target.{impl}")}
            for impl in impls}


def _exercise(raw: dict, lab_raw: dict, lab_id: str, single: bool, where: str) -> Exercise:
    name = _require(raw, "name", where)
    where = f"{where} exercise {name!r}"
    inputs = tuple(_tensor(t, f"{where} input") for t in _require(raw, "inputs", where))
    outputs = tuple(_tensor(t, f"{where} output") for t in _require(raw, "outputs", where))
    params = tuple(Param(p["name"], p.get("default", 0), p.get("type", "float"))
                   for p in raw.get("params", ()))
    dtypes = tuple(raw.get("dtypes", ["float32"]))
    perf_dtypes = tuple(raw.get("perf_dtypes", dtypes))
    for dt in dtypes + perf_dtypes:
        if dt not in DTYPES:
            raise ManifestError(f"{where}: unknown dtype {dt!r} (known: {', '.join(DTYPES)})")
    if not set(perf_dtypes) <= set(dtypes):
        raise ManifestError(f"{where}: perf_dtypes {perf_dtypes} must be among dtypes {dtypes}")
    tolerances = {}
    for dt in dtypes:
        tol = raw.get("tolerance", {}).get(dt, [0, 0] if dt in INTEGER_DTYPES else None)
        if tol is None:
            raise ManifestError(f"{where}: no tolerance for dtype {dt} ([exercise.tolerance])")
        atol, rtol = float(tol[0]), float(tol[1])
        if atol > MAX_TOLERANCE or rtol > MAX_TOLERANCE:
            raise ManifestError(f"{where}: tolerance for {dt} is too loose ({atol=}, {rtol=})")
        tolerances[dt] = (atol, rtol)
    impls = {}
    for impl in IMPLS:
        if impl in raw:
            t = raw[impl]
            impls[impl] = Impl(impl, _require(t, "launcher", f"{where} {impl}"),
                               _require(t, "kernel", f"{where} {impl}"),
                               tuple(_require(t, "cells", f"{where} {impl}")))
    if not impls:
        raise ManifestError(f"{where}: declares neither [exercise.triton] nor [exercise.cuda]")
    dim_names = {d for t in inputs + outputs for d in t.shape}
    tensor_names = {t.name for t in inputs}
    param_names = {p.name for p in params}
    shapes = {s: tuple(_require(raw, "shapes", where).get(s, ())) for s in SUITES}
    for suite, entries in shapes.items():
        for entry in entries:
            missing = dim_names - entry.keys()
            if missing:
                raise ManifestError(f"{where}: shapes.{suite} entry {entry} lacks "
                                    f"{sorted(missing)}")
            extra = set(entry) - dim_names - tensor_names - param_names
            if extra:
                raise ManifestError(f"{where}: shapes.{suite} entry {entry}: unknown key(s) "
                                    f"{sorted(extra)} (dims, params or input names)")
            for tname in tensor_names & entry.keys():
                _check_options(entry[tname], f"{where} shapes.{suite} {tname}")
    if not shapes["public"]:
        raise ManifestError(f"{where}: shapes.public is empty (the notebook's tests need shapes)")
    perf = {**lab_raw.get("perf", {}), **raw.get("perf", {})}
    bar = float(perf.get("bar", 0.8))
    zero_below = float(perf.get("zero_below", 0.75 * bar))
    if not 0 < zero_below < bar:
        raise ManifestError(f"{where}: perf.zero_below ({zero_below}) must be in (0, bar={bar})")
    unit = "flops" if "flops" in raw else "bytes"
    targets = _targets(perf.get("target", {}), impls, unit, where)
    points = {k: float(v) for k, v in raw.get("points", {}).items()}
    known_points = {*impls, *(f"perf_{i}" for i in impls)}
    if set(points) - known_points:
        raise ManifestError(f"{where}: points {sorted(set(points) - known_points)} match no "
                            f"grade cell (known: {', '.join(sorted(known_points))})")
    return Exercise(
        lab_id=lab_id, name=name, oracle=_require(raw, "oracle", where),
        baseline=raw.get("torch", raw["oracle"]), baseline_name=raw.get("torch_name", "torch"),
        work=_require(raw, unit, where), unit=unit,
        dtypes=dtypes, perf_dtypes=perf_dtypes, tolerances=tolerances, inputs=inputs,
        outputs=outputs, params=params, impls=impls, points=points, shapes=shapes, bar=bar,
        zero_below=zero_below, targets=targets,
        allowed_ops=frozenset(raw.get("allowed_ops", ())), single=single)


def load(path: Path, text: str | None = None) -> Lab:
    """The lab whose manifest is at `path`; `text` stands in for the file where it cannot be
    read (a sandboxed worker gets its lab's manifest in its request)."""
    where = str(path)
    try:
        raw = tomllib.loads(text if text is not None else Path(path).read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ManifestError(f"{where}: {exc}") from None
    lab_id = _require(raw, "id", where)
    if lab_id != path.parent.name or not LAB_ID.fullmatch(lab_id):
        raise ManifestError(f"{where}: id {lab_id!r} must be its folder's name, labNN_<op>")
    entries = _require(raw, "exercise", where)
    single = len(entries) == 1
    exercises = tuple(_exercise(e, raw, lab_id, single, where) for e in entries)
    names = [ex.name for ex in exercises]
    if len(set(names)) != len(names):
        raise ManifestError(f"{where}: exercise names repeat: {names}")
    return Lab(id=lab_id, title=_require(raw, "title", where), summary=raw.get("summary", ""),
               dir=path.parent, exercises=exercises, raw=raw)


@cache
def registry(labs_dir: Path | None = None) -> dict[str, Lab]:
    labs_dir = labs_dir or paths.LABS
    found = {}
    for toml in sorted(Path(labs_dir).glob("lab[0-9][0-9]_*/lab.toml")):
        lab = load(toml)
        found[lab.id] = lab
    return found


def get(name: str) -> Lab:
    """A lab by id, or by a unique prefix such as `lab01` or `lab07_soft`."""
    labs = registry()
    name = name.split("/", 1)[0]
    if name in labs:
        return labs[name]
    matches = [lab for lab_id, lab in labs.items() if lab_id.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    known = ", ".join(labs) or "none"
    raise ManifestError(f"no single lab matches {name!r} (labs: {known})")


def exercise(key: str) -> Exercise:
    """`labNN`, `labNN_op` or `labNN_op/exercise`."""
    lab_name, _, ex_name = key.partition("/")
    return get(lab_name).exercise(ex_name or None)


def select(names: list[str] | None) -> list[Lab]:
    return [get(n) for n in names] if names else list(registry().values())
