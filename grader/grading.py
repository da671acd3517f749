"""One submission, every check: correctness suites then performance, each in its own process.

Shared by `tclab check`, the pytest suite and the nbgrader regrade, so they agree.
"""

from __future__ import annotations

from pathlib import Path

from grader import runner, submission
from grader.manifest import Lab


def suites_for(device: str, hidden: bool = True) -> list[str]:
    suites = ["public"] + (["hidden"] if hidden else [])
    return suites + (["gpu"] if device == "gpu" and hidden else [])


def resolve_submission(lab: Lab, where: str) -> Path:
    """`solutions` (the lab source), `exercises` (the release) or a notebook file / folder."""
    if where == "solutions":
        return lab.source
    if where == "exercises":
        return lab.exercise
    path = Path(where)
    if path.is_dir():
        for candidate in (path / lab.id / f"{lab.id}.ipynb", path / f"{lab.id}.ipynb",
                          path / f"{lab.id}.py"):
            if candidate.exists():
                return candidate
        raise submission.SubmissionError(f"{path}: no {lab.id}.ipynb in it or in {lab.id}/")
    return path


def grade_impl(lab: Lab, impl: str, sources: dict[str, str], device: str,
               hidden: bool = True, perf: bool = True, timeout: float | None = None,
               plot_dir: Path | None = None) -> dict:
    """Correctness (public, hidden and GPU-sized shapes: one process), a memcheck launch on a
    GPU, then performance on a GPU."""
    checks = [runner.check_submission(lab, impl, sources, suites_for(device, hidden), device,
                                      timeout=timeout)]
    if device == "gpu" and hidden and all(v["status"] == "pass" for v in checks):
        v = runner.memcheck_submission(lab, impl, sources, timeout=timeout)
        checks.append(v)
    correct = all(v["status"] in ("pass", "skipped") for v in checks)
    result = {"lab": lab.id, "impl": impl, "device": device, "correct": correct,
              "checks": checks, "passed": sum(v.get("passed", 0) for v in checks),
              "total": sum(v.get("total", 0) for v in checks)}
    if not correct:
        bad = next(v for v in checks if v["status"] not in ("pass", "skipped"))
        result["status"], result["reason"] = bad["status"], bad["reason"]
    else:
        result["status"], result["reason"] = "pass", f"{result['passed']} shapes correct"
    if not perf:
        return result
    if device != "gpu":
        result["perf"] = {"status": "skipped", "reason": "skipped: needs a GPU"}
    elif not correct:
        result["perf"] = {"status": "skipped", "reason": "skipped: not correct"}
    else:
        from grader import bench

        result["perf"] = bench.perf_check(lab, impl, sources, timeout=timeout,
                                            plot_dir=plot_dir)
    return result


def grade_notebook(lab: Lab, path: Path, device: str, impls=None, **kw) -> list[dict]:
    results = []
    for impl in impls or lab.impls:
        try:
            sources = submission.solution_sources(lab, impl, path)
        except submission.SubmissionError as exc:
            results.append({"lab": lab.id, "impl": impl, "device": device, "correct": False,
                            "status": "missing", "reason": str(exc), "checks": [],
                            "passed": 0, "total": 0})
            continue
        results.append(grade_impl(lab, impl, sources, device, **kw))
    return results


def ok(result: dict) -> bool:
    perf = result.get("perf", {"status": "skipped"})
    return result["correct"] and perf["status"] in ("pass", "skipped")
