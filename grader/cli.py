"""`tclab`: check submissions, benchmark, regenerate the student release.

    tclab check [LAB ...] [--submission solutions|exercises|PATH] [--device auto|cpu|gpu]
    tclab release [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from grader import device as dev
from grader import grading, manifest, paths, release


def _table(results: list[dict], device: str):
    from rich.table import Table

    table = Table(title=f"tclab check ({device})")
    for col in ("lab", "impl", "shapes", "correct", "GB/s", "% of roof", "ratio to ref"):
        table.add_column(col, no_wrap=True)
    for r in results:
        perf = r.get("perf", {})
        if perf.get("status") in ("pass", "fail") and "ratio" in perf:
            verdict = "pass" if perf["status"] == "pass" else "[red]FAIL[/]"
            cells = (f"{perf['gbps']:.0f}", f"{perf['roof_pct']:.0f}%",
                     f"{perf['ratio']:.2f} {verdict}")
        elif perf.get("status") == "skipped":
            cells = ("-", "-", perf["reason"].removeprefix("skipped: "))
        else:
            cells = ("-", "-", f"[red]{perf['status']}[/]" if perf else "-")
        correct = "[green]yes[/]" if r["correct"] else f"[red]{r['status']}[/]"
        table.add_row(r["lab"], r["impl"], f"{r['passed']}/{r['total']}", correct, *cells)
    return table


def _notes(results: list[dict]) -> list[str]:
    """One line per implementation: why it failed, or the perf verdict, or why perf was skipped."""
    lines = []
    for r in results:
        perf = r.get("perf", {})
        reason = r["reason"] if not r["correct"] else perf.get("reason", r["reason"])
        lines.append(f"{r['lab']} {r['impl']}: {reason}")
    return lines


def cmd_check(args) -> int:
    from rich.console import Console
    from rich.progress import Progress

    console = Console(width=max(Console().width, 110))
    device = dev.resolve(args.device)
    dev.use(device)
    labs = manifest.select(args.labs)
    results, failed = [], False
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("checking", total=sum(len(lab.impls) for lab in labs))
        for lab in labs:
            try:
                path = grading.resolve_submission(lab, args.submission)
            except ValueError as exc:
                console.print(f"[red]{exc}[/]")
                return 2
            for impl in lab.impls:
                progress.update(task, description=f"{lab.id} {impl}")
                (result,) = grading.grade_notebook(lab, path, device, impls=[impl],
                                                   timeout=args.timeout,
                                                   plot_dir=Path(args.plots))
                results.append(result)
                failed |= not grading.ok(result)
                progress.advance(task)
    console.print(_table(results, device))
    for line in _notes(results):
        console.print(line, markup=False, highlight=False)
    for r in results:
        if not r["correct"]:
            details = next((c.get("details") for c in r["checks"] if c["status"] != "pass"), None)
            if details and args.verbose:
                console.print(f"[bold]{r['lab']} {r['impl']}[/]\n{details}", markup=False)
    out = Path(args.results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"device": device, "results": results}, indent=1))
    console.print(f"results: {out}")
    return 1 if failed else 0


def cmd_release(args) -> int:
    stale = []
    for lab in manifest.select(args.labs):
        if args.check:
            if release.stale(lab, paths.EXERCISES):
                stale.append(lab.id)
        else:
            print(f"wrote {release.release(lab, paths.EXERCISES).relative_to(paths.ROOT)}")
    if stale:
        print(f"exercises/ is out of date for {', '.join(stale)}: run `tclab release`",
              file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tclab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="grade submissions: correctness, then bandwidth on a GPU")
    p.add_argument("labs", nargs="*", help="lab ids or prefixes (default: all)")
    p.add_argument("--all", action="store_true", help="every lab (the default)")
    p.add_argument("--submission", default="exercises",
                   help="solutions | exercises | a notebook or a folder of them")
    p.add_argument("--device", choices=dev.CHOICES, default=None)
    p.add_argument("--timeout", type=float, default=None, help="seconds per check")
    p.add_argument("--results", default="results/results.json")
    p.add_argument("--plots", default="results", help="folder for the bandwidth plots (GPU)")
    p.add_argument("-v", "--verbose", action="store_true", help="print full failure details")
    p.set_defaults(func=cmd_check)
    p = sub.add_parser("release", help="regenerate exercises/ from labs/")
    p.add_argument("labs", nargs="*")
    p.add_argument("--check", action="store_true", help="fail if exercises/ is out of date")
    p.set_defaults(func=cmd_release)
    try:
        from grader.course import cli as course_cli
    except ImportError:  # the course tools need nbgrader: `pip install -e .[course]`
        course_cli = None
    if course_cli is not None:
        course_cli.add_parser(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (manifest.ManifestError, dev.DeviceError) as exc:
        print(f"tclab: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
