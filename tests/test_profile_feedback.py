"""Where the profile's advice goes: after a measured perf verdict (never before, never for a
verdict that was not measured), into `tclab check`'s notes and nbgrader's feedback; the
reference profiled once per machine; the worker serving a reference in check mode. The
counters are canned here; tests/test_profile.py's GPU tests profile for real."""

from __future__ import annotations

import json

import pytest

from grader.backends import bench
from grader.base import paths
from grader.course import regrade
from grader.execution import runner
from grader.judge import advice, report
from grader.judge.verdict import Grade, Verdict
from grader.lab import manifest, reference, submission
from grader.pipeline import grading, profiling

EX = manifest.exercise("lab01")


def counters(read_x: float) -> dict:
    shape, dtype = advice.case(EX)
    read, write = advice.minimum_bytes(EX, shape, dtype)
    return {"metrics": {advice.READ_BYTES: read_x * read, advice.WRITE_BYTES: write,
                        advice.DRAM_PCT: 90.0,
                        advice.LD_SECTORS: 4e6, advice.LD_REQUESTS: 1e6, advice.LD_USE_PCT: 100.0,
                        advice.ST_USE_PCT: 100.0, advice.OCCUPANCY_PCT: 80.0}}


@pytest.fixture
def canned(monkeypatch, tmp_path):
    """profiling.run answers from `answers` (student / reference) and counts its calls; the
    reference cache lives in tmp_path."""
    calls = []
    answers = {"student": counters(2.0), "reference": counters(1.0)}

    def run(ex, impl, sources, timeout=None, reference=False, started=None):
        calls.append("reference" if reference else "student")
        return answers[calls[-1]]

    monkeypatch.setattr(profiling, "run", run)
    monkeypatch.setattr(profiling, "start", lambda *a, **k: None)
    monkeypatch.setattr(paths, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(bench, "device_info", lambda: {"gpu": "NVIDIA H200"})
    return calls, answers


def measured(status: str = "fail") -> Grade:
    grade = Grade(EX.lab_id, EX.key, "triton", "gpu")
    grade.checks = [Verdict(check="correctness", status="pass", reason="ok", exercise=EX.key,
                            impl="triton", dtype="float32", device="gpu", passed=3, total=3)]
    return grade


def perf_verdict(status: str) -> Verdict:
    return Verdict(check="perf", status=status, reason="0.50x the reference", exercise=EX.key,
                   impl="triton", dtype="float32", device="gpu",
                   perf={"ratio": 0.5, "bar": 0.8, "zero_below": 0.4, "gbps": 2000,
                         "roof_pct": 50, "roof_gbps": 4000, "rows": []})


@pytest.mark.parametrize("status", ["pass", "fail"])
def test_a_measured_verdict_gets_the_advice(canned, monkeypatch, status):
    calls, _ = canned
    monkeypatch.setattr(grading, "perf_check", lambda *a, **k: [perf_verdict(status)])
    grade = grading.timed(measured(), EX, {"c": "src"})
    got = grade.perf[0].perf["profile"]
    assert got["rule"] == "extra_reads" and got["advice"].startswith("read 2.0x"), got
    assert calls == ["student", "reference"] and "profile" in grade.wall
    assert "read 2.0x the minimum bytes" in report.note(grade)
    text = "".join(o.get("text", "") for o in regrade.perf_outputs(grade, 2.0))
    assert "profile (Nsight Compute, one call): read 2.0x the minimum bytes" in text


@pytest.mark.parametrize("status", ["impossible", "no_launch", "error"])
def test_a_verdict_not_measured_is_not_profiled(canned, monkeypatch, status):
    calls, _ = canned
    monkeypatch.setattr(grading, "perf_check", lambda *a, **k: [perf_verdict(status)])
    grade = grading.timed(measured(), EX, {"c": "src"})
    assert calls == [] and "profile" not in grade.perf[0].perf


def test_a_wrong_or_cpu_grade_is_never_profiled(canned):
    calls, _ = canned
    wrong = measured()
    wrong.checks[0].status = "fail"
    grading.timed(wrong, EX, {"c": "src"})
    cpu = Grade(EX.lab_id, EX.key, "triton", "cpu")
    grading.timed(cpu, EX, {"c": "src"})
    assert calls == []


def test_the_reference_is_profiled_once_per_machine(canned):
    calls, _ = canned
    first = profiling.feedback(EX, "triton", {"c": "src"})
    again = profiling.feedback(EX, "triton", {"c": "other"})
    assert calls == ["student", "reference", "student"]
    assert first["reference"] == again["reference"]
    cached = list((paths.CACHE / "reference" / "profiles").glob("*.json"))
    assert len(cached) == 1 and json.loads(cached[0].read_text()) == counters(1.0)


def test_a_changed_reference_is_profiled_again(canned, monkeypatch, tmp_path):
    calls, _ = canned
    folder = tmp_path / "reference" / EX.lab_id
    folder.mkdir(parents=True)
    launcher = folder / f"{EX.name}_triton.py"
    launcher.write_text("# one version\n")
    monkeypatch.setattr(reference, "path", lambda ex, impl: launcher)
    profiling.reference_run(EX, "triton")
    profiling.reference_run(EX, "triton")
    launcher.write_text("# another version\n")
    profiling.reference_run(EX, "triton")
    assert calls == ["reference", "reference"]


def test_a_reference_without_counters_is_not_kept(canned):
    calls, answers = canned
    answers["reference"] = {"reason": "not profiled: ERR_NVGPUCTRPERM"}
    profiling.reference_run(EX, "cuda")
    profiling.reference_run(EX, "cuda")
    assert calls == ["reference", "reference"]


def test_profile_off_runs_nothing(canned, monkeypatch):
    calls, _ = canned
    monkeypatch.setenv("TCLAB_PROFILE", "0")
    got = profiling.feedback(EX, "triton", {"c": "src"})
    assert calls == [] and got["advice"] is None and "TCLAB_PROFILE=0" in got["reason"]


def test_no_ncu_is_said_in_the_feedback(monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    got = profiling.feedback(EX, "cuda", {"c": "src"})
    assert got["advice"] is None and got["reason"] == advice.SKIPPED_NO_NCU


def solution_sources(impl: str) -> dict[str, str]:
    lab = manifest.get(EX.lab_id)
    parts = grading.plan(lab, submission.read_notebook(lab.source), "solution", "cpu",
                         impls=[impl])
    return parts[0][2]


@pytest.mark.parametrize("reference", [False, True], ids=["student", "reference"])
def test_a_profile_request_runs_in_a_worker_started_ahead(monkeypatch, reference):
    """What ncu wraps (here without it, on the CPU): a worker started before its request,
    importing meanwhile, then one warm-up and one profiled call on inputs it made itself;
    the reference's launcher in a process that was given no student source."""
    monkeypatch.setenv("TCLAB_TRACE", "1")
    ahead = runner.start("cpu", reference_lab=EX.lab_id if reference else None)
    request = runner.request(EX, "triton", "cpu", "profile",
                             {} if reference else solution_sources("triton"),
                             role="reference" if reference else "student",
                             perf={"shape": {"n": 1000}, "seed": 1})
    out = runner.run(request, 120, started=ahead)
    assert out.error is None and not out.timed_out, out.output
    said = [ln.split(" ", 2)[2] for ln in out.output.splitlines() if ln.startswith("tclab-trace")]
    assert said.index("preimported") < said.index("request read") < said.index("inputs made"), said


def test_a_profiled_call_that_raises_is_an_error_not_a_crash():
    raising = "def vector_add_triton(*a):\n    raise ValueError('no')\n\n\ndef unused("
    sources = {k: v.replace("def vector_add_triton(", raising)
               for k, v in solution_sources("triton").items()}
    request = runner.request(EX, "triton", "cpu", "profile", sources,
                             perf={"shape": {"n": 1000}, "seed": 1})
    out = runner.run(request, 120, started=runner.start("cpu"))
    assert out.error is not None and "ValueError: no" in out.error.message, out.output


def test_the_notebook_profiles_only_a_saved_notebook(monkeypatch, tmp_path):
    from grader import notebook
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert "does not know its notebook" in notebook._profile(EX, "triton", print)
    stale = tmp_path / "lab.ipynb"
    source = manifest.get("lab01").source
    import jupytext

    jupytext.write(jupytext.read(source), stale)
    monkeypatch.setenv("JPY_SESSION_NAME", str(stale))
    monkeypatch.setattr(notebook, "_cell_sources", lambda fn: {"f": "def mine(): pass\n"})
    assert "save it (Ctrl+S) first" in notebook._profile(EX, "triton", print)


def test_ahead_starts_the_reference_only_until_its_profile_is_kept(canned, monkeypatch):
    made = []

    class Started:
        closed = 0

        def close(self):
            self.closed += 1

    monkeypatch.setattr(profiling, "start", lambda ex, reference=False, **k: made.append(Started())
                        or made[-1])
    first = profiling.ahead(EX, "triton")
    assert first["student"] is not None and first["reference"] is not None
    profiling.feedback(EX, "triton", {"c": "src"}, started=first)
    profiling.close(first)
    assert len(made) == 2 and all(s.closed for s in made)
    assert profiling.ahead(EX, "triton")["reference"] is None  # kept: profiled once per machine
    monkeypatch.setenv("TCLAB_PROFILE", "0")
    assert profiling.ahead(EX, "triton") == {}


def test_without_the_reference_the_advice_stands_alone(canned, monkeypatch, tmp_path):
    """A student's machine has no reference/: nothing is started or run for it."""
    calls, _ = canned
    monkeypatch.setattr(reference, "path", lambda ex, impl: tmp_path / "absent" / "x.py")
    assert profiling.ahead(EX, "triton") == {"student": None, "reference": None}
    got = profiling.feedback(EX, "triton", {"c": "src"})
    assert calls == ["student"] and got["reference"] is None
    assert got["advice"].startswith("read 2.0x the minimum bytes"), got


def test_a_course_profiles_each_reference_once_before_any_submission(canned, monkeypatch):
    """`tclab course autograde` on a GPU profiles the references first (`prime_references`),
    so the first submission's checks do not pay for them; each once per machine; nothing
    without ncu or with profiling off; a reference that cannot be profiled is said, and
    grading goes on."""
    import shutil

    from grader.course import autograde

    calls, answers = canned
    lab = manifest.get(EX.lab_id)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    pairs = [(ex.key, impl) for ex, impl in profiling.unprimed(lab)]
    assert pairs == [(ex.key, impl) for ex in lab.exercises for impl in ex.impls]

    class Progress:
        def __init__(self):
            self.said, self.advanced = [], 0
            self.console = self

        def add_task(self, description, total):
            self.total = total

        def advance(self, task):
            self.advanced += 1

        def print(self, text):
            self.said.append(text)

    first = Progress()
    autograde.prime_references(lab.id, first)
    assert calls == ["reference"] * len(pairs) and first.advanced == first.total == len(pairs)
    assert first.said == [] and profiling.unprimed(lab) == []
    autograde.prime_references(lab.id, Progress())  # kept: nothing to do
    assert len(calls) == len(pairs)
    # The first submission's check then profiles its own call only.
    assert profiling.feedback(EX, "triton", {"c": "src"})["reference"] is not None
    assert calls[len(pairs):] == ["student"]

    # Negative controls: no ncu, profiling off: nothing to prime; a failing reference is said.
    monkeypatch.setattr(paths, "CACHE", paths.CACHE.parent / "other-cache")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert profiling.unprimed(lab) == []
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setenv("TCLAB_PROFILE", "0")
    assert profiling.unprimed(lab) == []
    monkeypatch.delenv("TCLAB_PROFILE")
    answers["reference"] = {"reason": "not profiled: ERR_NVGPUCTRPERM"}
    failing = Progress()
    autograde.prime_references(lab.id, failing)
    assert failing.advanced == len(pairs) and len(failing.said) == len(pairs)
    assert "ERR_NVGPUCTRPERM" in failing.said[0]


@pytest.mark.parametrize("gib, early", [(139.8, 17), (32, 4), (8, 1), (4, 1)])
def test_only_the_first_profilers_of_a_session_start_cuda_ahead(canned, monkeypatch, gib, early):
    """Each process that starts CUDA ahead holds a context until its profile: a lab of many
    exercises warms as many that way as the GPU's memory allows (its first: the perf
    checks' order), the rest start CUDA on request (a student's own GPU may be small)."""
    made = []

    class Started:
        def __init__(self, cuda_now):
            self.cuda_now = cuda_now

        def close(self):
            pass

    def start(ex, reference=False, impl=None, cuda_now=False, **k):
        made.append((ex.key, "reference" if reference else impl, cuda_now))
        return Started(cuda_now)

    monkeypatch.setattr(profiling, "start", start)
    monkeypatch.setattr(bench, "device_info", lambda: {"gpu": "NVIDIA H200", "memory_gib": gib})
    assert profiling.early_cuda() == early
    lab = manifest.get("lab03")
    with runner.session():
        for ex in lab.exercises:
            for impl in ex.impls:
                profiling.warm(ex, impl)
    pairs = sum(len(ex.impls) for ex in lab.exercises)
    assert len(made) == 2 * pairs  # a student's process and a reference's for each
    ahead = [m for m in made if m[2]]
    assert early <= len(ahead) <= early + 1  # a student's and its reference's together
    assert made[:len(ahead)] == ahead  # the first ones


# --- the profile runs beside the untimed checks, not between the timed ones ------------------

def passing(check: str = "correctness") -> Verdict:
    return Verdict(check=check, status="pass", reason="ok", exercise=EX.key, impl="triton",
                   dtype="float32", device="gpu", passed=3, total=3)


def untimed_on_gpu(monkeypatch, correctness_checks):
    """grading.untimed on a GPU with the given stand-in for the correctness lane (memcheck
    passes), its profile in a pool of its own: the settled grade."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(grading, "correctness_checks", correctness_checks)
    monkeypatch.setattr(grading, "memcheck_check", lambda *a, **k: passing("memcheck"))
    with ThreadPoolExecutor(2) as memcheck, ThreadPoolExecutor(1) as profiles:
        grade = grading.untimed(EX, "triton", {"c": "src"}, "gpu", True, None,
                                memcheck_pool=memcheck, profile_pool=profiles)
    return grading.settle(grade)


def test_the_profile_runs_beside_the_correctness_checks(canned, monkeypatch):
    """Started once the first case is right, ended before the lane's last case: the timed
    phase then measures and attaches it, profiling nothing itself."""
    import time

    calls, _ = canned

    def lane(*args, on_first=None, **kw):
        assert calls == []  # nothing profiled before the first case is judged right
        on_first()
        deadline = time.monotonic() + 10
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert calls == ["student", "reference"]  # while the lane still runs
        return [passing()]

    grade = untimed_on_gpu(monkeypatch, lane)
    assert grade.correct and grade.profile["rule"] == "extra_reads", grade.profile
    monkeypatch.setattr(grading, "perf_check", lambda *a, **k: [perf_verdict("pass")])
    grading.timed(grade, EX, {"c": "src"})
    assert grade.perf[0].perf["profile"] is grade.profile
    assert calls == ["student", "reference"]  # not again
    assert "read 2.0x the minimum bytes" in report.note(grade)


def test_a_profile_under_way_is_stopped_when_a_later_case_is_wrong(canned, monkeypatch):
    import threading

    killed, running = threading.Event(), threading.Event()

    class Proc:
        def kill(self):
            killed.set()

        def close(self):
            pass

    def run(ex, impl, sources, timeout=None, reference=False, started=None):
        running.set()
        killed.wait(10)  # as a worker killed mid-call ends
        return {"reason": "the profiled process ended without a report"}

    monkeypatch.setattr(profiling, "run", run)
    monkeypatch.setattr(profiling, "ahead", lambda ex, impl: {"student": Proc(), "reference": None})

    def lane(*args, on_first=None, **kw):
        on_first()
        assert running.wait(10)
        wrong = passing()
        wrong.status = "fail"
        return [wrong]

    grade = untimed_on_gpu(monkeypatch, lane)
    assert killed.is_set() and not grade.correct
    grading.timed(grade, EX, {"c": "src"})
    assert [v.status for v in grade.perf] == ["skipped"] * len(EX.perf_dtypes)
    assert all("profile" not in v.perf for v in grade.perf)


def test_without_a_first_right_case_nothing_is_profiled(canned, monkeypatch):
    calls, _ = canned
    wrong = passing()
    wrong.status = "compile_error"
    grade = untimed_on_gpu(monkeypatch, lambda *a, on_first=None, **k: [wrong])
    assert calls == [] and grade.profile is None


def test_a_profile_process_started_ahead_by_the_task_server_is_used(canned, monkeypatch):
    """profile.warm takes the process a task server started for the next task
    (`warm_runs`, `runner.prestart`) instead of starting one; without one it starts its own."""
    started, kept = [], {}

    class Own:
        def __init__(self, ahead):
            self.ahead = ahead

        def take_warm(self, impl, check):
            return self.ahead.pop((impl, check), None)

        def keep(self, key, procs):
            kept[key] = procs

        def kept(self, kind):
            return []

    monkeypatch.setattr(profiling, "start", lambda *a, **k: started.append(k) or "new")
    monkeypatch.setattr(profiling, "_reference_kept", lambda ex, impl: True)
    monkeypatch.setattr(runner, "current", lambda: Own({("triton", "profile"): "ahead"}))
    profiling.warm(EX, "triton")
    assert kept[("profile", EX.key, "triton")] == {"student": "ahead", "reference": None}
    assert started == []
    monkeypatch.setattr(runner, "current", lambda: Own({}))
    monkeypatch.setattr(profiling, "early_cuda", lambda: 1)
    profiling.warm(EX, "cuda")
    assert kept[("profile", EX.key, "cuda")]["student"] == "new" and len(started) == 1


def test_one_profiled_call_at_a_time():
    """A GPU's counters serve one profiler at once: a second worker's "profiling" gets its
    go-ahead frame only once the first has said "profiled" (or its run has ended)."""
    import threading
    import time

    from grader.judge.verdict import Message

    class Link:
        def __init__(self):
            self.go = threading.Event()

        def send(self, payload):
            self.go.set()

    first, second = [False], [False]
    a, b = Link(), Link()
    profiling._gated(first)(Message(event="profiling"), None, a)
    assert a.go.is_set() and first[0]
    waiting = threading.Thread(target=profiling._gated(second), args=(Message(event="profiling"),
                                                                      None, b))
    waiting.start()
    time.sleep(0.3)
    assert not b.go.is_set()  # held by the first
    profiling._gated(first)(Message(event="profiled"), None, a)
    waiting.join(5)
    assert b.go.is_set() and second[0] and not first[0]
    profiling._gated(second)(Message(event="profiled"), None, b)
    assert not profiling.GATE.locked()
