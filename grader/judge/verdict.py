"""The one verdict type, the one grade type, and the one schema of worker messages.

A `Verdict` is what one check (correctness, memcheck or perf, of one exercise, implementation
and dtype) decided; a `Grade` gathers the verdicts of one exercise and implementation. Every
front end (the notebook's `check()`, `tclab check`, pytest, the nbgrader regrade) reads these
attributes; nothing re-reads a verdict by string key.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields

# Statuses, by what they mean for the student.
PASS, SKIPPED = "pass", "skipped"
FAILED = {
    "fail": "wrong output",
    "not_implemented": "a stub left",
    "compile_error": "does not compile",
    "exception": "raised an exception",
    "timeout": "killed at the time limit",
    "crash": "the process died",
    "memory_error": "invalid memory access",
    "race": "depends on thread order",
    "fallback": "not the student's kernel did the work",
    "no_launch": "no kernel launched",
    "impossible": "faster than physics allows",
    "missing": "solution cell missing",
    "unreadable": "the notebook cannot be read",
    "error": "the grader failed",
}


@dataclass
class Verdict:
    check: str  # "correctness" | "memcheck" | "perf"
    status: str
    reason: str  # one line, the student's language
    exercise: str = ""  # Exercise.key
    impl: str = ""
    dtype: str = ""
    device: str = ""
    details: str = ""  # the whole story: mismatches, the student's traceback, compiler output
    passed: int = 0
    total: int = 0
    cases: list = field(default_factory=list)
    seconds: float | None = None
    output: str = ""  # the tail of what the worker printed
    perf: dict = field(default_factory=dict)  # ratio, gbps, roof_pct, rows, sweep, plot, bar...
    unsandboxed: str = ""  # why the student's code ran outside the sandbox ("" when inside)

    def __post_init__(self):
        if self.status not in FAILED and self.status not in (PASS, SKIPPED):
            raise ValueError(f"unknown verdict status {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status in (PASS, SKIPPED)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def status_of(kind: str) -> str:
    """A verdict's status for an error a worker reported (`Message.kind`): the one mapping,
    whichever check's run it ended."""
    status = {"host_compute": "fallback", "host_died": "crash"}.get(kind, kind)
    return status if status in ("not_implemented", "compile_error", "memory_error",
                                "fallback", "crash") else "exception"


def skipped(check: str, reason: str, exercise: str, impl: str, dtype: str = "",
            device: str = "") -> Verdict:
    """A check that did not run, and why (`reason` starts with "skipped: ")."""
    return Verdict(check=check, status=SKIPPED, reason=reason, exercise=exercise, impl=impl,
                   dtype=dtype, device=device)


@dataclass
class Grade:
    """Every check of one exercise and implementation: correctness per dtype (and memcheck on a
    GPU), then perf per benchmarked dtype."""

    lab: str
    exercise: str
    impl: str
    device: str
    checks: list[Verdict] = field(default_factory=list)
    perf: list[Verdict] = field(default_factory=list)
    wall: dict = field(default_factory=dict)  # seconds of wall time per step: where time goes
    # The profile run beside the untimed checks (`grading.untimed`), for the perf verdict to
    # carry: a Future until `grading.settle()`; None where none was run there.
    profile: object = field(default=None, repr=False, compare=False)

    @property
    def correct(self) -> bool:
        return bool(self.checks) and all(v.ok for v in self.checks)

    @property
    def first_failure(self) -> Verdict | None:
        return next((v for v in self.checks if not v.ok), None) or \
            next((v for v in self.perf if not v.ok), None)

    @property
    def status(self) -> str:
        bad = next((v for v in self.checks if not v.ok), None)
        return bad.status if bad else PASS

    @property
    def reason(self) -> str:
        bad = next((v for v in self.checks if not v.ok), None)
        if bad:
            return bad.reason
        return f"{self.passed}/{self.total} shapes correct" + (
            f" in {', '.join(self.dtypes)}" if self.dtypes != ["float32"] else "")

    @property
    def dtypes(self) -> list[str]:
        return [v.dtype for v in self.checks if v.check == "correctness"]

    @property
    def passed(self) -> int:
        return sum(v.passed for v in self.checks)

    @property
    def total(self) -> int:
        return sum(v.total for v in self.checks)

    @property
    def worst_perf(self) -> Verdict | None:
        """The perf verdict that decides: a refusal first, else the lowest ratio."""
        if not self.perf:
            return None
        bad = [v for v in self.perf if "ratio" not in v.perf]
        if bad:
            return next((v for v in bad if v.status != SKIPPED), bad[0])
        return min(self.perf, key=lambda v: v.perf["ratio"])

    @property
    def ok(self) -> bool:
        return self.correct and all(v.ok for v in self.perf)

    @property
    def unsandboxed(self) -> str:
        """Why some check ran the student's code outside the sandbox ("" if none did)."""
        return next((v.unsandboxed for v in self.checks + self.perf if v.unsandboxed), "")

    def to_dict(self) -> dict:
        return {"lab": self.lab, "exercise": self.exercise, "impl": self.impl,
                "device": self.device, "status": self.status, "reason": self.reason,
                "correct": self.correct, "passed": self.passed, "total": self.total,
                "unsandboxed": self.unsandboxed,
                "checks": [v.to_dict() for v in self.checks],
                "perf": [v.to_dict() for v in self.perf], "wall": self.wall}

    @classmethod
    def from_dict(cls, data: dict) -> Grade:
        return cls(data["lab"], data["exercise"], data["impl"], data["device"],
                   [Verdict.from_dict(v) for v in data.get("checks", [])],
                   [Verdict.from_dict(v) for v in data.get("perf", [])],
                   dict(data.get("wall", {})))


# --- worker messages ----------------------------------------------------------------------------

# "profiling" / "profiled": a profiled call is about to start (the worker waits for a frame) /
# has ended (`pipeline.profiling`)
EVENTS = ("loaded", "case", "perf", "error", "done", "profiling", "profiled")


@dataclass
class Message:
    """One JSON line from a worker. Unknown events and fields are dropped, never trusted."""

    event: str
    index: int | None = None
    # case: what one launch did (the outputs themselves travel in a file the parent reads)
    seconds: float | None = None
    launches: dict = field(default_factory=dict)  # {"triton": n, "cuda": n}
    foreign: list = field(default_factory=list)  # library ops the launcher's own frames ran
    returned: str | None = None  # "a float32 tensor of shape (3,)" when the launcher returned one
    c_stub: bool = False  # a launched CUDA module still holds the release's empty body
    others: list = field(default_factory=list)  # kernels launched that are not the student's
    # error
    kind: str = ""  # not_implemented | compile_error | memory_error | exception | host_compute
    #                 | host_died
    message: str = ""
    summary: str = ""
    # perf
    suite: str = ""
    repeat: int = 0
    times: dict = field(default_factory=dict)
    refused: list | None = None  # [status, reason]
    dtype: str = ""

    def to_json(self) -> str:
        return json.dumps({k: v for k, v in asdict(self).items() if v not in (None, "", [], {},
                                                                              False, 0)
                           or k == "event" or k == "index"})

    @classmethod
    def from_json(cls, line: bytes | str) -> Message | None:
        try:
            data = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict) or data.get("event") not in EVENTS:
            return None
        names = {f.name for f in fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in names})
        except TypeError:
            return None


@dataclass
class Outcome:
    """What a worker run left behind."""

    messages: list[Message] = field(default_factory=list)
    error: Message | None = None  # the worker's own report of an exception
    timed_out: bool = False
    returncode: int | None = None
    output: str = ""  # the tail of its stdout + stderr
    seconds: float = 0.0
    timeout: float = 0.0
    unsandboxed: str = ""  # why the worker ran outside the sandbox ("" when inside it)
    loaded: float | None = None  # time.monotonic() when the student's module had loaded
    server_lost: bool = False  # a served run whose worker server itself was gone
