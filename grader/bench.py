"""Bandwidth: CUDA-event timing, L2 flushes, interleaved student/reference rounds, honest bars.

Three places use it:
- `perf_check` (parent, never loads student code): starts the perf worker, applies the physics
  floor, the bar and the re-measure rule, draws the plot;
- `run_child` (inside the worker, after the reference and before the student's code loads the
  timing functions are captured): times the rounds and rechecks outputs;
- `notebook_report` (inside a student's kernel): feedback against torch, never the grade.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import torch

from grader import check, paths
from grader.manifest import Lab

L2_FLUSH_BYTES = 256 << 20  # 4x the H200's 60 MB L2: a write of this evicts everything
ROOF_BYTES = 1 << 30  # the copy that calibrates the device's roof
ROOF_SLACK = 1.05  # a time below bytes / (1.05 x roof) is physically impossible
REMEASURE = 0.05  # within 5% below the bar: measure again before failing
WARMUP = 3
ROUNDS = {"perf": 25, "sweep": 5}
# A GPU-side wait queued after the flush (about 100 us at H200 clocks): the CPU's launch
# overhead, Python's included, stays hidden behind it even when the flush is short.
SPIN_CYCLES = 200_000


# --- timing primitives (captured once, before any student code runs) -------------------------

class Timer:
    """CUDA events with a device-wide synchronize around each call, bound at construction."""

    def __init__(self):
        self.event = torch.cuda.Event
        self.record = torch.cuda.Event.record
        self.elapsed = torch.cuda.Event.elapsed_time
        self.sync = torch.cuda.synchronize
        self.flush_buf = torch.empty(L2_FLUSH_BYTES, dtype=torch.int8, device="cuda")
        self.zero = torch.Tensor.zero_
        self.spin = torch.cuda._sleep

    def flush(self) -> None:
        self.zero(self.flush_buf)

    def time(self, fn, *args) -> float:
        """Milliseconds of fn(*args) on the current stream, L2 cold.

        The flush is queued first and the call is launched while the GPU is still flushing,
        so the CPU's launch overhead is not timed (as in triton.testing.do_bench). Work on
        other streams is refused by the launch accounting, not timed; the device-wide
        synchronize afterwards drains anything left before the next call.
        """
        start, end = self.event(enable_timing=True), self.event(enable_timing=True)
        self.sync()
        self.flush()
        self.spin(SPIN_CYCLES)
        self.record(start)
        fn(*args)
        self.record(end)
        self.sync()
        return self.elapsed(start, end)


def copy_roof() -> dict:
    """The device's bandwidth roof, measured once per GPU and cached: the faster of a
    device-to-device copy and torch.add (read 2, write 1), bytes = reads + writes."""
    name = torch.cuda.get_device_name()
    cache = paths.CACHE / f"roof-v3-{name.replace(' ', '_')}.json"
    if cache.exists():
        return json.loads(cache.read_text())
    timer = Timer()
    n = ROOF_BYTES // 4
    a, b = (torch.empty(n, dtype=torch.float32, device="cuda") for _ in range(2))
    out = torch.empty_like(a)
    ways = {"copy": (lambda: out.copy_(a), 2 * ROOF_BYTES),
            "add": (lambda: torch.add(a, b, out=out), 3 * ROOF_BYTES)}
    measured = {}
    for way, (fn, bytes_) in ways.items():
        for _ in range(WARMUP):
            fn()
        ms = statistics.median(timer.time(fn) for _ in range(10))
        measured[way] = bytes_ / (ms * 1e6)
    roof = {"gpu": name, "gbps": max(measured.values()), "measured_gbps": measured}
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(roof))
    return roof


def device_info() -> dict:
    props = torch.cuda.get_device_properties(0)
    info = {"gpu": props.name, "sms": props.multi_processor_count,
            "memory_gib": round(props.total_memory / 2**30, 1)}
    try:
        import subprocess

        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem,clocks.max.sm",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=10)
        info["clocks"] = out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        info["clocks"] = "unknown"
    return info


# --- inside the worker ------------------------------------------------------------------------

class Refused(Exception):
    """A timed round broke a rule or produced a wrong output: args are (status, reason)."""


def _torch_op(lab: Lab):
    """torch computing the oracle into a fresh tensor: no extra copy into `out` is timed."""
    def op(*args):
        env = {t.name: a for t, a in zip(lab.inputs, args)}
        eval(lab.oracle, {"torch": torch, "__builtins__": {}}, env)  # trusted manifest
    return op


def _recheck(got: torch.Tensor, want: torch.Tensor, lab: Lab, close) -> bool:
    atol, rtol = lab.tolerances["float32"]
    return bool(close(got, want, atol=atol * 10, rtol=rtol * 10, equal_nan=False))


def time_rounds(lab: Lab, shape: dict, fns: dict, timer, rounds: int, seed_of,
                check_round=None, device: str = "cuda") -> dict[str, list[float]]:
    """The timing protocol: WARMUP untimed rounds, then `rounds` timed ones. Each round draws
    fresh inputs (seed_of(round)), gives every fn fresh outputs and times each fn once, the
    order alternating between rounds; check_round(round, outputs) may raise Refused."""
    times = {k: [] for k in fns}
    for r in range(-WARMUP, rounds):
        inputs = check.make_inputs(lab, shape, seed_of(r), torch.float32, device)
        outs = {k: check.alloc_outputs(lab, shape, torch.float32, device)[1] for k in fns}
        for k in list(fns) if r % 2 == 0 else list(reversed(fns)):
            ms = timer.time(fns[k], *inputs.values(), *outs[k].values())
            if r >= 0:
                times[k].append(ms)
        if check_round is not None:
            check_round(r, outs)
    return times


def run_child(lab: Lab, request: dict, student, reference, timer: Timer, watch, launches,
              impl: str, send) -> None:
    """Interleaved rounds for each perf and sweep shape; one message per shape.

    Every timed student call must launch at least one kernel of its kind, all on the timed
    stream; the outputs of every round are compared with the reference's on the same inputs.
    """
    close = watch.objects[(torch, "allclose")]

    def audited(*args):
        before, side = getattr(launches, impl), launches.side_streams
        student(*args)
        if getattr(launches, impl) == before:
            raise Refused("no_launch", f"a timed call launched no {impl} kernel: the work "
                          "must happen inside the call, on the kernel")
        if launches.side_streams != side:
            raise Refused("side_stream", "a timed call launched its kernel on a side stream: "
                          "launch on the current stream (work elsewhere is not timed)")

    plan = [("perf", rep) for rep in range(request.get("repeat", 1))]
    plan += [("sweep", 0)] if request.get("sweep", True) else []
    for suite, rep in plan:
        for index, shape in enumerate(lab.shapes[suite]):
            fns = {"student": audited, "reference": reference}
            if suite == "sweep":
                fns["torch"] = _torch_op(lab)

            def recheck(r, outs, shape=shape):
                for name in outs["student"]:
                    if not _recheck(outs["student"][name], outs["reference"][name], lab, close):
                        raise Refused("fail", f"round {r}: the output differs from the "
                                      f"reference on fresh inputs [{lab.describe(shape)}]")

            def seed_of(r, suite=suite, rep=rep, index=index):
                return check.seed_for(lab.id, f"{suite}{rep}", index, r,
                                      secret_=request["seed_salt"])

            times, refused = {}, None
            try:
                times = time_rounds(lab, shape, fns, timer, ROUNDS[suite], seed_of, recheck)
            except Refused as exc:
                refused = exc.args
            send(event="perf", suite=suite, index=index, repeat=rep, times=times,
                 refused=refused, tampered=watch.tampered())
            if refused:
                return


# --- the parent -------------------------------------------------------------------------------

def _summary(lab: Lab, shape: dict, times: dict, roof: float) -> dict:
    bytes_ = lab.bytes_moved(shape, 4)
    ratios = [r / s for r, s in zip(times["reference"], times["student"])]
    s_ms, r_ms = statistics.median(times["student"]), statistics.median(times["reference"])
    row = {"shape": shape, "bytes": bytes_, "ratio": statistics.median(ratios),
           "ratios": ratios, "student_ms": s_ms, "reference_ms": r_ms,
           "gbps": bytes_ / (s_ms * 1e6), "reference_gbps": bytes_ / (r_ms * 1e6),
           "roof_pct": 100 * bytes_ / (s_ms * 1e6) / roof,
           "raw_ms": times}
    if "torch" in times:
        row["torch_gbps"] = bytes_ / (statistics.median(times["torch"]) * 1e6)
    return row


def _measure(lab: Lab, impl: str, sources: dict, timeout: float | None, sweep: bool,
             repeat: int = 1) -> dict:
    from grader import runner

    return runner.run_worker(lab, impl, sources, "gpu", mode="perf", timeout=timeout,
                             extra={"sweep": sweep, "repeat": repeat})


def decide(lab: Lab, messages: list[dict], roof: float) -> dict:
    """A verdict from one measurement's perf messages: refusals, rechecks, the physics floor,
    then the worst shape's median ratio against the bar."""
    base = {"bar": lab.bar, "zero_below": lab.zero_below, "roof_gbps": roof}
    if len(messages) < len(lab.shapes["perf"]) and not any(m.get("refused") for m in messages):
        return {**base, "status": "error", "reason": "the perf run stopped early"}
    rows = []
    for m in messages:
        if m["tampered"]:
            return {**base, "status": "tampered", "reason": "grading functions were replaced: "
                    + ", ".join(m["tampered"])}
        if m.get("refused"):  # a broken rule, or outputs that differ from the reference's
            status, reason = m["refused"]
            return {**base, "status": status, "reason": reason}
        rows.append(_summary(lab, lab.shapes["perf"][m["index"]], m["times"], roof))
    for row in rows:
        floor_ms = row["bytes"] / (ROOF_SLACK * roof * 1e6)
        if row["student_ms"] < floor_ms:
            return {**base, "status": "impossible", "rows": rows,
                    "reason": f"[{lab.describe(row['shape'])}] {row['student_ms']:.3f} ms is "
                    f"faster than moving {row['bytes'] / 2**20:.0f} MiB at the roof "
                    f"allows ({floor_ms:.3f} ms): work skipped or cached?"}
    worst = min(rows, key=lambda r: r["ratio"])
    return {**base, "rows": rows, "ratio": worst["ratio"], "gbps": worst["gbps"],
            "roof_pct": worst["roof_pct"],
            "status": "pass" if worst["ratio"] >= lab.bar else "fail",
            "reason": f"{worst['ratio']:.2f}x the reference at [{lab.describe(worst['shape'])}]"
                      f", bar {lab.bar:.2f}x; {worst['gbps']:.0f} GB/s, "
                      f"{worst['roof_pct']:.0f}% of the {roof:.0f} GB/s roof"}


def near_bar(lab: Lab, verdict: dict) -> bool:
    return any(lab.bar * (1 - REMEASURE) <= row["ratio"] < lab.bar
               for row in verdict.get("rows", []))


def perf_check(lab: Lab, impl: str, sources: dict, timeout: float | None = None,
               plot_dir: Path | None = None) -> dict:
    """The perf verdict: median per-round ratio to the reference against the lab's bar; a
    result within 5% below the bar is measured again and decided on all rounds together."""
    roof = copy_roof()["gbps"]
    first = _measure(lab, impl, sources, timeout, sweep=True)
    extra = {"device": device_info(), "seconds": first["seconds"]}
    if first.get("error"):
        reason = first.get("summary") or first["error"].strip().splitlines()[-1]
        return {"status": first.get("kind", "error"), "reason": reason,
                "details": first["error"], "bar": lab.bar, **extra}
    perf = [m for m in first["messages"] if m["suite"] == "perf"]
    verdict = decide(lab, perf, roof)
    if verdict["status"] == "fail" and near_bar(lab, verdict):
        again = _measure(lab, impl, sources, timeout, sweep=False)
        more = [m for m in again.get("messages", []) if m["suite"] == "perf"]
        if any(n.get("refused") or n["tampered"] for n in more):
            verdict = {**decide(lab, more, roof), "remeasured": True}  # its refusal stands
        elif len(more) == len(perf):
            merged = [{**m, "times": {k: m["times"][k] + n["times"][k] for k in m["times"]}}
                      for m, n in zip(perf, more)]
            verdict = {**decide(lab, merged, roof), "remeasured": True}
    sweep = [_summary(lab, lab.shapes["sweep"][m["index"]], m["times"], roof)
             for m in first["messages"]
             if m["suite"] == "sweep" and not m.get("refused")]
    verdict.update(extra, sweep=sweep)
    if plot_dir is not None and sweep:
        verdict["plot"] = str(plot(lab, impl, sweep, roof, Path(plot_dir)))
    return verdict


def plot(lab: Lab, impl: str, sweep: list[dict], roof: float, out_dir: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mib = [r["bytes"] / 2**20 for r in sweep]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(mib, [r["gbps"] for r in sweep], "o-", label=f"your {impl}")
    ax.plot(mib, [r["reference_gbps"] for r in sweep], "s--", label="reference")
    if all("torch_gbps" in r for r in sweep):
        ax.plot(mib, [r["torch_gbps"] for r in sweep], "^:", label="torch")
    ax.axhline(roof, color="gray", lw=1, label=f"copy roof {roof:.0f} GB/s")
    ax.set_xscale("log", base=2)
    ax.set_xticks(mib, ["×".join(str(v) for v in lab.dims(r["shape"]).values()) for r in sweep],
                  rotation=30, fontsize=8)
    ax.minorticks_off()
    ax.set_xlabel(f"size ({' × '.join(lab.inputs[0].shape)}); log scale of bytes moved")
    ax.set_ylabel("GB/s")
    ax.set_ylim(0, roof * 1.1)
    ax.set_title(f"{lab.id} — {impl}")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{lab.id}_{impl}.png"
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- in the student's notebook ----------------------------------------------------------------

def notebook_report(lab: Lab, impl: str, launcher, graded: bool = False):
    """GB/s of `launcher` against torch over the sweep (and the reference when graded)."""
    from grader.notebook import CheckFailed

    roof = copy_roof()["gbps"]
    timer = Timer()
    fns = {"student": launcher, "torch": _torch_op(lab)}
    if graded:
        from grader import reference

        fns["reference"] = reference.load(lab, impl)
    suite = "perf" if graded else "sweep"
    rows = []
    for index, shape in enumerate(lab.shapes[suite]):
        times = time_rounds(lab, shape, fns, timer, ROUNDS["sweep"],
                            lambda r, index=index: check.seed_for(lab.id, suite, index, r))
        if "reference" not in times:
            times["reference"] = times["torch"]
        rows.append(_summary(lab, shape, times, roof))
    print(f"{lab.id} {impl}: copy roof {roof:.0f} GB/s")
    for row in rows:
        print(f"  [{lab.describe(row['shape'])}] {row['gbps']:7.0f} GB/s  "
              f"{row['roof_pct']:5.1f}% of roof  torch {row['torch_gbps']:7.0f} GB/s  "
              f"{row['student_ms']:.3f} ms")
    if not graded:
        try:
            import matplotlib.pyplot as plt
            from IPython.display import Image, display

            path = plot(lab, impl, rows, roof, paths.CACHE / "plots")
            plt.close("all")
            display(Image(filename=str(path)))
        except ImportError:
            pass
        return rows
    worst = min(rows, key=lambda r: r["ratio"])
    if worst["ratio"] < lab.bar:
        raise CheckFailed(f"{lab.id} {impl}: {worst['ratio']:.2f}x the reference bandwidth at "
                          f"[{lab.describe(worst['shape'])}], the bar is {lab.bar:.2f}x")
    return rows
