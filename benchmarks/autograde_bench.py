"""Autograde throughput: N copies of a lab's solution handed in to a fresh course and graded
by `tclab course autograde`; the wall time per submission (median, and each phase's median),
the whole run's time, the scores.

    python benchmarks/autograde_bench.py [LAB] [-n 20] [--gpus 1 [2 ...]] [--mode tasks|nbgrader]
                                         [--device auto|cpu|gpu] [--out DIR]

--mode tasks     as `tclab course autograde` grades (one grading task per submission, the
                 untimed checks beside the notebook's execution, one gradebook writer)
--mode nbgrader  one `nbgrader autograde --student S` per submission, one after another: the
                 course's plain nbgrader path, everything in turn (the baseline)

Writes OUT/autograde-LAB-MODE-gGPUS.json (every outcome, phases, totals) and prints a table;
with TCLAB_TRACE=1 the tasks' logs, time stamps of every check's worker in them, go to
OUT/logs-LAB-MODE-gGPUS/.
On a CPU the numbers are the CPU's: this measures the grader's overhead, not a kernel.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import nbformat  # noqa: E402
from course_cases import students  # noqa: E402

from grader import cli  # noqa: E402
from grader.backends import device as dev  # noqa: E402
from grader.base.trace import PREFIX  # noqa: E402
from grader.base.trace import enabled as trace_enabled  # noqa: E402
from grader.course import autograde, build, task  # noqa: E402
from grader.lab import manifest  # noqa: E402

PHASES = ("start-up", "setup", "execute", "wait_for_untimed", "regrade", "nbgrader",
          "correctness (sum)", "memcheck (sum)", "perf (sum)", "profile (sum)")


def distinct(nb, tag: str):
    """`nb` with a comment naming `tag` in every kernel of its solution cells: in each CUDA C
    source string and in each @triton.jit function's body. A class's kernels all differ, so no
    compile cache may serve one submission with another's compile, as identical copies would
    (the notebook's kernel keeps pycuda's cache across submissions)."""
    import ast

    for cell in nb.cells:
        if cell.cell_type != "code" or not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        lines = cell.source.splitlines()
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        kernels = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
                   and any("jit" in ast.unparse(d) for d in node.decorator_list)]
        for node in sorted(kernels, key=lambda k: -k.body[0].lineno):  # from the bottom up
            first = node.body[0]
            lines.insert(first.lineno - 1, " " * first.col_offset + f"# {tag}")
        source = "\n".join(lines)
        if "__global__" in source:  # the CUDA C string: its first line after the quotes
            source = source.replace('"""', f'"""// {tag}\n', 1)
        cell.source = source
    return nb


def make_course(root: Path, lab, n: int, same: bool = False) -> list[str]:
    assert cli.main(["course", "build", str(root), lab.id]) == 0
    proc = subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", lab.id,
                           "--force"], cwd=root, env=autograde.nbgrader_env(),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"nbgrader generate_assignment failed:\n{proc.stdout[-3000:]}\n"
                 f"{proc.stderr[-3000:]}")
    release = root / "release" / lab.id / lab.notebook_name
    who = [f"student{i:02d}" for i in range(1, n + 1)]
    for name in who:
        folder = root / "submitted" / name / lab.id
        folder.mkdir(parents=True)
        nb = students.solution(lab, nbformat.read(release, as_version=4))
        nbformat.write(nb if same else distinct(nb, f"handed in by {name}"),
                       folder / lab.notebook_name)
    return who


def run_nbgrader(root: Path, lab, who: list[str], device: str) -> list[dict]:
    """The baseline: one nbgrader autograde process per submission, in turn."""
    rows = []
    for student in who:
        started = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", lab.id,
                               "--student", student, "--force"], cwd=root,
                              env=autograde.nbgrader_env({"TCLAB_DEVICE": device}),
                              capture_output=True, text=True)
        seconds = time.monotonic() - started
        saved = root / ".tclab" / "verdicts" / lab.id / f"{student}.json"
        data = json.loads(saved.read_text()) if saved.exists() else {}
        wall = {**data.get("wall", {}), **task.check_walls(data.get("grades", []))}
        rows.append({"student": student, "status": "graded" if proc.returncode == 0 else
                     "failed", "seconds": round(seconds, 1), "wall": wall})
        print(f"  {student}: {seconds:.1f} s", flush=True)
    autograde.read_scores(root, lab.id, outs := [autograde.Outcome(r["student"], r["status"])
                                                 for r in rows])
    for row, out in zip(rows, outs):
        row["score"], row["max_score"] = out.score, out.max_score
    return rows


def trace_table(logs: Path) -> list[str]:
    """From the tasks' logs (TCLAB_TRACE=1): each worker run's seconds, from the task's first
    request, to its request, its module loaded and its end; medians over the submissions."""
    import re

    seen: dict[str, dict[str, list[float]]] = {}
    for log in sorted(logs.glob("*.log")):
        stamps = [(float(m[1]), m[2], m[3]) for m in re.finditer(
            rf"^{PREFIX}([\d.]+) \[([^\]]+)\] (.+)$", log.read_text(), re.M)]
        start, count, current = min((s[0] for s in stamps), default=0.0), {}, {}
        for when, label, what in stamps:  # one run's stamps are one block, its request first
            if what == "request sent":
                count[label] = count.get(label, 0) + 1  # memcheck's two tools share a label
                key = label if count[label] == 1 else f"{label} #{count[label]}"
                current[label], what = seen.setdefault(key, {}), "sent"
            elif what not in ("loaded", "ended") or label not in current:
                continue
            current[label].setdefault(what, []).append(when - start)
    rows = sorted(seen.items(), key=lambda kv: statistics.median(kv[1]["sent"]))
    return [f"  {key}: " + ", ".join(f"{mark} {statistics.median(v):.1f}"
                                     for mark, v in marks.items()) for key, marks in rows]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("lab", nargs="?", default="lab01")
    p.add_argument("-n", type=int, default=20, help="submissions (default 20)")
    p.add_argument("--gpus", type=int, nargs="+", default=[1])
    p.add_argument("--mode", choices=("tasks", "nbgrader"), default="tasks")
    p.add_argument("--device", choices=dev.CHOICES, default=None)
    p.add_argument("--out", default="results")
    p.add_argument("--same", action="store_true",
                   help="every submission the same notebook (default: each one's kernels "
                   "differ by a comment, as a class's do, so that no compile is shared)")
    args = p.parse_args(argv)
    lab = manifest.get(args.lab)
    device = dev.resolve(args.device)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = []
    for gpus in args.gpus if args.mode == "tasks" else [1]:
        with tempfile.TemporaryDirectory(prefix="tclab-bench-") as tmp:
            root = Path(tmp) / "course"
            who = make_course(root, lab, args.n, args.same)
            print(f"{lab.id}: {args.n} {'identical' if args.same else 'distinct'} submissions, "
                  f"{args.mode}, {device}, {gpus} GPU(s)", flush=True)
            started = time.monotonic()
            if args.mode == "tasks":
                rows = [o.to_dict() for o in autograde.autograde(root, lab.id, device, gpus)]
            else:
                rows = run_nbgrader(root, lab, who, device)
            total = time.monotonic() - started
            if trace_enabled():  # the tasks' logs hold the time stamps
                logs = root / build.STATE / "logs" / lab.id
                shutil.copytree(logs, out_dir / f"logs-{lab.id}-{args.mode}-g{gpus}",
                                dirs_exist_ok=True)
                print("  worker runs (median s from the task's first request):\n" +
                      "\n".join(trace_table(logs)), flush=True)
        result = {"lab": lab.id, "mode": args.mode, "device": device, "gpus": gpus,
                  "n": args.n, "distinct": not args.same, "total_s": round(total, 1),
                  "median_s": statistics.median(r["seconds"] for r in rows),
                  "phases_median_s": {ph: statistics.median(r["wall"].get(ph, 0) for r in rows)
                                      for ph in PHASES if any(ph in r["wall"] for r in rows)},
                  "scores": sorted({f"{r.get('score')}/{r.get('max_score')}" for r in rows}),
                  "statuses": sorted({r["status"] for r in rows}), "submissions": rows}
        path = out_dir / f"autograde-{lab.id}-{args.mode}-g{gpus}.json"
        path.write_text(json.dumps(result, indent=1))
        summary.append(result)
        print(f"{lab.id} {args.mode} {gpus} GPU(s): {args.n} submissions in {total:.0f} s, "
              f"median {result['median_s']:.1f} s per submission; scores {result['scores']}; "
              f"statuses {result['statuses']}", flush=True)
        print("  phases (median s): " + ", ".join(
            f"{k} {v:.1f}" for k, v in result["phases_median_s"].items()), flush=True)
        for r in rows:  # what perf and its profile took per check, submission by submission
            checks = [f"{g['exercise'].split('/')[-1]} {g['impl']} perf "
                      f"{g['wall'].get('perf', '-')} profile {g['wall'].get('profile', '-')}"
                      for g in r.get("verdicts", []) if g.get("wall")]
            if checks:
                print(f"  {r['student']} {r['seconds']:.1f} s: " + "; ".join(checks), flush=True)
        print(f"  written: {path}", flush=True)
    if len(summary) > 1:
        base = summary[0]["total_s"]
        for r in summary[1:]:
            print(f"{r['gpus']} GPUs: {r['total_s']:.0f} s = {r['total_s'] / base:.2f}x the "
                  f"time of {summary[0]['gpus']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
