"""Performance: the half that times (in the worker, against the hidden reference loaded in
the same process before the student's code) and the pure half that decides (in the parent).

    worker:  measure()  -> one Message per (dtype, perf or sweep shape): raw times or a refusal
    parent:  decide()   -> one Verdict per dtype: refusals, the physics floor, then the worst
                           shape's median ratio to the reference against the exercise's bar
"""

from __future__ import annotations

from grader import bench, check
from grader.judge.verdict import Message, Verdict
from grader.manifest import IMPL_WORDS, Exercise


class Refused(Exception):
    """A timed round broke a rule or produced a wrong output: args are (status, reason)."""


def measure(ex: Exercise, impl: str, student, reference, timer, watch, launches, plan: dict,
            seed_salt: str, send) -> None:
    """Interleaved rounds for each perf dtype and shape (and the sweep, first perf dtype only);
    one message per shape. Every timed student call must launch at least one kernel of its
    kind, all on the timed stream; every round's outputs are compared with the reference's on
    the same inputs."""
    import torch

    close = watch.objects[(torch, "allclose")]
    words = IMPL_WORDS[impl]

    def audited(*args):
        before, side = getattr(launches, impl), launches.side_streams
        student(*args)
        if getattr(launches, impl) == before:
            raise Refused("no_launch", f"a timed call launched no {words} kernel: the work "
                          "must happen inside the call, on the kernel")
        if launches.side_streams != side:
            raise Refused("side_stream", "a timed call launched its kernel on a side stream: "
                          "launch on the current stream (work elsewhere is not timed)")

    jobs = [(dtype, "perf", rep) for dtype in plan["dtypes"] for rep in range(plan["repeat"])]
    if plan.get("sweep") and plan["dtypes"]:
        jobs.append((plan["dtypes"][0], "sweep", 0))
    for dtype, suite, rep in jobs:
        for index, shape in enumerate(ex.shapes[suite]):
            fns = {"student": audited, "reference": reference}
            if suite == "sweep":
                fns["torch"] = bench.baseline_op(ex)

            def recheck(r, outs, shape=shape, dtype=dtype):
                atol, rtol = ex.tolerances[dtype]
                for name in outs["student"]:
                    got, want = outs["student"][name], outs["reference"][name]
                    if not bool(close(got.double(), want.double(), atol=atol * 10 + 1e-12,
                                      rtol=rtol * 10, equal_nan=False)):
                        raise Refused("fail", f"round {r}: the output differs from the "
                                      f"reference on fresh inputs [{ex.describe(shape, dtype)}]")

            def seed_of(r, suite=suite, rep=rep, index=index, dtype=dtype):
                return check.seed_for(f"{ex.key}/{dtype}", f"{suite}{rep}", index, r,
                                      secret_=seed_salt)

            times, refused = {}, None
            try:
                times = bench.time_rounds(ex, shape, dtype, fns, timer, bench.ROUNDS[suite],
                                          seed_of, recheck)
            except Refused as exc:
                refused = list(exc.args)
            send(Message(event="perf", suite=suite, index=index, repeat=rep, dtype=dtype,
                         times=times, refused=refused, tampered=watch.tampered()))
            if refused:
                return


def decide(ex: Exercise, impl: str, dtype: str, messages: list[Message], roof: float,
           info: dict | None = None) -> Verdict:
    """The perf verdict of one dtype from its perf messages (the sweep is reported, not
    judged)."""
    base = {"check": "perf", "exercise": ex.key, "impl": impl, "dtype": dtype, "device": "gpu"}
    perf = {"bar": ex.bar, "zero_below": ex.zero_below, "roof_gbps": roof, **(info or {})}
    mine = [m for m in messages if m.suite == "perf" and m.dtype == dtype]
    for m in mine:
        if m.tampered:
            return Verdict(status="tampered", reason="grading functions were replaced: "
                           + ", ".join(m.tampered), perf=perf, **base)
        if m.refused:  # a broken rule, or outputs that differ from the reference's
            status, reason = m.refused
            return Verdict(status=status, reason=reason, perf=perf, **base)
    if len({m.index for m in mine}) < len(ex.shapes["perf"]):
        return Verdict(status="error", reason="the perf run stopped early", perf=perf, **base)
    merged: dict[int, dict] = {}
    for m in mine:  # repeated measurements of a shape are decided on all their rounds
        into = merged.setdefault(m.index, {k: [] for k in m.times})
        for k, v in m.times.items():
            into[k] += v
    rows = [bench.summary(ex, ex.shapes["perf"][i], dtype, t, roof)
            for i, t in sorted(merged.items())]
    perf["rows"] = rows
    if ex.unit == "bytes":
        for row in rows:
            floor_ms = row["work"] / (bench.ROOF_SLACK * roof * 1e6)
            if row["student_ms"] < floor_ms:
                return Verdict(status="impossible", perf=perf, reason=(
                    f"[{ex.describe(row['shape'], dtype)}] {row['student_ms']:.3f} ms is faster "
                    f"than moving {row['work'] / 2**20:.0f} MiB at the roof allows "
                    f"({floor_ms:.3f} ms): work skipped or cached?"), **base)
    worst = min(rows, key=lambda r: r["ratio"])
    perf.update(ratio=worst["ratio"], gbps=worst["gbps"], roof_pct=worst["roof_pct"])
    unit = "GB/s" if ex.unit == "bytes" else "TFLOP/s"
    roof_note = (f", {worst['roof_pct']:.0f}% of the {roof:.0f} GB/s roof"
                 if ex.unit == "bytes" else "")
    return Verdict(
        status="pass" if worst["ratio"] >= ex.bar else "fail", perf=perf,
        reason=(f"{worst['ratio']:.2f}x the reference at [{ex.describe(worst['shape'], dtype)}]"
                f", bar {ex.bar:.2f}x; {worst['gbps']:.0f} {unit}{roof_note}"), **base)


def near_bar(ex: Exercise, verdict: Verdict) -> bool:
    """Within bench.REMEASURE below the bar: measured again before it fails."""
    return verdict.status == "fail" and any(
        ex.bar * (1 - bench.REMEASURE) <= row["ratio"] < ex.bar
        for row in verdict.perf.get("rows", []))


def score(verdict: Verdict, points: float) -> float:
    """Partial credit: all points at the bar, none at or below zero_below, linear between."""
    p = verdict.perf
    if verdict.status not in ("pass", "fail") or "ratio" not in p:
        return 0.0
    share = (p["ratio"] - p["zero_below"]) / (p["bar"] - p["zero_below"])
    return round(points * max(0.0, min(1.0, share)), 2)
