"""The perf protocol's logic, on the CPU with a fake timer: GPU timing itself is measured by
`make gpu-check`, never by a unit test. These pin the rules that turn times into verdicts."""

from __future__ import annotations

import pytest
import torch

from grader.backends import bench
from grader.judge import perf
from grader.judge.verdict import Message
from grader.lab import manifest

EX = manifest.exercise("lab01")
SHAPE = {"n": 1000}


class FakeTimer:
    """Calls fn, records the order, and 'takes' a fixed time per function."""

    def __init__(self, ms: dict):
        self.ms, self.calls = ms, []

    def time(self, fn, *args) -> float:
        fn(*args)
        self.calls.append(fn.__name__)
        return self.ms[fn.__name__]


def student(x, y, out):
    out.copy_(x + y)


def reference(x, y, out):
    out.copy_(x + y)


def test_rounds_alternate_exclude_warmup_and_draw_fresh_inputs():
    seen = []

    def spy(x, y, out):
        seen.append(x.clone())
        student(x, y, out)

    spy.__name__ = "student"
    timer = FakeTimer({"student": 2.0, "reference": 1.0})
    times = bench.time_rounds(EX, SHAPE, "float32", {"student": spy, "reference": reference},
                              timer, 4, lambda r: 100 + r, device="cpu")
    assert times == {"student": [2.0] * 4, "reference": [1.0] * 4}  # warm-up not kept
    rounds = bench.WARMUP + 4
    assert len(timer.calls) == 2 * rounds
    pairs = list(zip(timer.calls[::2], timer.calls[1::2]))
    assert all(a == b[::-1] for a, b in zip(pairs, pairs[1:]))  # who goes first alternates
    assert all(not torch.equal(a, b) for a, b in zip(seen, seen[1:]))


def test_a_round_check_stops_the_rounds():
    def wrong(r, inputs, outs):
        raise perf.Refused("fail", f"round {r}: differs")

    with pytest.raises(perf.Refused, match="round -3: differs"):
        bench.time_rounds(EX, SHAPE, "float32", {"student": student, "reference": reference},
                          FakeTimer({"student": 1.0, "reference": 1.0}), 4, lambda r: r, wrong,
                          device="cpu")


def message(student_ms: float, reference_ms: float, dtype: str = "float32",
            **extra) -> Message:
    return Message(event="perf", suite="perf", index=0, dtype=dtype,
                   times={"student": [student_ms] * 5, "reference": [reference_ms] * 5},
                   **extra)


def decide(*messages, dtype="float32"):
    return perf.decide(EX, "triton", dtype, list(messages), ROOF)


ROOF = 4000.0  # GB/s; the perf shape moves 3 GiB: the floor is about 0.77 ms


@pytest.mark.parametrize("student_ms,status", [(0.80, "pass"), (1.00, "pass"), (1.30, "fail"),
                                               (0.50, "impossible")])
def test_decide_ratio_bar_and_physics_floor(student_ms, status):
    verdict = decide(message(student_ms, 0.82))
    assert verdict.status == status, verdict.reason


def test_decide_keeps_a_refusal():
    refused = message(0.8, 0.8, refused=["no_launch", "a timed call launched no kernel"])
    assert decide(refused).status == "no_launch"


def test_near_bar_only_just_below_it():
    assert perf.near_bar(EX, decide(message(1.0, 0.79)))  # 0.79
    assert not perf.near_bar(EX, decide(message(1.0, 0.70)))
    assert not perf.near_bar(EX, decide(message(1.0, 0.85)))


def test_each_dtype_is_decided_on_its_own_bytes():
    """16-bit moves half the bytes: the same time is half the GB/s, and the physics floor is
    half as long (0.38 ms), so 0.5 ms is possible in float16 and impossible in float32."""
    assert decide(message(0.5, 0.82)).status == "impossible"
    half = decide(message(0.5, 0.5, dtype="float16"), dtype="float16")
    assert half.status == "pass" and half.perf["gbps"] == pytest.approx(
        3 * 2**28 * 2 / 0.5e6)


def test_a_reference_faster_than_the_roof_moves_the_floor():
    """Where the reference itself beats the copy roof (its output still in the L2 when the
    timer stops), a student as fast passes; one twice as fast as the reference is still
    impossible."""
    assert decide(message(0.72, 0.72)).status == "pass"  # 0.72 ms: 107% of the roof
    assert decide(message(0.36, 0.72)).status == "impossible"
    assert decide(message(0.72, 0.82)).status == "impossible"  # the control: floor ~0.77 ms


def test_remeasured_rounds_are_decided_together():
    first, again = message(1.0, 0.79), message(1.0, 0.85)
    row = decide(first, again).perf["rows"][0]
    assert row["ratio"] == pytest.approx(0.82) and len(row["ratios"]) == 10


def test_the_reference_times_come_from_its_own_process():
    """The student's worker times only the student; the reference's worker (no student code
    in it) sends its own messages, merged by suite, shape and dtype."""
    mine = [Message(event="perf", suite="perf", index=0, dtype="float32",
                    times={"student": [1.0] * 5})]
    theirs = [Message(event="perf", suite="perf", index=0, dtype="float32",
                      times={"reference": [0.9] * 5}),
              Message(event="perf", suite="perf", index=0, dtype="float16",
                      times={"reference": [0.1] * 5})]
    merged = perf.merge(mine, theirs)
    assert merged[0].times == {"reference": [0.9] * 5, "student": [1.0] * 5}
    assert decide(*merged).perf["ratio"] == pytest.approx(0.9)


def test_partial_credit_is_linear_between_zero_below_and_the_bar():
    assert perf.score(decide(message(1.0, 0.80)), 2) == 2
    assert perf.score(decide(message(1.0, 0.70)), 2) == 1
    assert perf.score(decide(message(1.0, 0.55)), 2) == 0
    assert perf.score(decide(message(0.8, 0.8, refused=["fail", "differs"])), 2) == 0


def test_a_compute_bound_exercise_reports_tflops_and_its_torch():
    """flops instead of bytes: TFLOP/s, no copy roof and no physics floor from it; the torch
    timed beside the reference (a vendor library, named by the manifest) gives "x torch"."""
    import dataclasses

    ex = dataclasses.replace(EX, work="2 * n * n * n", unit="flops", baseline_name="a library")
    m = Message(event="perf", suite="perf", index=0, dtype="float32",
                times={"student": [2.0] * 5, "reference": [1.6] * 5, "torch": [1.5] * 5})
    verdict = perf.decide(ex, "cuda", "float32", [m], ROOF)
    tflops = 2 * 2**84 / 2e9  # the perf shape's n = 2^28; 2 ms
    assert verdict.status == "pass" and verdict.perf["gbps"] == pytest.approx(tflops)
    assert verdict.perf["roof_pct"] is None and verdict.perf["x_torch"] == pytest.approx(0.75)
    assert verdict.reason.endswith(f"{tflops:.1f} TFLOP/s, 0.75x a library"), verdict.reason
    assert "roof" not in verdict.reason
    fast = Message(event="perf", suite="perf", index=0, dtype="float32",
                   times={"student": [1e-9] * 5, "reference": [1.6] * 5})
    assert perf.decide(ex, "cuda", "float32", [fast], ROOF).status == "pass"  # no byte floor


def rechecked_rounds(monkeypatch, urandom) -> list[dict]:
    """An entry (the shape) for each round of one perf shape whose outputs perf.measure
    compares with the oracle, the round loop faked (no GPU): each round's call, then its
    check, as bench.time_rounds does."""
    import os

    from grader.lab import cases

    checked = []

    def time_rounds(ex, shape, dtype, fns, timer, rounds, seed_of, check_round=None):
        for r in range(-bench.WARMUP, rounds):
            outs = {"student": {"out": torch.zeros(3)}}
            check_round(r, {}, outs)
        return {"student": [1.0] * rounds}

    def oracle(ex, inputs, shape, device="cpu"):
        checked.append(shape)
        return {"out": torch.zeros(3, dtype=torch.float64)}

    monkeypatch.setattr(bench, "time_rounds", time_rounds)
    monkeypatch.setattr(cases, "oracle", oracle)
    monkeypatch.setattr(os, "urandom", urandom)
    plan = {"dtypes": ["float32"], "repeat": 1, "sweep": False}
    perf.measure(EX, "triton", None, "student", None, plan, "salt", lambda msg: None)
    return checked


def test_the_first_warmup_round_is_always_rechecked(monkeypatch):
    never = rechecked_rounds(monkeypatch, lambda n: b"\xff" * n)  # no later round drawn
    assert len(never) == 1
    always = rechecked_rounds(monkeypatch, lambda n: b"\x00" * n)
    assert len(always) == bench.WARMUP + bench.ROUNDS["perf"]


def test_later_rounds_are_rechecked_by_fresh_randomness(monkeypatch):
    """Drawn from the OS after each call: about RECHECK_SHARE of the rounds, never a fixed set
    (P of all or none of 27 draws: 2^-26)."""
    import os

    counts = {len(rechecked_rounds(monkeypatch, os.urandom)) for _ in range(3)}
    rounds = bench.WARMUP + bench.ROUNDS["perf"]
    assert all(1 < c < rounds for c in counts), counts
