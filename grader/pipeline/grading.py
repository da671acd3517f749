"""One submission, every check, decided outside the student's process.

For each exercise and implementation: correctness in each dtype (one worker process per
dtype), a memcheck launch on a GPU, then performance on a GPU (one worker for every perf
dtype). Each check's evidence goes to its judge's `decide()`. Shared by `tclab check`, the
pytest suite and the nbgrader regrade, so they agree.
"""

from __future__ import annotations

import collections
import contextvars
import dataclasses
import functools
import shutil
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from grader.backends import bench
from grader.base import paths, wire
from grader.execution import runner
from grader.judge import correctness, memcheck, perf
from grader.judge.verdict import Grade, Outcome, Verdict
from grader.lab import cases, manifest, submission
from grader.lab.manifest import Exercise, Lab

CPU_CUDA_ENV = {"TCLAB_CUDA_CHECKED": "1"}  # the CPU backend bounds-checks every read
MEMCHECK_WORKERS = 6  # memchecks at once (a CUDA one runs two sanitizer tools side by side)
# Case sets (inputs and float64 expected outputs) made at once, ahead of the checks that use
# them: a lane waits for every dtype's set of an exercise before its first case, and on a GPU
# a set holds cases of up to 2^27 elements (lab01: every set made 1.3 s into a task on an H200
# machine, four at once).
PREPARE_WORKERS = 4


def suites_for(device: str, hidden: bool = True) -> list[str]:
    suites = ["public"] + (["hidden"] if hidden else [])
    return suites + (["gpu"] if device == "gpu" and hidden else [])


def default_submission() -> str:
    """What `tclab check` and `pytest -k labNN` grade when not told: the student's working
    copy (`make lab` makes it) where there is one, else the release."""
    return "workspace" if paths.WORKSPACE.is_dir() else "exercises"


def resolve_submission(lab: Lab, where: str) -> Path:
    """`solutions` (the lab source), `exercises` (the release), `workspace` (the student's
    working copy, the release for a lab not copied yet) or a notebook file / folder."""
    if where == "solutions":
        return lab.source
    if where == "exercises":
        return lab.exercise_path
    if where == "workspace":
        mine = lab.release_path(paths.WORKSPACE)
        return mine if mine.exists() else lab.exercise_path
    path = Path(where)
    if path.is_dir():
        for candidate in (lab.release_path(path), path / lab.notebook_name,
                          path / f"{lab.id}.py"):
            if candidate.exists():
                return candidate
        raise submission.SubmissionError(f"{path}: no {lab.notebook_name} in it or in "
                                         f"{lab.id}/")
    return path


def _cases(prepared: list[correctness.Prepared]):
    """The case frames, made one at a time: nothing of a case exists before it is sent."""
    for p in prepared:
        yield wire.tensors({"index": p.case.index, "shape": p.case.shape, "dtype": p.case.dtype,
                            "inputs": p.inputs, "layouts": p.layouts})  # values, not storage
    yield b""  # no more cases


def _converse(request: runner.Request, prepared: list[correctness.Prepared], judge,
              timeout: float | None, extend_after=(), **run_args) -> Outcome:
    """Feed `prepared` to the worker one case at a time, each after the previous result was
    judged right by `judge(index, msg, result) -> bool`; once the cases `extend_after` names
    are judged right, the worker gets its time limit again."""
    frames = _cases(prepared)
    request.cases = len(prepared)

    def on_message(msg, payload, link) -> bool:
        if msg.event != "case" or payload is None:
            return True  # forged or out of order: ignored
        try:
            saved = wire.untensors(payload)
            fill = saved.get("nan_from_fill", {})
            result = correctness.Result(saved["outputs"], saved["inputs"],
                                        saved.get("schedules", {}),
                                        {str(k): v is True for k, v in fill.items()})
        except Exception:  # noqa: BLE001 - a worker's bytes are untrusted
            return True
        if not judge(msg.index, msg, result):
            return False
        if msg.index in extend_after:
            link.extend(timeout or runner.DEFAULT_TIMEOUT[request.device])
        link.send(next(frames, b""))
        return True

    return runner.run(request, timeout, on_loaded=lambda link: link.send(next(frames)),
                      on_message=on_message, **run_args)


class CaseMemo:
    """The prepared cases (inputs and expected outputs) of one submission, made once per
    exercise, suites and dtype and shared by its implementations, which draw the same seeds;
    safe across threads (one makes a set, the others wait for it)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._made: dict[tuple, Future] = {}
        self._dropped: set[str] = set()

    def get(self, ex: Exercise, suites: list[str], dtype: str,
            ahead: bool = False) -> list[correctness.Prepared] | None:
        """The set, made now or by another thread; `ahead` (made before a check asks): None,
        and nothing made, once the checks of `ex` are over (`drop`)."""
        key = (ex.key, tuple(suites), dtype)
        with self._lock:
            if ahead and ex.key in self._dropped:
                return None
            made, mine = self._made.get(key), False
            if made is None:
                made, mine = self._made.setdefault(key, Future()), True
        if mine:
            try:
                made.set_result(correctness.prepare(ex, suites, dtype))
            except BaseException as exc:
                made.set_exception(exc)
        return made.result()

    def drop(self, ex: Exercise) -> None:
        """Forget the sets of `ex`: every check that uses them has had them."""
        with self._lock:
            self._dropped.add(ex.key)
            for key in [key for key in self._made if key[0] == ex.key]:
                del self._made[key]


def correctness_checks(ex: Exercise, impl: str, sources: dict[str, str], suites: list[str],
                       device: str, dtypes: list[str] | tuple[str, ...],
                       timeout: float | None = None, wall: dict | None = None,
                       memo: CaseMemo | None = None, on_first=None) -> list[Verdict]:
    """Every dtype's correctness in ONE worker process (one start-up, not one per dtype), the
    dtypes in order, stopping at the first wrong case: one verdict per dtype reached.
    `on_first()` is called once the first case is judged right (the module compiled, loaded
    and launched: its compile caches are filled)."""
    per = [(memo or CaseMemo()).get(ex, suites, dt) for dt in dtypes]
    if not any(per):
        return correctness.decide_dtypes(ex, impl, dtypes, device, per, [], Outcome())
    flat, starts = correctness.one_run(per)
    cpu_cuda = device == "cpu" and impl == "cuda"
    judged: list[correctness.CaseVerdict] = []

    def judge(index, msg, result) -> bool:
        if index != len(judged):
            return True  # out of order: ignored
        judged.append(correctness.judge_case(ex, impl, flat[index], msg, result))
        if index == 0 and judged[-1].ok and on_first is not None:
            on_first()
        return judged[-1].ok

    # Without a GPU, CUDA C runs in the CPU backend's checked mode (a read past any buffer
    # faults and names the kernel; on a GPU, memcheck does that job), and every launch runs a
    # second time with each block's threads in reverse order.
    request = runner.request(ex, impl, device, "check", sources, dtype=dtypes[0],
                             schedules=["reverse"] if cpu_cuda else [])
    # The time limit is per dtype: it starts again when a dtype's last case is judged right.
    started = time.monotonic()
    outcome = _converse(request, flat, judge, timeout, extend_after={hi - 1 for hi in starts[1:-1]},
                        env=CPU_CUDA_ENV if cpu_cuda else None)
    if wall is not None and outcome.loaded is not None:  # the worker's start and the load
        wall["correctness: until loaded"] = round(outcome.loaded - started, 2)
    return correctness.decide_dtypes(ex, impl, dtypes, device, per, judged, outcome)


def memcheck_check(ex: Exercise, impl: str, sources: dict[str, str],
                   timeout: float | None = None) -> Verdict:
    """One launch on a small tail shape under each compute-sanitizer tool of the
    implementation (GPU only), the tools side by side; the first (in `memcheck.TOOLS` order)
    that finds something decides."""
    dtype = ex.dtypes[0]
    prepared = correctness.prepare(ex, ["public"], dtype)
    p = prepared[1 if len(prepared) > 2 else 0]
    tool = shutil.which(memcheck.SANITIZER)
    if tool is None:
        return memcheck.no_sanitizer(ex, impl, dtype)
    case = dataclasses.replace(p, case=cases.Case(p.case.suite, 0, p.case.shape, dtype,
                                                  p.case.seed))
    own = runner.current()

    def attempt(check_: str, started: runner.Started | None) -> Outcome:
        request = runner.request(ex, impl, "gpu", "check", sources, dtype=dtype)
        return _converse(request, [case], lambda *_: True,
                         (timeout or runner.DEFAULT_TIMEOUT["gpu"]) * 2,
                         wrapper=None if started else memcheck_wrapper(tool, check_),
                         env=memcheck.ENV, started=started)

    def one(check_: str) -> Verdict:
        # The process a task server started ahead for this run (`memcheck_runs`), if any.
        warm = own.take_warm(impl, check_) if own is not None else None
        outcome = attempt(check_, warm)
        if warm is not None and outcome.loaded is None and outcome.error is None \
                and not outcome.timed_out:
            # It ended without a word (as its request came): its silence is no report.
            outcome = attempt(check_, None)
        return memcheck.decide(ex, impl, dtype, p.case.shape, outcome, check_)

    tools = memcheck.TOOLS[impl]  # side by side: each is a process, mostly start-up
    with ThreadPoolExecutor(max_workers=len(tools)) as pool:
        verdicts = list(pool.map(one, tools))
    return next((v for v in verdicts if not v.ok), verdicts[-1])


def memcheck_wrapper(tool: str, check_: str) -> list[str]:
    """What a memcheck run's worker is started under: compute-sanitizer (`tool`) running
    `check_` (memcheck or synccheck)."""
    return [tool, *memcheck.flags(tool, check_)]


def memcheck_runs(lab: Lab) -> list[tuple[tuple[str, str], list[str], dict]]:
    """((impl, tool), wrapper, env) of each process `memcheck_check` starts for `lab` on a GPU,
    every exercise's and implementation's: a task server starts them ahead of the task
    (`runner.prestart`). None without compute-sanitizer (memcheck is then skipped)."""
    tool = shutil.which(memcheck.SANITIZER)
    if tool is None:
        return []
    wrappers = {check_: memcheck_wrapper(tool, check_)
                for tools in memcheck.TOOLS.values() for check_ in tools}
    return [((impl, check_), wrappers[check_], memcheck.ENV)
            for ex in lab.exercises for impl in ex.impls for check_ in memcheck.TOOLS[impl]]


class ReferenceFailed(RuntimeError):
    """The hidden reference did not run: an installation problem, never the student's."""


# Seconds for which the reference's times, measured on one GPU, serve the checks after on it
# (`tclab course autograde` sets it: one reference run per exercise and implementation, not
# one per submission); 0 or unset: every perf check measures its reference itself.
REFERENCE_MAX_AGE_ENV = "TCLAB_REFERENCE_MAX_AGE"


def _kept_times(ex: Exercise, impl: str, plan: dict) -> Path:
    """Where the reference's times for `plan` on this GPU are kept (the reference cache, which
    no student process can read)."""
    from grader.base import paths
    from grader.lab import reference
    return paths.CACHE / "reference" / "times" / \
        f"{reference.digest(ex, impl, plan, bench.gpu_id())}.json"


def reference_times(ex: Exercise, impl: str, plan: dict, timeout: float | None,
                    fresh: bool = False) -> list:
    """The reference's perf messages for `plan`: measured now, in a worker of its own; or,
    unless `fresh`, those an earlier check measured on this GPU no more than
    TCLAB_REFERENCE_MAX_AGE seconds ago."""
    import json
    import os

    from grader.judge.verdict import Message

    max_age = float(os.environ.get(REFERENCE_MAX_AGE_ENV) or 0)
    kept = _kept_times(ex, impl, plan) if max_age > 0 else None
    if kept is not None and not fresh:
        try:
            saved = json.loads(kept.read_text())
            if 0 <= time.time() - saved["measured_at"] <= max_age:
                return [m for m in map(Message.from_json, saved["messages"]) if m is not None]
        except (OSError, ValueError, KeyError, TypeError):
            pass  # none kept, or unreadable: measured again
    ref = runner.run(runner.request(ex, impl, "gpu", "perf", {}, perf=plan, role="reference"),
                     timeout)
    if ref.error is not None or ref.timed_out:
        raise ReferenceFailed(f"the reference {ex.key} {impl} could not be measured (the "
                              "grader's installation, not your code): "
                           f"{ref.error.message if ref.error else 'timed out'}\n{ref.output}")
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        tmp = kept.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"measured_at": time.time(),
                                   "messages": [m.to_json() for m in ref.messages]}))
        tmp.replace(kept)  # whole or absent: a check on another GPU slot may read it
    return ref.messages


def measure(ex: Exercise, impl: str, sources: dict, timeout: float | None, sweep: bool,
            dtypes: list[str], repeat: int = 1, fresh: bool = False) -> Outcome:
    """`repeat` complete measurements of every perf shape in each dtype: the reference's
    (`reference_times`), then the student's launcher in a worker of its own; the student's
    messages come back with the reference's times merged in."""
    plan = {"dtypes": dtypes, "repeat": repeat, "sweep": sweep}
    theirs = reference_times(ex, impl, plan, timeout, fresh)
    mine = runner.run(runner.request(ex, impl, "gpu", "perf", sources, perf=plan), timeout)
    mine.messages = perf.merge(mine.messages, theirs)
    return mine


def perf_check(ex: Exercise, impl: str, sources: dict[str, str], timeout: float | None = None,
               plot_dir: Path | None = None, plots=None) -> list[Verdict]:
    """One perf verdict per benchmarked dtype; a result within 5% below the bar is measured
    again and decided on all its rounds together; the sweep (first dtype) makes the plot, drawn
    by `plots` (an executor whose owner waits for it) if given, else now."""
    roof = bench.copy_roof()["gbps"]
    info = {"gpu": bench.device_info()}
    try:
        first = measure(ex, impl, sources, timeout, True, list(ex.perf_dtypes))
    except ReferenceFailed as exc:
        return perf.reference_failed(ex, impl, str(exc))
    if first.error is not None or first.timed_out:
        return perf.run_failed(ex, impl, first)
    verdicts = []
    for dtype in ex.perf_dtypes:
        verdict = perf.decide(ex, impl, dtype, first.messages, roof, info)
        if perf.near_bar(ex, verdict):
            try:
                # near the bar: the reference is measured again too, now
                again = measure(ex, impl, sources, timeout, False, [dtype], fresh=True)
            except ReferenceFailed:
                again = Outcome()
            verdict = perf.decide(ex, impl, dtype, first.messages + again.messages, roof, info)
            verdict.perf["remeasured"] = True
        verdict.seconds, verdict.unsandboxed = first.seconds, first.unsandboxed
        verdicts.append(verdict)
    sweep = [bench.summary(ex, ex.shapes["sweep"][m.index], m.dtype, m.times, roof)
             for m in first.messages if m.suite == "sweep" and not m.refused]
    if sweep:
        verdicts[0].perf["sweep"] = sweep
        if plot_dir is not None:
            from grader.pipeline import plot
            path = plot.path(ex, impl, Path(plot_dir))
            if plots is not None:
                plots.submit(plot.sweep, ex, impl, sweep, roof, Path(plot_dir))
            else:
                plot.sweep(ex, impl, sweep, roof, Path(plot_dir))
            verdicts[0].perf["plot"] = str(path)
    return verdicts


def grade_exercise(ex: Exercise, impl: str, sources: dict[str, str], device: str,
                   hidden: bool = True, perf: bool = True, timeout: float | None = None,
                   plot_dir: Path | None = None) -> Grade:
    grade = untimed(ex, impl, sources, device, hidden, timeout)
    if perf:
        timed(grade, ex, sources, timeout, plot_dir)
    return grade


def untimed(ex: Exercise, impl: str, sources: dict[str, str], device: str, hidden: bool = True,
            timeout: float | None = None, memcheck_pool=None, memo: CaseMemo | None = None,
            profile_pool=None) -> Grade:
    """Correctness, then (on a GPU, with the hidden cases) memcheck: the checks that do not
    need the GPU to themselves. With `memcheck_pool` (an executor) memcheck starts there at
    once, beside correctness, and counts only if correctness passes (the pool's owner waits
    for it either way); with `profile_pool`, the profile of one call (`pipeline.profiling`, advice
    for the perf verdict, never a score) starts there once the first case is right, and is
    stopped if a later one is wrong. The grade is finished by `settle()`."""
    grade = Grade(ex.lab_id, ex.key, impl, device)
    # Reads past a buffer do not change outputs: memcheck sees them, once.
    memcheck_due = device == "gpu" and hidden

    def job() -> Verdict:
        begun = time.monotonic()
        verdict = memcheck_check(ex, impl, sources, timeout)
        grade.wall["memcheck"] = round(time.monotonic() - begun, 2)
        return verdict

    # In this submission's session (the pool's threads have none): it holds the processes a
    # task server started ahead for memcheck (`Session.take_warm`).
    early = (memcheck_pool.submit(contextvars.copy_context().run, job)
             if memcheck_due and memcheck_pool is not None else None)
    profiling = _Profiling(ex, impl, sources, timeout, grade) \
        if memcheck_due and profile_pool is not None else None
    started = time.monotonic()
    # One clear failure: the dtypes after it would only repeat it.
    grade.checks += correctness_checks(
        ex, impl, sources, suites_for(device, hidden), device, ex.dtypes, timeout, grade.wall,
        memo, on_first=profiling and functools.partial(profiling.start, profile_pool))
    grade.wall["correctness"] = round(time.monotonic() - started, 2)
    if profiling is not None and not grade.checks[-1].ok:
        profiling.stop()  # no perf verdict to advise
    if memcheck_due and grade.checks[-1].ok:
        grade.checks.append(early if early is not None else job())  # a Future until settle()
    return grade


class _Profiling:
    """One profile (`profiling.feedback`) run beside the untimed checks, so that it takes
    no time from the timed ones: it holds the GPU for seconds (ncu replays the call), and its
    counters, bytes moved and requests issued, do not depend on what else runs. Its result
    lands in `grade.profile`, as a Future until `settle()`."""

    def __init__(self, ex: Exercise, impl: str, sources: dict[str, str],
                 timeout: float | None, grade: Grade):
        self.args, self.grade = (ex, impl, sources, timeout), grade
        self.stopped = threading.Event()
        self.procs: dict = {}

    def start(self, pool) -> None:
        self.grade.profile = pool.submit(contextvars.copy_context().run, self._run)

    def _run(self) -> dict | None:
        from grader.pipeline import profiling

        ex, impl, sources, timeout = self.args
        begun = time.monotonic()
        self.procs = profiling.ahead(ex, impl)
        if self.stopped.is_set():
            profiling.close(self.procs)
            return None
        try:
            return profiling.feedback(ex, impl, sources, timeout, self.procs)
        except Exception as exc:  # noqa: BLE001 - advice only: never the grade's failure
            return {"profile": None, "advice": None, "reason": f"not profiled: {exc}"}
        finally:
            self.grade.wall["profile"] = round(time.monotonic() - begun, 2)

    def stop(self) -> None:
        """Its processes killed (the thread running it closes them)."""
        self.stopped.set()
        for proc in list(self.procs.values()):
            if proc is not None:
                proc.kill()


def settle(grade: Grade) -> Grade:
    """The grade with every pending check's verdict (and its profile) in place."""
    grade.checks = [c.result() if hasattr(c, "result") else c for c in grade.checks]
    if isinstance(grade.profile, Future):
        grade.profile = grade.profile.result()
    return grade


def timed(grade: Grade, ex: Exercise, sources: dict[str, str], timeout: float | None = None,
          plot_dir: Path | None = None, plots=None) -> Grade:
    """The perf verdicts of a settled grade: measured on a GPU when it is correct, else
    skipped with the reason. Nothing else of the submission may run on the GPU meanwhile.
    The profile is the one run beside the untimed checks (`grade.profile`), else one run
    now, after the timed rounds. `plots`: an executor that draws the sweep's plot (see
    `perf_check`)."""
    skipped = None
    if grade.device != "gpu":
        skipped = "skipped: needs a GPU"
    elif not grade.correct:
        skipped = "skipped: not correct"
    if skipped:
        grade.perf = perf.not_measured(ex, grade.impl, grade.device, skipped)
        return grade
    from grader.pipeline import profiling

    # Profiled already, beside the untimed checks; else the profiler's processes import during
    # the timed rounds, or started CUDA before them (`profiling.warm`, `profiling.quiet`), and
    # touch the GPU after them.
    ahead = {} if grade.profile is not None else profiling.ahead(ex, grade.impl)
    try:
        profiling.quiet(ahead)
        started = time.monotonic()
        grade.perf = perf_check(ex, grade.impl, sources, timeout, plot_dir, plots)
        grade.wall["perf"] = round(time.monotonic() - started, 2)
        if grade.perf and grade.perf[0].status in ("pass", "fail"):  # measured: say why
            if grade.profile is None:
                started = time.monotonic()
                grade.profile = profiling.feedback(ex, grade.impl, sources, timeout, ahead)
                grade.wall["profile"] = round(time.monotonic() - started, 2)
            grade.perf[0].perf["profile"] = grade.profile
    finally:
        profiling.close(ahead)
    return grade


def grade_many(work: list[tuple[Exercise, str, dict]], device: str, hidden: bool = True,
               perf: bool = True, timeout: float | None = None, plot_dir: Path | None = None,
               ahead=None, on_done=None) -> list[Grade]:
    """Every (exercise, impl, sources) of one submission, or of each lab's in turn (`tclab
    check`), in two phases: the untimed checks (`untimed_many`, or those `ahead` already holds
    for the same sources), then every perf check one after the other, alone on the GPU, their
    plots drawn meanwhile. The verdicts are those of `grade_exercise` on each, in `work`'s
    order. `on_done(grade, seconds)`: called once each part is finished, with the seconds its
    own checks took; one call at a time."""
    measured = perf and device == "gpu"  # else a part is finished with its untimed checks
    lock = threading.Lock()
    spent: dict[tuple[str, str], float] = {}

    def report(grade: Grade, seconds: float) -> None:
        if on_done is not None:
            with lock:
                on_done(grade, seconds)

    def settled(ex: Exercise, src: dict, grade: Grade, seconds: float) -> None:
        if measured:
            spent[(ex.key, grade.impl)] = seconds
            return
        if perf:  # without a GPU: only the reason nothing was measured
            timed(grade, ex, src, timeout, plot_dir)
        report(grade, seconds)

    done = dict(ahead or {})
    todo = []
    for ex, impl, src in work:
        if done.get((ex.key, impl), (None, None))[0] == src:
            settled(ex, src, done[(ex.key, impl)][1], 0.0)
        else:
            todo.append((ex, impl, src))
    # On a GPU, one lab at a time: every case set of the pass is made at its start (a set
    # holds cases of up to 2^27 elements) and the profiler's processes of every part start
    # then too, so a run of every lab holds no more than one notebook's check does. Without
    # one, the sets are small (every lab's: 170 MB) and one pass lets a lane go on to the
    # next lab while the other finishes this one.
    passes: dict[str, list] = {}
    for part in todo:
        passes.setdefault(part[0].lab_id if device == "gpu" else "", []).append(part)
    for one_pass in passes.values():
        done.update(untimed_many(one_pass, device, hidden, timeout, warm_reference=perf,
                                 on_settled=settled))
    grades = [done[(ex.key, impl)][1] for ex, impl, _ in work]
    if measured:
        with ThreadPoolExecutor(max_workers=1) as plots:  # CPU work: beside the timed rounds
            for grade, (ex, _, src) in zip(grades, work):
                begun = time.monotonic()
                timed(grade, ex, src, timeout, plot_dir, plots)
                report(grade, spent.get((ex.key, grade.impl), 0.0) + time.monotonic() - begun)
    return grades


def untimed_many(work: list[tuple[Exercise, str, dict]], device: str, hidden: bool = True,
                 timeout: float | None = None, warm_reference: bool = True, on_settled=None
                 ) -> dict[tuple[str, str], tuple[dict, Grade]]:
    """`untimed()` of each: each implementation's correctness checks one after another (its
    own worker server), the implementations side by side on the same prepared cases, every
    memcheck (a process of its own under the sanitizer) beside them; returns once all have
    ended. On a GPU (`warm_reference`: perf checks follow) the reference's server starts
    meanwhile, and each part's profile runs beside the checks (`untimed`'s `profile_pool`;
    their profiled calls one at a time: `profiling.GATE`). `on_settled(ex, sources, grade,
    seconds)`: called as each part's grade is settled, from its lane (or, where a check of it
    still ran beside the next part, once all have ended), with the seconds since it began."""
    impls = list(dict.fromkeys(impl for _, impl, _ in work))
    own = runner.current()
    if own is not None:
        for impl in impls:  # their imports overlap the cases being made
            own.server(device, impl)
    profiles = device == "gpu" and warm_reference and bool(work)
    if profiles and own is not None:
        from grader.pipeline import profiling

        own.server("gpu", "reference", work[0][0].lab_id)  # starts, in the background
        for ex, impl, _ in work:  # the profiler's processes too: they import meanwhile
            profiling.warm(ex, impl)
    memo = CaseMemo()
    exercises = {ex.key: ex for ex, _, _ in work}
    sets = [(ex, dtype) for ex in exercises.values() for dtype in ex.dtypes]
    with ThreadPoolExecutor(max_workers=MEMCHECK_WORKERS) as pool, \
            ThreadPoolExecutor(max_workers=max(1, len(work))) as profiling, \
            ThreadPoolExecutor(max_workers=max(1, len(impls))) as lanes, \
            ThreadPoolExecutor(max_workers=max(1, min(PREPARE_WORKERS, len(sets)))) as making:
        # In the order the lanes need them; a lane takes a set made, or waits for it.
        for ex, dtype in sets:
            making.submit(memo.get, ex, suites_for(device, hidden), dtype, ahead=True)

        waiting: dict[tuple[str, str], tuple[Exercise, float]] = {}  # settled after the lanes
        users = collections.Counter(ex.key for ex, _, _ in work)  # parts yet to use its sets
        users_lock = threading.Lock()

        def lane(impl):
            graded = {}
            for ex, i, src in work:
                if i != impl:
                    continue
                begun = time.monotonic()
                grade = untimed(ex, i, src, device, hidden, timeout, memcheck_pool=pool,
                                memo=memo, profile_pool=profiling if profiles else None)
                with users_lock:
                    users[ex.key] -= 1
                    if not users[ex.key]:
                        memo.drop(ex)
                graded[(ex.key, i)] = (src, grade)
                if on_settled is not None and not _pending(grade):
                    on_settled(ex, src, grade, time.monotonic() - begun)
                else:
                    waiting[(ex.key, i)] = (ex, begun)
            return graded

        runs = [lanes.submit(contextvars.copy_context().run, lane, impl) for impl in impls]
        grades = {key: value for run in runs for key, value in run.result().items()}
    if profiles and own is not None:  # warmed for parts that were not profiled: not needed
        from grader.pipeline import profiling

        for ex, impl, _ in work:
            profiling.close(own.take(("profile", ex.key, impl)) or {})
    settled = {key: (src, settle(grade)) for key, (src, grade) in grades.items()}
    if on_settled is not None:
        for key, (ex, begun) in waiting.items():
            src, grade = settled[key]
            on_settled(ex, src, grade, time.monotonic() - begun)
    return settled


def _pending(grade: Grade) -> bool:
    """Whether a check of `grade` (memcheck, the profile) is still a Future (see `settle`)."""
    return any(isinstance(c, Future) for c in grade.checks) or isinstance(grade.profile, Future)


def unreadable(ex: Exercise, impl: str, device: str, error: submission.SubmissionError,
               with_perf: bool = True) -> Grade:
    """The grade of a submission that could not be read: one clean verdict, no crash."""
    grade = Grade(ex.lab_id, ex.key, impl, device)
    grade.checks.append(correctness.unreadable(ex, impl, device, error.status, str(error)))
    if with_perf:
        grade.perf = perf.not_measured(ex, impl, device, "skipped: not correct")
    return grade


def cell_names(ex: Exercise) -> dict[str, str]:
    """How a student sees each solution cell: by what it defines in the lab's own notebook."""
    return _cell_names(ex.key)


@functools.cache
def _cell_names(key: str) -> dict[str, str]:
    import jupytext

    ex = manifest.exercise(key)
    source = jupytext.read(manifest.get(ex.lab_id).source)
    wanted = [gid for spec in ex.impls.values() for gid in spec.cells]
    texts = submission.cell_sources(source, tuple(wanted), ex.lab_id)
    return {gid: submission.cell_label(gid, text) for gid, text in texts.items()}


def plan(lab: Lab, nb, where: str, device: str, impls=None, exercises=None,
         perf: bool = True) -> list:
    """Each part of `lab` to grade in the notebook `nb` (None: unreadable, then `nb_error`
    says why): `(exercise, impl, sources)`, or the Grade of a part that cannot be read."""
    parts = []
    for ex in lab.exercises:
        if exercises and ex.name not in exercises:
            continue
        for impl in impls or ex.impls:
            if impl not in ex.impls:
                continue
            if isinstance(nb, submission.SubmissionError):
                parts.append(unreadable(ex, impl, device, nb, perf))
                continue
            try:
                sources = submission.cell_sources(nb, ex.impls[impl].cells, where,
                                                  cell_names(ex))
            except submission.SubmissionError as exc:
                parts.append(unreadable(ex, impl, device, exc, perf))
                continue
            sources = {**submission.earlier_cells(nb, ex.impls[impl].cells), **sources}
            parts.append((ex, impl, sources))
    return parts


def grade_parts(parts: list, device: str, on_done=None, **kw) -> list[Grade]:
    """`plan()`'s parts graded (`grade_many`), in their order; `on_done(grade, seconds)` is
    called for each as it is finished (an unreadable part's first)."""
    for p in parts:
        if isinstance(p, Grade) and on_done is not None:
            on_done(p, 0.0)
    graded = iter(grade_many([p for p in parts if not isinstance(p, Grade)], device,
                             on_done=on_done, **kw))
    return [p if isinstance(p, Grade) else next(graded) for p in parts]


def plan_notebook(lab: Lab, path: Path, device: str, impls=None, exercises=None,
                  perf: bool = True) -> list:
    """`plan()` of the notebook at `path`, read once for every part of it."""
    try:
        nb = submission.read_notebook(path)
    except submission.SubmissionError as exc:
        nb = exc
    return plan(lab, nb, str(path), device, impls, exercises, perf)


def plan_submission(lab: Lab, where: str, device: str, perf: bool = True) -> list:
    """`plan_notebook()` of `lab`'s notebook in `where` (see `resolve_submission`); where
    there is none, the Grade of each part says so."""
    try:
        path = resolve_submission(lab, where)
    except submission.SubmissionError as exc:
        return plan(lab, exc, where, device, perf=perf)
    return plan_notebook(lab, path, device, perf=perf)


def grade_notebook(lab: Lab, path: Path, device: str, impls=None, exercises=None,
                   **kw) -> list[Grade]:
    """Every exercise and implementation of `lab` in the notebook at `path`; an unreadable
    notebook or a missing cell is a verdict for what it affects, never an exception."""
    parts = plan_notebook(lab, path, device, impls, exercises, kw.get("perf", True))
    with runner.session():  # one worker server for the whole notebook
        return grade_parts(parts, device, **kw)
