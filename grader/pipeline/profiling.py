"""Profiling a call: the processes that run one call of the student's (or the reference's)
launcher under Nsight Compute (`ncu`), when they start and how they take turns on the GPU. The
counters are read and advised in `judge.advice`.

    run()       -> the launcher called twice on one perf-sized case in a worker under ncu: a
                   warm-up (Triton's compile, autotune), then the profiled call, between
                   cudaProfilerStart/Stop (`execution.worker`)
    feedback()  -> the student's and the reference's runs, decided by `advice.decide()`

Trust: ncu runs inside the sandbox, beside the student's process, and prints its report on the
same stdout the student can print to. A forged report changes the advice, never a score; the
report read is the last one, printed after the student's process ended.
"""

from __future__ import annotations

import os
import threading

from grader.judge import advice
from grader.lab.manifest import Exercise


def enabled() -> bool:
    """`TCLAB_PROFILE=0` turns profiling off."""
    return os.environ.get("TCLAB_PROFILE", "1") != "0"


def ahead(ex: Exercise, impl: str) -> dict:
    """The processes `feedback()` will use: those `warm()` started earlier in this session, or
    started now (`start()`): the student's, and the reference's unless its profile is kept
    already. Close what is not used (`close()`)."""
    from grader.execution import runner
    own = runner.current()
    kept = own.take(("profile", ex.key, impl)) if own is not None else None
    return kept if kept is not None else begin(ex, impl)


def warm(ex: Exercise, impl: str) -> None:
    """Start `ahead()`'s processes now, kept in the session (`runner.Session.keep`) for the
    perf check after: their imports and CUDA's start (seconds, under ncu) overlap the untimed
    checks instead of the timed rounds (`quiet()` waits for them before those) or the profile
    itself."""
    from grader.execution import runner
    own = runner.current()
    if own is not None and enabled():
        ahead_ = own.take_warm(impl, "profile")  # started by a task server (`warm_runs`)
        if ahead_ is not None:
            own.keep(("profile", ex.key, impl), {
                "student": ahead_,
                "reference": None if _reference_kept(ex, impl) else start(ex, reference=True)})
            return
        early = sum(getattr(proc, "cuda_now", False) for kept in own.kept("profile")
                    for proc in kept.values())
        own.keep(("profile", ex.key, impl), begin(ex, impl, cuda_now=early < early_cuda()))


def warm_runs(lab) -> list:
    """((impl, "profile"), wrapper, env, True) for each profile of `lab` a task server starts
    ahead of the next task (`runner.prestart`): under ncu its imports take about 7 s of an H200
    machine, which started on request were the last of a lab01 submission's untimed checks to
    end. No CUDA before the request: the task before may be timing. None without ncu."""
    import shutil

    tool = shutil.which(advice.NCU)
    if tool is None or not enabled():
        return []
    return [((impl, "profile"), advice.flags(tool), None, True)
            for ex in lab.exercises for impl in ex.impls]


def _reference_kept(ex: Exercise, impl: str) -> bool:
    from grader.lab import reference
    return not reference.available(ex, impl) or _kept(ex, impl).exists()


GIB_PER_CONTEXT = 8  # GPU memory per process that starts CUDA ahead (`early_cuda`)


def early_cuda() -> int:
    """How many processes of one session may start CUDA ahead (`warm`): each holds a CUDA
    context (hundreds of MB of GPU memory) until its profile, and a lab of many exercises
    warms a pair for each; one per GIB_PER_CONTEXT GiB of the GPU's memory (17 on an H200, 1
    on an 8 GiB card), at least one. Past these, CUDA starts on request."""
    from grader.backends import bench
    return max(1, int((bench.device_info().get("memory_gib") or 0) // GIB_PER_CONTEXT))


def begin(ex: Exercise, impl: str, cuda_now: bool = False) -> dict:
    """The processes of one profile, started now: the student's, and the reference's unless its
    profile is kept already; `cuda_now`: see `warm()`."""
    if not enabled():
        return {}
    return {"student": start(ex, impl=impl, cuda_now=cuda_now),
            "reference": None if _reference_kept(ex, impl)
            else start(ex, reference=True, cuda_now=cuda_now)}


QUIET_WAIT = 30.0  # s a timed round waits for the CUDA start of `warm()`'s processes


def quiet(ahead: dict, wait: float = QUIET_WAIT) -> None:
    """Before timed rounds: wait until every process `warm()` started has started CUDA,
    `ahead`'s and those still kept in the session, so that none of it overlaps a timed
    round. One not ready within `wait` s is closed (its profile starts a process on request,
    as without `warm()`)."""
    import time

    from grader.base.trace import trace
    from grader.execution import runner

    own = runner.current()
    sets = [ahead] + (own.kept("profile") if own is not None else [])
    waiting = [p for one in sets for p in one.values() if p is not None]
    begun = time.monotonic()
    while waiting and time.monotonic() - begun < wait:
        waiting = [p for p in waiting if not p.ready()]
        if waiting:
            time.sleep(0.05)
    if time.monotonic() - begun > 0.1:
        trace(f"the timed rounds waited {time.monotonic() - begun:.1f} s for the profilers' "
              f"CUDA start ({len(waiting)} not ready, closed)")
    for one in sets:
        for name, proc in one.items():
            if proc is not None and proc in waiting:
                proc.close()
                one[name] = None


def close(started: dict) -> None:
    for proc in started.values():
        if proc is not None:
            proc.close()


def feedback(ex: Exercise, impl: str, sources: dict[str, str], timeout: float | None = None,
             started: dict | None = None) -> dict:
    """`decide()` on one profiled call of the student's launcher and the reference's
    (`reference_run()`), in the processes `ahead()` started if given, with the seconds it
    took; after the timed rounds, alone on the GPU."""
    import time

    started = dict(started or {})
    try:
        if not enabled():
            return {"profile": None, "advice": None, "reason": "skipped: TCLAB_PROFILE=0"}
        begun = time.monotonic()
        mine = run(ex, impl, sources, timeout, started=started.pop("student", None))
        theirs = reference_run(ex, impl, timeout, started.pop("reference", None)) \
            if mine.get("metrics") else None
        got = advice.decide(ex, impl, mine, theirs)
        got["seconds"] = round(time.monotonic() - begun, 2)
        return got
    finally:
        close(started)


def _kept(ex: Exercise, impl: str):
    """Where the reference's profile is kept: under the reference cache (no student process
    sees it), keyed by everything it depends on: the reference folder's files, the case, the
    metric set and the GPU."""
    from grader.backends import bench
    from grader.base import paths
    from grader.lab import reference
    key = reference.digest(ex, impl, advice.case(ex), advice.METRICS,
                           bench.device_info().get("gpu"))
    return paths.CACHE / "reference" / "profiles" / f"{key}.json"


def reference_run(ex: Exercise, impl: str, timeout: float | None = None,
                  started=None) -> dict:
    """`run()` of the reference (in `started` if given), profiled once per machine; nothing
    where the reference is not (a student's machine: the advice then stands alone)."""
    import json

    from grader.lab import reference
    if not reference.available(ex, impl):
        close({"reference": started})
        return {"reason": "no reference on this machine"}
    path = _kept(ex, impl)
    try:
        got = json.loads(path.read_text())
        close({"reference": started})
        return got
    except (OSError, ValueError):
        pass
    got = run(ex, impl, {}, timeout, reference=True, started=started)
    if got.get("metrics"):
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_suffix(f".{os.getpid()}.part")
        part.write_text(json.dumps(got))
        part.replace(path)
    return got


def unprimed(lab) -> list[tuple[Exercise, str]]:
    """The (exercise, implementation) pairs of `lab` whose reference has no profile kept on
    this machine yet (none where profiling is off or ncu missing)."""
    import shutil

    from grader.lab import reference
    if not enabled() or shutil.which(advice.NCU) is None:
        return []
    return [(ex, impl) for ex in lab.exercises for impl in ex.impls
            if reference.available(ex, impl) and not _kept(ex, impl).exists()]


def prime(ex: Exercise, impl: str, timeout: float | None = None) -> str | None:
    """Profile the reference of (ex, impl) now and keep it (`reference_run()`), before any
    submission's check: a course's autograde does it once per machine and lab, alone on the
    GPU, so that no student's check pays for it. Why it could not, or None."""
    got = reference_run(ex, impl, timeout)
    return None if got.get("metrics") else got.get("reason", "no profile")


# --- the worker's half -----------------------------------------------------------------------

# One profiled call at a time in this grading process: a GPU's counters serve one profiler at
# once (two ncu collecting together on an H200: "An error was reported by the driver" for one,
# 23 of 80 profiles). Held from a worker's "profiling" to its "profiled" (or its end), not for
# its start-up or ncu's report: those overlap.
GATE = threading.Lock()
GATE_WAIT = 60.0  # s: past this the call goes ahead ungated (never a deadlock)


def _gated(held: list):
    """`runner.run`'s on_message for a profile run: GATE taken on "profiling", then the
    worker's go-ahead frame sent; GATE released on "profiled". `held[0]` says whether this run
    holds it, for the caller to release it if the run ended first."""
    def on_message(msg, payload, link):
        if msg.event == "profiling" and not held[0]:
            held[0] = GATE.acquire(timeout=GATE_WAIT)
            link.send(b"go")
        elif msg.event == "profiled" and held[0]:
            held[0] = False
            GATE.release()
        return True

    return on_message


def start(ex: Exercise, reference: bool = False, device: str = "gpu", tool: str | None = None,
          impl: str | None = None, cuda_now: bool = False):
    """The sandboxed worker `run()` will use, started now under ncu (`tool`, found on PATH if
    not given) so that its imports overlap whatever runs before (the timed rounds: it makes
    no CUDA call until its request comes, unless `cuda_now`: see `warm()`); None without
    ncu. `reference`: a process for the hidden reference's launcher, that never holds student
    code. A student's (`impl`) gets the compile caches its implementation's checks filled in
    this submission, if any."""
    import shutil

    from grader.execution import runner
    tool = tool or shutil.which(advice.NCU)
    if tool is None:
        return None
    own = runner.current()
    cache = own.cache(impl) if own is not None and impl and not reference else None
    return runner.start(device, advice.flags(tool), None, ex.lab_id if reference else None, cache,
                        cuda_now)


def run(ex: Exercise, impl: str, sources: dict[str, str], timeout: float | None = None,
        reference: bool = False, started=None, device: str = "gpu") -> dict:
    """One profiled call of the student's launcher (or, `reference`, the hidden reference's)
    on the profiled case, under ncu in the sandbox, in `started` (`start()`) or a process
    started now: {"metrics": {...}, "seconds": s} or {"reason": why there are none}."""
    from grader.execution import runner
    from grader.lab import cases
    started = started or start(ex, reference, device, impl=impl)
    if started is None:
        return {"reason": advice.SKIPPED_NO_NCU}
    shape, dtype = advice.case(ex)
    request = runner.request(ex, impl, device, "profile", {} if reference else sources,
                             dtype=dtype, role="reference" if reference else "student",
                             perf={"shape": shape,
                                   "seed": cases.seed_for(f"{ex.key}/{dtype}", "profile", 0)})
    held = [False]
    try:
        outcome = runner.run(request, (timeout or runner.DEFAULT_TIMEOUT[device]) * 2,
                             started=started, on_message=_gated(held))
    finally:
        if held[0]:
            GATE.release()
    metrics = advice.parse(outcome.output)
    if metrics:
        return {"metrics": metrics, "seconds": outcome.seconds}
    said = advice.problem(outcome.output)
    if outcome.timed_out:
        said = f"killed after {outcome.timeout:g} s under {advice.NCU}"
    elif outcome.error is not None and not said:
        said = outcome.error.summary or outcome.error.kind
    return {"reason": f"not profiled: {said or 'no report from ' + advice.NCU}",
            "seconds": outcome.seconds}
