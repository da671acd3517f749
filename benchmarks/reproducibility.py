"""Are perf verdicts reproducible? The labs' solutions and deliberately slow submissions,
each measured N times by the grader's own perf protocol, on a GPU.

    python benchmarks/reproducibility.py [-n 20] [--out DIR]

Each repetition is a complete perf measurement (warm-up, interleaved rounds with fresh inputs,
outputs rechecked, median per-round ratio) decided by `grader.judge.perf.decide`; one worker
process per submission runs its N repetitions back to back. Prints passes out of N and the
spread of the ratio; writes reproducibility.json and a strip plot.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from grader import bench, grading, manifest, submission
from grader.judge import perf

ROOT = Path(__file__).resolve().parent.parent
SUBMISSIONS = [  # (lab, impl, notebook, expected verdict)
    ("lab01_vector_add", "triton", "labs/lab01_vector_add/lab01_vector_add.py", "pass"),
    ("lab01_vector_add", "cuda", "labs/lab01_vector_add/lab01_vector_add.py", "pass"),
    ("lab07_softmax", "triton", "labs/lab07_softmax/lab07_softmax.py", "pass"),
    ("lab07_softmax", "cuda", "labs/lab07_softmax/lab07_softmax.py", "pass"),
    ("lab01_vector_add", "triton", "tests/corpus/lab01_vector_add/triton_two_pass_slow.py",
     "fail"),
    ("lab07_softmax", "triton", "tests/corpus/lab07_softmax/triton_two_kernels_slow.py", "fail"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=20)
    parser.add_argument("--out", default="results")
    parser.add_argument("--impl", choices=("triton", "cuda"), help="only this implementation")
    args = parser.parse_args()
    roof = bench.copy_roof()["gbps"]
    report = []
    for lab_id, impl, path, expected in SUBMISSIONS:
        if args.impl and impl != args.impl:
            continue
        ex = manifest.get(lab_id).exercise()
        dtype = ex.perf_dtypes[0]
        sources = submission.cell_sources(submission.read_notebook(ROOT / path),
                                          ex.impls[impl].cells)
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
    bar = manifest.get(report[0]["lab"]).exercise().bar if report else 0.8
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
