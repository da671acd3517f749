"""Tune the hidden references on a GPU; measure them against torch, the copy roof, the lab's
target and the lab's own solution.

    python benchmarks/tune_references.py [LAB ...] [--no-sweep] [--json out.json] [--md out.md]
                                         [--variant FILE ...]
    python benchmarks/tune_references.py --from-json out.json [--md out.md]   (no GPU needed)

1. Sweep. A module holding a reference's launch constants declares its candidates,
   `TUNE = {"BLOCK_SIZE": (1024, 2048), ...}`. Each constant's candidates are tried in turn,
   the others held at the best so far, on every perf shape in every perf dtype of every
   exercise the module serves (lab03's five activations share one kernel). The sum of
   seconds per byte decides: each case weighs by its share of the roof, not by its size (a
   small shape counts as much as one four times larger).
   The winners are printed and used for the table; copy them into reference/ by hand.
   `--only MODULE.NAME=V1,V2` (repeatable) sweeps only the constants named, over those
   candidates (Python literals; a bare word is a string), and no other module: one design
   question per GPU call, e.g. `--only attention_cuda.D64_TILES=1,2 --only
   flash_decode_cuda.FUSED_COMBINE=False,True`. Constants that only make sense together are
   swept jointly, names joined by + and each candidate's values by /:
   `--only flash_decode_cuda.WMMA_WARPS+WMMA_PROGRAMS_PER_SM=8/1,4/2`.
2. Table: every exercise, perf dtype, perf shape and implementation: GB/s (TFLOP/s for a
   compute-bound exercise, whose torch is a vendor library and which has no roof) of torch (the
   manifest's `torch`), of the reference and of the lab's solution (its solution cells, run
   in this process); the reference against the lab's `[perf] target` (x torch, share of the
   roof), the solution's ratio to the reference (the grading bar is 0.8; 0.9 is the margin
   the labs aim for). Each reference's output is checked against the oracle once.

Times: median of ROUNDS calls timed with CUDA events, L2 flushed before each (the grader's
Timer); the table's torch, references and solutions of one case are timed in turn, a call of
each per round (timed one after another instead, the same reference measured 3780 GB/s right
after torch and 4230 in the sweep, lab03 float16 on an H200). A development tool with a
GPU: the grading protocol itself is `tclab check`.

3. Variants (`--variant FILE`, one lab): each FILE is that lab's notebook (.py or .ipynb) with
   other solution cells; its launchers are timed in the same rounds as the lab's solution,
   each row gets their ratios to the reference, and a file that computes a wrong result is
   named. How a solution (or a candidate reference) is tuned before it goes into labs/.

The JSON records the GPU, the copy roof, the date and the command; the markdown table opens with
them (docs/perf-table.md is one). `--from-json` renders the table again from a run's JSON.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import functools
import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
import triton

from grader.backends import bench, scratch
from grader.base import paths
from grader.lab import cases, manifest, reference, submission

ROUNDS = 10


class Bench:
    def __init__(self):
        self.timer = bench.Timer()
        self.roof = bench.copy_roof()["gbps"]
        self._inputs: dict = {}

    def inputs(self, ex, shape, dtype):
        key = (ex.key, json.dumps(shape, sort_keys=True), dtype)
        if key not in self._inputs:
            self._inputs.clear()  # one case's tensors at a time: perf shapes are GiB-sized
            torch.cuda.empty_cache()
            self._inputs[key] = cases.make_inputs(ex, shape, 1234, dtype, "cuda")
        return self._inputs[key]

    def ms(self, ex, shape, dtype, fn) -> float:
        inputs = list(self.inputs(ex, shape, dtype).values())
        _, outs = cases.alloc_outputs(ex, shape, dtype, "cuda")
        args = [*inputs, *outs.values(), *ex.param_values(shape).values()]
        for _ in range(bench.WARMUP):
            fn(*args)
        return statistics.median(self.timer.time(fn, *args) for _ in range(ROUNDS))

    def interleaved(self, ex, shape, dtype, fns: dict) -> dict:
        """{name: median ms} of several launchers timed in turn, one call each per round (as
        the grader times student and reference): none gains from its place in the order."""
        inputs = list(self.inputs(ex, shape, dtype).values())
        params = list(ex.param_values(shape).values())
        times: dict = {name: [] for name in fns}
        for round_ in range(bench.WARMUP + ROUNDS):
            for name, fn in fns.items():
                _, outs = cases.alloc_outputs(ex, shape, dtype, "cuda")
                args = [*inputs, *outs.values(), *params]
                if round_ < bench.WARMUP:
                    fn(*args)
                else:
                    times[name].append(self.timer.time(fn, *args))
        return {name: statistics.median(t) for name, t in times.items()}

    def gbps(self, ex, shape, dtype, ms: float) -> float:
        """GB/s, or TFLOP/s for a compute-bound exercise."""
        return ex.rate(ms, shape, cases.DTYPES[dtype].itemsize)

    def correct(self, ex, shape, dtype, fn) -> bool:
        inputs = self.inputs(ex, shape, dtype)
        _, outs = cases.alloc_outputs(ex, shape, dtype, "cuda")
        fn(*inputs.values(), *outs.values(), *ex.param_values(shape).values())
        expected = cases.oracle(ex, inputs, shape, device="cuda")
        atol, rtol = ex.tolerances[dtype]
        return all(torch.allclose(outs[k].double(), expected[k], atol=atol * 10 + 1e-12,
                                  rtol=rtol * 10, equal_nan=True) for k in expected)


def constants(fn) -> dict:
    """The module globals that hold a reference launcher's constants (and its TUNE)."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    return fn.__globals__


def parse_only(items: list[str]) -> dict[str, dict[str, tuple]]:
    """`--only` arguments, MODULE.NAME=V1,V2,..., as {module: {name: candidates}}; each
    candidate a Python literal, or a bare word as a string."""
    def value(text: str):
        try:
            return ast.literal_eval(text)
        except (ValueError, SyntaxError):
            return text
    only: dict[str, dict[str, tuple]] = {}
    for item in items:
        target, sep, values = item.partition("=")
        module, dot, name = target.partition(".")
        if not (sep and dot and module and name and values):
            raise ValueError(f"--only {item!r}: MODULE.NAME=V1,V2 (attention_cuda.D64_TILES=1,2)")
        width = len(name.split("+"))
        candidates = [tuple(value(v.strip()) for v in c.split("/")) for c in values.split(",")]
        if any(len(c) != width for c in candidates):
            raise ValueError(f"--only {item!r}: {width} value(s) per candidate, joined by /")
        only.setdefault(module, {})[name] = tuple(c if width > 1 else c[0] for c in candidates)
    return only


def assign(g: dict, name: str, value) -> None:
    """Set a swept constant, or several at once: a joint name A+B takes a tuple (a, b)."""
    names = name.split("+")
    for n, v in zip(names, value if len(names) > 1 else (value,)):
        g[n] = v


def sweep_plan(g: dict, only: dict | None) -> dict:
    """What to sweep in a module of constants: its TUNE, or with `--only` the names given for it
    (none for a module not named); a name the module never sets is refused."""
    if only is None:
        return g["TUNE"]
    stem = Path(g["__file__"]).stem
    chosen = only.get(stem, {})
    unknown = [n for name in chosen for n in name.split("+") if n not in g]
    if unknown:
        raise ValueError(f"--only: {stem} has no constant {', '.join(unknown)}")
    return chosen


def sweep(b: Bench, members: list, log, tune: dict | None = None) -> dict:
    """Coordinate search over the module's TUNE (or `tune`), on every (exercise, launcher) in
    `members` (they share the module); leaves the winners set and returns them."""
    g = constants(members[0][1])
    tune = g["TUNE"] if tune is None else tune
    timed = [(ex, fn, shape, dt) for ex, fn in members for shape in ex.shapes["perf"]
             for dt in ex.perf_dtypes]
    for name, candidates in tune.items():
        cost = {}
        for value in candidates:
            assign(g, name, value)
            try:
                gbps = [b.gbps(ex, shape, dt, b.ms(ex, shape, dt, fn))
                        for ex, fn, shape, dt in timed]
            except Exception as exc:  # an invalid launch (too many threads, resources)
                log(f"    {name}={value}: {type(exc).__name__}: {str(exc)[:100]}")
                continue
            cost[value] = sum(1 / v for v in gbps)
            log(f"    {name}={value}: mean {len(gbps) / cost[value]:.0f} "
                f"{members[0][0].rate_unit} over "
                f"{len(timed)} case(s): {' '.join(f'{v:.0f}' for v in gbps)}")
        if not cost:
            raise RuntimeError(f"{name}: no candidate of {candidates} launched")
        assign(g, name, min(cost, key=cost.get))
    return {n: g[n] for name in tune for n in name.split("+")}


def solution_launchers(lab, folder: Path, source: Path | None = None,
                       name: str | None = None) -> dict:
    """{(exercise, impl): launcher} from the lab's own solution cells (or those of `source`, a
    variant of its notebook), written out and imported as the grader's worker imports a
    student's (Triton compiles from the source file)."""
    nb = submission.read_notebook(source or lab.source)
    sources = {}
    for ex in lab.exercises:
        for spec in ex.impls.values():
            sources.update(submission.cell_sources(nb, spec.cells))
    name = name or f"solution_{lab.id}"
    module = submission.import_module(
        submission.write_module(submission.setup_source(lab), sources, folder, name), name)
    return {(ex.name, impl): getattr(module, spec.launcher)
            for ex in lab.exercises for impl, spec in ex.impls.items()}


def tune_lab(b: Bench, lab, do_sweep: bool, folder: Path, log,
             variants: tuple[Path, ...] = (), only: dict | None = None) -> dict:
    out = {"tuned": {}, "rows": []}
    solutions = solution_launchers(lab, folder)
    others = {v.stem: solution_launchers(lab, folder, v, f"variant_{i}_{lab.id}")
              for i, v in enumerate(variants)}
    # Loaded once: the table times what the sweep left set (load() runs the file afresh).
    refs = {(ex.name, impl): reference.load(ex, impl) for ex in lab.exercises for impl in ex.impls}
    modules: dict[int, list] = {}  # the exercises each module of constants serves
    for ex in lab.exercises:
        for impl in ex.impls:
            g = constants(refs[ex.name, impl])
            if "TUNE" in g:
                modules.setdefault(id(g), []).append((ex, refs[ex.name, impl]))
    for members in modules.values() if do_sweep else ():
        file = constants(members[0][1])["__file__"]
        tune = sweep_plan(constants(members[0][1]), only)
        if not tune:
            continue
        log(f"  sweep {file.split('/')[-1]} on {', '.join(ex.name for ex, _ in members)}")
        chosen = sweep(b, members, log, tune)
        out["tuned"][file.split("reference/")[-1]] = chosen
        log(f"  -> {chosen}")
    for ex in lab.exercises:
        for dtype in ex.perf_dtypes:
            for shape in ex.shapes["perf"]:
                fns = {"torch": bench.baseline_op(ex)}
                for impl in ex.impls:
                    fns["ref", impl] = refs[ex.name, impl]
                    fns["solution", impl] = solutions[ex.name, impl]
                    for v, launchers in others.items():
                        fns[v, impl] = launchers[ex.name, impl]
                ms = b.interleaved(ex, shape, dtype, fns)
                torch_ms = ms["torch"]
                for impl in ex.impls:
                    ref = refs[ex.name, impl]
                    ref_ms, sol_ms = ms["ref", impl], ms["solution", impl]
                    row = {"exercise": ex.key, "dtype": dtype, "shape": ex.describe(shape, dtype),
                           "impl": impl, "torch_gbps": b.gbps(ex, shape, dtype, torch_ms),
                           "reference_gbps": b.gbps(ex, shape, dtype, ref_ms),
                           "solution_gbps": b.gbps(ex, shape, dtype, sol_ms),
                           "unit": ex.rate_unit, "torch_name": ex.baseline_name,
                           "x_torch": torch_ms / ref_ms,
                           "roof": (b.gbps(ex, shape, dtype, ref_ms) / b.roof
                                    if ex.unit == "bytes" else None),  # no copy roof
                           "solution_x_reference": ref_ms / sol_ms,
                           "reference_correct": b.correct(ex, shape, dtype, ref)}
                    row["variants"] = {
                        v: round(ref_ms / ms[v, impl], 3) if b.correct(ex, shape, dtype,
                                                                       others[v][ex.name, impl])
                        else "wrong" for v in others}
                    target = ex.target(impl)
                    row["target_met"] = (row["reference_correct"]
                                         and row["x_torch"] >= target.get("torch", 0)
                                         and (row["roof"] or 0) >= target.get("roof", 0))
                    out["rows"].append(row)
                    roof = "" if row["roof"] is None else f", {100 * row['roof']:.0f}% roof"
                    log(f"  {ex.name:<14} {dtype:<9} {impl:<6} {ex.baseline_name} "
                        f"{row['torch_gbps']:5.0f}  ref {row['reference_gbps']:5.0f} "
                        f"({row['x_torch']:.2f}x {ex.baseline_name}{roof}"
                        f"{'' if row['target_met'] else ' MISSED'})  solution "
                        f"{row['solution_gbps']:5.0f} ({row['solution_x_reference']:.2f}x ref) "
                        f"{ex.rate_unit}  [{row['shape']}]")
                    for v, ratio in row["variants"].items():
                        log(f"      variant {v}: "
                            f"{ratio if isinstance(ratio, str) else f'{ratio:.2f}x ref'}")
    return out


# Options that name where the results go, not what is measured: left out of the recorded command.
OUTPUT_OPTIONS = ("--json", "--md")


def command_line(argv: list) -> str:
    """The command that measures what `argv` measured (its output files left out)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in OUTPUT_OPTIONS:
            skip = True
        elif not arg.startswith(tuple(o + "=" for o in OUTPUT_OPTIONS)):
            kept.append(arg)
    return shlex.join(["python", "benchmarks/tune_references.py", *kept])


def markdown(results: dict) -> str:
    """The table of a run, under a header naming its GPU, date, command and copy roof."""
    missing = [k for k in ("gpu", "date", "command", "roof_gbps") if not results.get(k)]
    if missing:
        raise ValueError(f"the results lack {', '.join(missing)}: the table's header needs "
                         "them (--date and --command supply those of an older JSON)")
    rows = [r for lab in results["labs"].values() for r in lab["rows"]]
    missed = sum(not r["target_met"] for r in rows)
    under = sum(r["solution_x_reference"] < 0.9 for r in rows)
    software = ", ".join(f"{k} {results[k]}" for k in ("torch", "triton") if results.get(k))
    lines = [f"# The references and solutions of every lab: {results['gpu']}, {results['date']}",
             "",
             "Generated by `benchmarks/tune_references.py` from one run; do not edit by hand.",
             "",
             f"- GPU: {results['gpu']}" + (f" ({software})" if software else ""),
             f"- date: {results['date']}",
             f"- command: `{results['command']}`",
             f"- copy roof: {results['roof_gbps']:.0f} GB/s (the faster of a 1 GiB "
             "device-to-device copy and torch.add, `grader.backends.bench.copy_roof`)",
             "- this file again from the run's JSON, no GPU needed: `python "
             "benchmarks/tune_references.py --from-json RUN.json --md FILE`",
             "",
             f"{len(rows)} rows; {missed} reference row(s) below the lab's target, {under} "
             "solution row(s) under 0.9x their reference.",
             "",
             f"Rates in GB/s = the manifest's minimum bytes / median time ({ROUNDS} rounds, "
             "the L2 flushed before each call, torch, reference and solution timed in turn, "
             "one call each per round); a compute-bound exercise's in TFLOP/s (no % of the "
             "roof), its torch named by what it runs. \"target\": the lab's `[perf] target` "
             "for its reference (x torch, % of the roof). \"solution / reference\": the lab's own "
             "solution cells; the grading bar is 0.8, the labs aim for 0.9.",
             "",
             "| exercise | dtype | impl | shape | torch | reference | x torch | % roof "
             "| target | solution | solution / reference |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        unit = "" if r.get("unit", "GB/s") == "GB/s" else f" {r['unit']}"
        name = r.get("torch_name", "torch")
        roof = "-" if r["roof"] is None else f"{100 * r['roof']:.1f}"
        lines.append(
            f"| {r['exercise']} | {r['dtype']} | {r['impl']} | {r['shape']} | "
            f"{r['torch_gbps']:.0f}{unit} | {r['reference_gbps']:.0f}{unit} | "
            f"{r['x_torch']:.2f}{'' if name == 'torch' else ' ' + name} | {roof}"
            f" | {'met' if r['target_met'] else 'MISSED'} | "
            f"{r['solution_gbps']:.0f}{unit} | {r['solution_x_reference']:.2f} |")
    return "\n".join(lines) + "\n"


def from_json(path: str, date: str | None, command: str | None) -> str:
    """The markdown of a run's JSON; `date` and `command` fill in those an older JSON lacks."""
    with open(path) as f:
        results = json.load(f)
    for key, value in (("date", date), ("command", command)):
        if value and not results.get(key):
            results[key] = value
    try:
        return markdown(results)
    except ValueError as e:
        sys.exit(f"tune_references: {path}: {e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", help="lab ids or prefixes (default: every lab)")
    parser.add_argument("--no-sweep", action="store_true", help="the table at the constants "
                        "in reference/, no sweep")
    parser.add_argument("--json")
    parser.add_argument("--md")
    parser.add_argument("--from-json", metavar="FILE", help="no measurement: write the table "
                        "of an earlier run's JSON (to --md, or print it)")
    parser.add_argument("--date", help="with --from-json: the run's date, where its JSON lacks it")
    parser.add_argument("--command", help="with --from-json: the run's command, where its JSON "
                        "lacks it")
    parser.add_argument("--only", action="append", default=[], metavar="MODULE.NAME=V1,V2",
                        help="sweep only these constants over these candidates (repeatable)")
    parser.add_argument("--variant", action="append", default=[], type=Path,
                        help="a variant of the lab's notebook whose solution cells are timed "
                        "too (one lab only; repeatable)")
    args = parser.parse_args()
    if args.from_json:
        text = from_json(args.from_json, args.date, args.command)
        if args.md:
            with open(args.md, "w") as f:
                f.write(text)
        else:
            print(text, end="")
        return
    if args.date or args.command:
        sys.exit("tune_references: --date and --command go with --from-json")
    if args.variant and len(manifest.select(args.labs or None)) != 1:
        sys.exit("tune_references: --variant needs exactly one lab")
    try:
        only = parse_only(args.only) if args.only else None
    except ValueError as e:
        sys.exit(f"tune_references: {e}")
    known = {p.stem for p in paths.REFERENCE.glob("lab*/*.py")}
    if only and set(only) - known:
        sys.exit(f"tune_references: --only: no reference module {', '.join(set(only) - known)}")
    if only and args.no_sweep:
        sys.exit("tune_references: --only narrows the sweep; --no-sweep has none")
    if not torch.cuda.is_available():
        sys.exit("tune_references: skipped: needs a GPU")
    scratch.give_triton()  # references and solutions that build tensor descriptors in a kernel
    b = Bench()
    folder = Path(tempfile.mkdtemp(prefix="tclab-tune-"))
    results = {"gpu": torch.cuda.get_device_name(), "roof_gbps": b.roof,
               "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(),
               "command": command_line(sys.argv[1:]), "torch": torch.__version__,
               "triton": triton.__version__, "labs": {}}
    print(f"{results['gpu']}: copy roof {b.roof:.0f} GB/s", flush=True)
    for lab in manifest.select(args.labs or None):
        start = time.time()
        print(f"\n{lab.id}", flush=True)
        results["labs"][lab.id] = tune_lab(b, lab, not args.no_sweep, folder,
                                           lambda s: print(s, flush=True),
                                           tuple(args.variant), only)
        print(f"  ({time.time() - start:.0f} s)", flush=True)
        if args.json:  # after every lab: a run cut short keeps what it measured
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)
        if args.md:
            with open(args.md, "w") as f:
                f.write(markdown(results))
    missed = [r for lab in results["labs"].values() for r in lab["rows"] if not r["target_met"]]
    print(f"\n{len(missed)} reference row(s) below target" if missed
          else "\nevery reference meets its target")


if __name__ == "__main__":
    main()
