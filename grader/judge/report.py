"""How a verdict reads: the one wording of perf rows and notes, for every front end (the
notebook's `bench()`, `tclab check`'s notes, the nbgrader feedback), so that a student reads
the same numbers in the same words wherever they look.

    rate(ex, row, roof)             3900 GB/s, 89% of the 4400 GB/s copy roof
                                    612.0 TFLOP/s, 0.82x cuBLAS        (compute-bound)
    row_line(ex, row, dtype, roof)  [n=268435456] <rate>; 0.95x the reference (0.830 ms vs
                                    0.790 ms)    (or `; torch 3800 GB/s; 0.830 ms` untimed)
    profile_note(advice)            profile (Nsight Compute, one call): <advice>
    note(grade)                     labNN_op triton: <correctness>; <perf verdict>
"""

from __future__ import annotations

from grader.judge.verdict import Grade, Verdict
from grader.lab.manifest import Exercise


def rate(ex: Exercise, row: dict, roof: float) -> str:
    """The rate of one timed shape (`bench.summary`'s row) and what bounds it: the share of
    the copy roof, or for a compute-bound exercise the multiple of its torch (a vendor
    library, timed beside the reference): no copy roof bounds a matmul."""
    if ex.unit == "bytes":
        share = (f", {row['roof_pct']:.0f}% of the {roof:.0f} GB/s copy roof"
                 if row.get("roof_pct") is not None else "")
        return f"{row['gbps']:.0f} GB/s{share}"
    beside = f", {row['x_torch']:.2f}x {ex.baseline_name}" if row.get("x_torch") else ""
    return f"{row['gbps']:.1f} TFLOP/s{beside}"


def row_line(ex: Exercise, row: dict, dtype: str, roof: float, reference: bool = True,
             remeasured: bool = False) -> str:
    """One timed shape: its rate, then the ratio to the reference and both times where the
    reference was timed (`reference`), else torch's rate (a bytes exercise: the flops one
    says it in `rate`) and the student's time."""
    parts = [f"[{ex.describe(row['shape'], dtype)}] {rate(ex, row, roof)}"]
    if reference:
        parts.append(f"{row['ratio']:.2f}x the reference ({row['student_ms']:.3f} ms vs "
                     f"{row['reference_ms']:.3f} ms)" + (" (re-measured)" if remeasured else ""))
    else:
        if ex.unit == "bytes" and row.get("torch_gbps") is not None:
            parts.append(f"torch {row['torch_gbps']:.0f} GB/s")
        parts.append(f"{row['student_ms']:.3f} ms")
    return "; ".join(parts)


def profile_note(advice: str) -> str:
    return f"profile (Nsight Compute, one call): {advice}"


def advice(verdicts: list[Verdict]) -> str | None:
    """The profiler's line the perf verdicts carry (`pipeline.profiling.feedback()`'s advice, or
    why there is none, under "profile"; the first verdict that has one), or None where none
    was profiled."""
    said = (got.get("advice") or got.get("reason")
            for got in (v.perf.get("profile") for v in verdicts) if got)
    return next(filter(None, said), None)


def note(grade: Grade) -> str:
    """One line per implementation: why it failed, or the perf verdict, or why perf was
    skipped; then the profiler's advice where there is some."""
    if not grade.correct:
        return f"{grade.exercise} {grade.impl}: {grade.reason}"
    reasons = {v.reason for v in grade.perf}
    if len(reasons) == 1:  # e.g. every dtype "skipped: needs a GPU": say it once
        perf = reasons.pop()
    else:
        perf = "; ".join(f"{v.dtype}: {v.reason}" for v in grade.perf)
    found = advice(grade.perf)
    return (f"{grade.exercise} {grade.impl}: {grade.reason}" + (f"; {perf}" if perf else "")
            + (f"\n  {profile_note(found)}" if found else ""))
