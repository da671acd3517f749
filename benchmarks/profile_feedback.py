"""The profile's advice for every perf control of tests/corpus (a correct kernel whose one flaw
is speed) and every lab solution, on a GPU: which rule fired, the line a student reads, and
what profiling adds to a check (the student's call, its process started --ahead seconds
before and its CUDA started, as grading starts it with the untimed checks; the reference's,
profiled once per machine, apart).

    python benchmarks/profile_feedback.py [LAB ...] [--only controls|solutions] [--out DIR]

Writes OUT/profile-feedback.json (every result, as it comes: a cut-short run keeps what it
has) and OUT/profile-feedback.md (the table). Needs a GPU and ncu.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from corpus_controls import CORPUS, notebook  # noqa: E402

from grader.judge import advice  # noqa: E402
from grader.lab import manifest, submission  # noqa: E402
from grader.pipeline import grading, profiling  # noqa: E402


def header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        if line.startswith("# %%"):
            break
        if line.startswith("# ") and ":" in line:
            key, value = line[2:].split(":", 1)
            fields.setdefault(key.strip(), value.strip())
    return fields


def items(labs: list[str], only: str | None) -> list[tuple[str, Path, str, str | None]]:
    """(what, notebook, impl, exercise): the perf controls, then every solution."""
    chosen = manifest.select(labs)
    out = []
    if only != "solutions":
        for lab in chosen:
            for path in sorted((CORPUS / lab.dir.name).glob("*.py")):
                h = header(path)
                if h.get("perf") == "yes" and "x the reference" in h.get("reason", ""):
                    # the notebook it stands for: the solution with the control's changes
                    out.append((f"control {path.stem}", notebook(path), h["impl"],
                                h.get("exercise")))
    if only != "controls":
        for lab in chosen:
            for ex in lab.exercises:
                for impl in ex.impls:
                    out.append(("solution", lab.source, impl, ex.name))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labs", nargs="*")
    ap.add_argument("--only", choices=["controls", "solutions"])
    ap.add_argument("--out", default="results")
    ap.add_argument("--ahead", type=float, default=8.0,
                    help="seconds the profiler's process is started before its request, as "
                         "grading starts it before the timed rounds (0: started on request)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    todo = items(args.labs, args.only)
    rows = []
    for n, (what, path, impl, exercise) in enumerate(todo, 1):
        lab = manifest.get(path.parent.name)
        nb = submission.read_notebook(path)
        parts = grading.plan(lab, nb, str(path), "gpu", impls=[impl],
                             exercises=[exercise] if exercise else None)
        ex, _, sources = parts[0]
        # As grading does (`profile.warm`, `profile.quiet`): imports and CUDA's start ahead.
        ahead = profiling.begin(ex, impl, cuda_now=True) if args.ahead else {}
        time.sleep(args.ahead)
        profiling.quiet(ahead, wait=60)
        started = time.monotonic()
        mine = profiling.run(ex, impl, sources, started=ahead.get("student"))  # what a check adds
        mine_s = round(time.monotonic() - started, 1)
        started = time.monotonic()
        ref = profiling.reference_run(ex, impl, None, ahead.get("reference"))  # kept once profiled
        ref_s = round(time.monotonic() - started, 1)
        profiling.close(ahead)
        got = advice.decide(ex, impl, mine, ref)
        row = {"lab": lab.id, "exercise": ex.key, "impl": impl, "what": what,
               "rule": got.get("rule"), "advice": got.get("advice") or got.get("reason"),
               "profile_s": mine_s, "reference_s": ref_s, "profile": got.get("profile"),
               "reference": got.get("reference")}
        rows.append(row)
        print(f"[{n}/{len(todo)}] {ex.key} {impl} {what}: {row['rule']}: {row['advice']} "
              f"({mine_s} s; reference {ref_s} s)", flush=True)
        (out / "profile-feedback.json").write_text(json.dumps(rows, indent=1))
    lines = ["| exercise | impl | submission | rule | advice | profile s |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {r['exercise']} | {r['impl']} | {r['what']} | {r['rule']} | {r['advice']} | "
              f"{r['profile_s']} |" for r in rows]
    if rows:
        secs = [r["profile_s"] for r in rows]
        lines.append(f"\nprofiling one call: median {statistics.median(secs)} s, max {max(secs)} s "
                     f"over {len(secs)}")
    (out / "profile-feedback.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
