"""Are perf verdicts reproducible? The labs' solutions and deliberately slow submissions,
each measured N times by the grader's own perf protocol, on a GPU.

    python benchmarks/reproducibility.py [-n 20] [--out DIR] [--impl triton|cuda] [LAB ...]

The submissions: each lab's solution for every exercise and implementation (expected to pass)
and its corpus controls marked `perf: yes`, `status: fail` (slow on purpose, expected to fail).
Each repetition is a complete perf measurement (warm-up, rounds with fresh inputs, outputs
checked against the oracle) decided by `grader.judge.perf.decide`; the reference runs its N
repetitions in a worker of its own, the submission in another. Prints passes out of N and the
spread of the ratio; writes reproducibility.json and a strip plot.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from corpus_controls import CORPUS, notebook  # noqa: E402

from grader.backends import bench  # noqa: E402
from grader.judge import perf  # noqa: E402
from grader.lab import manifest, submission  # noqa: E402
from grader.pipeline import grading  # noqa: E402


def _header(path: Path) -> dict[str, str]:
    """The first value of each `# key: value` line before the first cell."""
    fields: dict[str, str] = {}
    for line in path.read_text().splitlines():
        if line.startswith("# %%"):
            break
        if line.startswith("# ") and ":" in line:
            key, value = line[2:].split(":", 1)
            fields.setdefault(key.strip(), value.strip())
    return fields


def submissions(lab_ids: list[str]):
    """(exercise, impl, path, expected): each lab's solution per exercise and
    implementation (pass), then its controls that fail on speed alone (fail)."""
    for lab in manifest.select(lab_ids):
        for ex in lab.exercises:
            for impl in ex.impls:
                yield ex, impl, lab.source, "pass"
        for path in sorted((CORPUS / lab.id).glob("*.py")):
            want = _header(path)
            if want.get("perf") == "yes" and want.get("status") == "fail":
                yield lab.exercise(want.get("exercise")), want["impl"], path, "fail"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--out", default="results")
    parser.add_argument("--impl", choices=("triton", "cuda"), help="only this implementation")
    parser.add_argument("labs", nargs="*", help="lab ids or prefixes (default: every lab)")
    args = parser.parse_args()
    roof = bench.copy_roof()["gbps"]
    report = []
    for ex, impl, path, expected in submissions(args.labs):
        if args.impl and impl != args.impl:
            continue
        lab_id = ex.key
        dtype = ex.perf_dtypes[0]
        nb = notebook(path) if CORPUS in Path(path).parents else path  # a control: as it grades
        sources = submission.cell_sources(submission.read_notebook(nb), ex.impls[impl].cells)
        run = grading.measure(ex, impl, sources, 900, False, [dtype], repeat=args.n)
        if run.error is not None or run.timed_out:
            print(f"{lab_id} {impl} {Path(path).name}: ERROR "
                  f"{(run.error.message if run.error else run.output)[-300:]}")
            continue
        verdicts = []
        for rep in range(args.n):
            msgs = [m for m in run.messages if m.suite == "perf" and m.repeat == rep]
            verdicts.append(perf.decide(ex, impl, dtype, msgs, roof))
        ratios = [v.perf.get("ratio", float("nan")) for v in verdicts]
        passes = sum(v.status == "pass" for v in verdicts)
        near = sum(perf.near_bar(ex, v) for v in verdicts)
        agree = passes if expected == "pass" else args.n - passes
        row = {"lab": lab_id, "impl": impl, "submission": Path(path).name, "expected": expected,
               "passes": passes, "n": args.n, "as_expected": agree, "near_bar": near,
               "ratio_min": min(ratios), "ratio_median": statistics.median(ratios),
               "ratio_max": max(ratios), "ratios": ratios, "seconds": run.seconds}
        report.append(row)
        print(f"{lab_id:17} {impl:6} {Path(path).name:28} expected {expected}: "
              f"{agree}/{args.n} as expected; ratio min {row['ratio_min']:.3f} median "
              f"{row['ratio_median']:.3f} max {row['ratio_max']:.3f}; within 5% below the bar "
              f"(re-measured when grading): {near}; {run.seconds:.0f} s", flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reproducibility.json").write_text(json.dumps(report, indent=1))
    plot(report, out / "reproducibility.png")


def plot(report: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    for i, row in enumerate(report):
        ax.plot([i] * len(row["ratios"]), row["ratios"], "o", alpha=0.5,
                color="tab:green" if row["expected"] == "pass" else "tab:red")
    bar = manifest.exercise(report[0]["lab"]).bar if report else 0.8
    ax.axhline(bar, color="gray", ls="--", label=f"bar {bar:.2f}x")
    ax.set_xticks(range(len(report)),
                  [f"{r['lab'][:5]} {r['impl']}\n{r['submission'][:22]}" for r in report],
                  fontsize=7)
    ax.set_ylabel("ratio to the reference (median of rounds)")
    ax.set_title("perf verdicts, repeated")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
