"""`tclab`: check submissions, scaffold and release labs.

    tclab check [LAB ...] [--submission workspace|exercises|solutions|PATH] [--device ...] [-v]
    tclab new labNN_<op>
    tclab release [--check]
    tclab course build|leakcheck|autograde ...      (the instructor's tools: nbgrader)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader.backends import device as dev
from grader.base import paths, startup
from grader.execution import runner
from grader.judge import report
from grader.judge.verdict import Grade
from grader.lab import manifest, release
from grader.pipeline import grading

# Dtypes as the table's narrow cells name them (the notes below it spell them out).
_SHORT_DTYPE = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def _perf_cells(grade: Grade, mixed: bool) -> tuple[str, str, str]:
    """Rate, share of the roof (bytes) or multiple of torch (flops), ratio to the reference.
    `mixed`: bytes and flops exercises share the columns, so each cell carries its unit."""
    worst = grade.worst_perf
    if worst is None:
        return "-", "-", "-"
    p = worst.perf
    if "ratio" in p:
        verdict = "pass" if worst.status == "pass" else "[red]FAIL[/]"
        dtype = f" {_SHORT_DTYPE.get(worst.dtype, worst.dtype)}" if len(grade.perf) > 1 else ""
        if p.get("unit", "bytes") == "bytes":
            roof = f"{p['roof_pct']:.0f}%" if p.get("roof_pct") is not None else "-"
            rate = f"{p['gbps']:.0f}" + (" GB/s" if mixed else "")
        else:  # compute-bound: no copy roof; the multiple of its torch (a vendor library)
            roof = f"{p['x_torch']:.2f}x {p['torch_name']}" if p.get("x_torch") else "-"
            rate = f"{p['gbps']:.{1 if p['gbps'] < 100 else 0}f}" + (" TFLOP/s" if mixed else "")
        return rate, roof, f"{p['ratio']:.2f}{dtype} {verdict}"
    if worst.status == "skipped":
        return "-", "-", worst.reason.removeprefix("skipped: ")
    return "-", "-", f"[red]{worst.status}[/]"


def _correct_cell(grade: Grade) -> str:
    if grade.correct:
        return f"[green]{grade.passed}/{grade.total}[/]"
    counted = f" {grade.passed}/{grade.total}" if grade.status == "fail" else ""
    return f"[red]{grade.status}[/]{counted}"


def _table(grades: list[Grade], device: str):
    """Fits 110 columns with every cell whole (no outer frame; the longest exercise key, a
    status and a rate with its unit still fit): without a measured rate anywhere (a CPU, or
    nothing correct) the three perf columns fold into one that says why."""
    from rich.table import Table

    table = Table(title=f"tclab check ({device})", show_edge=False, pad_edge=False)
    units = {manifest.exercise(g.exercise).unit for g in grades} or {"bytes"}
    mixed = len(units) > 1
    rate, roof = ("rate", "roof | torch") if mixed else \
        {"bytes": ("GB/s", "% roof"), "flops": ("TFLOP/s", "x torch")}[units.pop()]
    measured = any(g.worst_perf is not None and "ratio" in g.worst_perf.perf for g in grades)
    perf_cols = (rate, roof, "vs ref") if measured else ("perf",)
    for col in ("exercise", "impl", "correct", *perf_cols):
        table.add_column(col, no_wrap=True)
    for g in grades:
        cells = _perf_cells(g, mixed)
        table.add_row(g.exercise, g.impl, _correct_cell(g), *(cells if measured else cells[2:]))
    return table


def cmd_check(args) -> int:
    from rich.console import Console
    from rich.progress import Progress

    console = Console(width=max(Console().width, 110))
    device = dev.resolve(args.device)
    dev.use(device)
    labs = manifest.select(args.labs)
    where = args.submission or grading.default_submission()
    jobs = sum(len(ex.impls) for lab in labs for ex in lab.exercises)
    finished = 0
    # One submitter: a worker server serves every check (runner.session).
    with Progress(console=console, transient=True) as progress, runner.session():
        task = progress.add_task("reading", total=jobs)
        # Each lab's notebook read once, every part of it planned; then all graded in one run.
        parts = [part for lab in labs for part in grading.plan_submission(lab, where, device)]

        def done(g: Grade, seconds: float) -> None:
            nonlocal finished
            finished += 1
            progress.update(task, description=f"{g.exercise} {g.impl}", advance=1)
            if not console.is_terminal:  # a log file: one line per job instead of a bar
                spent = ", ".join(f"{v.check}{' ' + v.dtype if v.dtype else ''} "
                                  f"{v.seconds:.0f} s" for v in g.checks + g.perf if v.seconds)
                console.print(f"[{finished}/{jobs}] {g.exercise} {g.impl}: {g.status} "
                              f"after {seconds:.0f} s ({spent})", markup=False, highlight=False)

        grades = grading.grade_parts(parts, device, timeout=args.timeout,
                                     plot_dir=Path(args.plots), on_done=done)
    console.print(_table(grades, device))
    unboxed = next((g.unsandboxed for g in grades if g.unsandboxed), "")
    if unboxed:
        console.print(f"WARNING: student code ran WITHOUT the sandbox ({unboxed}): it could read "
                      "this machine's files (solutions, references, secrets). Fine for your own "
                      "notebook; for grading others' work, see the README.", style="bold red",
                      markup=False)
    for g in grades:
        console.print(report.note(g), markup=False, highlight=False)
        bad = g.first_failure
        if args.verbose and bad is not None and bad.details and bad.details.strip() != bad.reason:
            console.print(f"{g.exercise} {g.impl}", style="bold", markup=False)
            console.print(bad.details, markup=False, highlight=False)
    out = Path(args.results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": device, "results": [g.to_dict() for g in grades]},
                              indent=1))
    console.print(f"results: {out}", markup=False)
    return 0 if all(g.ok for g in grades) else 1


def cmd_new(args) -> int:
    from grader.lab import scaffold
    try:
        written = scaffold.new(args.lab_id, title=args.title)
    except scaffold.ScaffoldError as exc:
        print(f"tclab new: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(f"wrote {path.relative_to(paths.ROOT)}")
    print(f"\nnext: fill in labs/{args.lab_id}/ (the notebook's solution cells, lab.toml's "
          f"oracle and shapes) and reference/{args.lab_id}/, then `tclab release` and "
          f"`tclab check {args.lab_id} --submission solutions`")
    return 0


def cmd_release(args) -> int:
    report = release.release_tree(manifest.select(args.labs), paths.EXERCISES,
                                  check=args.check, force=args.force)
    for line in report.lines:
        print(line)
    for line in report.problems:
        print(line, file=sys.stderr)
    return 1 if report.problems else 0


def _no_course(args) -> int:
    print("tclab course: the course tools need nbgrader: `pip install -e .[course]` (or the "
          "README's conda route)", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    startup.skip_iri_grammar()
    parser = argparse.ArgumentParser(prog="tclab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="grade submissions: correctness, then bandwidth on a GPU")
    p.add_argument("labs", nargs="*", help="lab ids or prefixes (default: all)")
    p.add_argument("--all", action="store_true", help="every lab (the default)")
    p.add_argument("--submission", default=None,
                   help="workspace (your working copy) | exercises (the release) | solutions | "
                        "a notebook or a folder of them (default: workspace/ where it exists, "
                        "else exercises/)")
    p.add_argument("--device", choices=dev.CHOICES, default=None,
                   help="where kernels run (default: TCLAB_DEVICE or auto: the GPU if there is "
                        "one)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per check")
    p.add_argument("--results", default="results/results.json",
                   help="the JSON file of every verdict (default: results/results.json)")
    p.add_argument("--plots", default="results", help="folder for the bandwidth plots (GPU)")
    p.add_argument("-v", "--verbose", action="store_true", help="print full failure details")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("new", help="scaffold labs/labNN_<op>/ and reference/labNN_<op>/")
    p.add_argument("lab_id", help="labNN_<op>, e.g. lab13_row_sum")
    p.add_argument("--title", default=None, help="the lab's title (default: from the op)")
    p.set_defaults(func=cmd_new)
    p = sub.add_parser("release", help="regenerate exercises/ from labs/")
    p.add_argument("labs", nargs="*", help="lab ids or prefixes (default: all)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true",
                      help="fail if exercises/ is out of date or was edited; write nothing")
    mode.add_argument("--force", action="store_true",
                      help="release over an edited notebook, keeping a copy of it beside it")
    p.set_defaults(func=cmd_release)
    try:
        from grader.course import cli as course_cli
    except ImportError:  # the course tools need nbgrader: `pip install -e .[course]`
        course_cli = None
    if course_cli is not None:
        course_cli.add_parser(sub)
    else:  # listed all the same: `tclab course` says what to install
        p = sub.add_parser("course", help="nbgrader course: build, leakcheck, autograde "
                           "(needs nbgrader)")
        p.add_argument("rest", nargs=argparse.REMAINDER, help="the course command's arguments")
        p.set_defaults(func=_no_course)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (manifest.ManifestError, dev.DeviceError) as exc:
        print(f"tclab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
