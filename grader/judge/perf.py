"""Performance: the half that times (in a worker: the student's launcher in one, the hidden
reference in another that holds no student code) and the pure half that decides (in the parent).

    worker:  measure()  -> one Message per (dtype, perf or sweep shape): raw times or a refusal
    parent:  merge()    -> the student's messages with the reference's times beside them
    parent:  decide()   -> one Verdict per dtype: refusals, the physics floor, then the worst
                           shape's median ratio to the reference against the exercise's bar
"""

from __future__ import annotations

import os

from grader.backends import bench
from grader.base.trace import trace
from grader.judge import report
from grader.judge.verdict import Message, Outcome, Verdict, skipped, status_of
from grader.lab import cases
from grader.lab.manifest import IMPL_WORDS, Exercise


class Refused(Exception):
    """A timed round broke a rule or produced a wrong output: args are (status, reason)."""


def measure(ex: Exercise, impl: str, calls, role: str, timer, plan: dict,
            seed_salt: str, send) -> None:
    """`repeat` timed runs of each perf dtype and shape (and the sweep, first perf dtype only)
    of `calls`: the student's stream replayed (`execution.worker.Replayed`; recorded by the host
    in the first warm-up round, so no student code runs while anything is timed), or the
    reference (role "reference", `execution.worker.Direct`), each in a process of its own; one
    message per shape. Every timed student call must launch at least one kernel of its kind,
    and its outputs must match torch's on the same inputs: checked in the first warm-up
    round, then in each round with probability `bench.RECHECK_SHARE`, drawn from the OS's
    randomness after the call returns (no call can know whether its output will be read:
    one that skips the work in 13 of the 25 rounds, enough to move the median, goes unseen
    with probability 2^-13). The reference's run also times torch for the sweep's plot, and
    on the perf shapes of a compute-bound exercise, whose verdict says how far from torch (a
    vendor library) the student is: no copy roof bounds a matmul."""
    import torch

    share = int(256 * bench.RECHECK_SHARE)
    words = IMPL_WORDS[impl]
    baseline = bench.baseline_op(ex)
    n_tensors = len(ex.inputs) + len(ex.outputs)

    def student(*args):
        run, _ = calls(list(args[:n_tensors]), list(args[n_tensors:]))
        if run.refused:
            raise Refused("fallback", f"the launcher computed on the host: {run.refused[0]}")
        if run.others:
            raise Refused("fallback", f"a timed call ran {run.others[0]}, which the cells do "
                          "not define")
        if run.launches.get(impl, 0) == 0:
            raise Refused("no_launch", f"a timed call launched no {words} kernel: the work "
                          "must happen inside the call, on the kernel")

    fn = getattr(calls, "launcher", None)
    jobs = [(dtype, "perf", rep) for dtype in plan["dtypes"] for rep in range(plan["repeat"])]
    if plan.get("sweep") and plan["dtypes"]:
        jobs.append((plan["dtypes"][0], "sweep", 0))
    for dtype, suite, rep in jobs:
        for index, shape in enumerate(ex.shapes[suite]):
            if role == "reference":
                beside = suite == "sweep" or ex.unit == "flops"
                fns = {"reference": fn, **({"torch": baseline} if beside else {})}
            else:
                fns = {"student": student}

            def recheck(r, inputs, outs, shape=shape, dtype=dtype):
                if role == "reference" or (r > -bench.WARMUP and os.urandom(1)[0] >= share):
                    return
                atol, rtol = ex.tolerances[dtype]
                expected = cases.oracle(ex, inputs, shape, device="cuda")  # never timed
                for name, got in outs["student"].items():
                    if not bool(torch.allclose(got.double(), expected[name],
                                      atol=atol * 10 + 1e-12, rtol=rtol * 10, equal_nan=True)):
                        raise Refused("fail", f"round {r}: the output differs from torch's on "
                                      f"fresh inputs [{ex.describe(shape, dtype)}]")

            def seed_of(r, suite=suite, rep=rep, index=index, dtype=dtype):
                return cases.seed_for(f"{ex.key}/{dtype}", f"{suite}{rep}", index, r,
                                      secret_=seed_salt)

            times, refused = {}, None
            trace(f"{suite} {dtype} shape {index} ({role}): rounds start")
            try:
                times = bench.time_rounds(ex, shape, dtype, fns, timer, bench.ROUNDS[suite],
                                          seed_of, recheck)
            except Refused as exc:
                refused = list(exc.args)
            trace(f"{suite} {dtype} shape {index} ({role}): rounds done")
            send(Message(event="perf", suite=suite, index=index, repeat=rep, dtype=dtype,
                         times=times, refused=refused))
            if refused:
                return


def not_measured(ex: Exercise, impl: str, device: str, reason: str) -> list[Verdict]:
    """One skipped perf verdict per benchmarked dtype: no GPU here, or nothing correct to
    time (`reason`, "skipped: ...")."""
    return [skipped("perf", reason, ex.key, impl, dtype, device) for dtype in ex.perf_dtypes]


def reference_failed(ex: Exercise, impl: str, message: str) -> list[Verdict]:
    """The hidden reference could not be timed: the grader's error, in every perf dtype."""
    return [Verdict(check="perf", status="error", reason=message.splitlines()[0],
                    exercise=ex.key, impl=impl, dtype=dtype, device="gpu", details=message)
            for dtype in ex.perf_dtypes]


def run_failed(ex: Exercise, impl: str, outcome: Outcome) -> list[Verdict]:
    """The student's timed run ended in an error or was killed: that, in every perf dtype."""
    err = outcome.error
    reason = (err.summary or err.message.strip().splitlines()[-1]) if err else \
        f"killed after {outcome.timeout:g} s"
    status = "timeout" if err is None else status_of(err.kind)
    return [Verdict(check="perf", status=status, reason=reason, exercise=ex.key, impl=impl,
                    dtype=dtype, device="gpu", details=err.message if err else outcome.output,
                    seconds=outcome.seconds) for dtype in ex.perf_dtypes]


def merge(student: list[Message], reference: list[Message]) -> list[Message]:
    """The student's perf messages with the reference's times (and torch's) for the same
    suite, shape and dtype, from the reference's own process."""
    theirs: dict = {}
    for m in reference:
        if m.event == "perf" and not m.refused:
            into = theirs.setdefault((m.suite, m.index, m.dtype), {})
            for k, v in m.times.items():
                into[k] = into.get(k, []) + list(v)
    for m in student:
        if m.event == "perf":
            m.times = {**theirs.get((m.suite, m.index, m.dtype), {}), **m.times}
    return student


def decide(ex: Exercise, impl: str, dtype: str, messages: list[Message], roof: float,
           info: dict | None = None) -> Verdict:
    """The perf verdict of one dtype from its perf messages (the sweep is reported, not
    judged)."""
    base = {"check": "perf", "exercise": ex.key, "impl": impl, "dtype": dtype, "device": "gpu"}
    perf = {"bar": ex.bar, "zero_below": ex.zero_below, "roof_gbps": roof, **(info or {})}
    mine = [m for m in messages if m.suite == "perf" and m.dtype == dtype]
    for m in mine:
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
            # What the trusted reference did on this GPU is possible: where it beats the copy
            # roof (a shape whose output the L2 holds when the timer stops: lab07's 4096x2048
            # softmax on an H100, 107% of its roof), the floor is the reference's time.
            best_ms = min(row["work"] / (roof * 1e6), row["reference_ms"])
            floor_ms = best_ms / bench.ROOF_SLACK
            if row["student_ms"] < floor_ms:
                return Verdict(status="impossible", perf=perf, reason=(
                    f"[{ex.describe(row['shape'], dtype)}] {row['student_ms']:.3f} ms is faster "
                    f"than moving {row['work'] / 2**20:.0f} MiB at the roof (or the reference) "
                    f"allows ({floor_ms:.3f} ms): work skipped or cached?"), **base)
    worst = min(rows, key=lambda r: r["ratio"])
    perf.update(ratio=worst["ratio"], gbps=worst["gbps"], roof_pct=worst["roof_pct"],
                unit=ex.unit, x_torch=worst.get("x_torch"), torch_name=ex.baseline_name)
    return Verdict(
        status="pass" if worst["ratio"] >= ex.bar else "fail", perf=perf,
        reason=(f"{worst['ratio']:.2f}x the reference at [{ex.describe(worst['shape'], dtype)}]"
                f", bar {ex.bar:.2f}x; {report.rate(ex, worst, roof)}"), **base)


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
