"""Timing primitives: CUDA events, L2 flushes, the device's roof, and the timing protocol.

The perf judge (`grader.judge.perf`) and the notebook's `bench()` time with these; neither
decides here. The timer's functions are bound when it is made, before any student code loads.
"""

from __future__ import annotations

import json
import statistics

import torch

from grader.base import paths
from grader.lab import cases
from grader.lab.manifest import Exercise

# The L2 is flushed by READING 4x the H200's 60 MB: every line evicted, none left dirty. A
# write flush (zero_) left up to 60 MB of dirty lines for the timed kernel to write back: on an
# H200, SwiGLU 8192x5632 bf16 measured 3635-4041 GB/s after a write flush, 4364-4369 after a
# read (16384x14336: 4333 / 4406); the smaller a kernel, the more it paid, and unevenly.
L2_FLUSH_BYTES = 256 << 20
ROOF_BYTES = 1 << 30  # the copy that calibrates the device's roof
ROOF_SLACK = 1.05  # a time below bytes / (1.05 x roof) is physically impossible
REMEASURE = 0.05  # within 5% below the bar: measure again before failing
WARMUP = 3
ROUNDS = {"perf": 25, "sweep": 5}
# The share of timed rounds whose outputs are checked against the oracle (`judge.perf.measure`).
RECHECK_SHARE = 0.5
# A GPU-side wait queued after the flush (about 100 us at H200 clocks): the CPU's launch
# overhead, Python's included, stays hidden behind it even when the flush is short.
SPIN_CYCLES = 1_000_000  # ~0.5 ms at 2 GHz: longer than any launcher's own Python


# --- timing primitives (captured once, before any student code runs) -------------------------

class Timer:
    """CUDA events with a device-wide synchronize around each call, bound at construction."""

    def __init__(self):
        self.event = torch.cuda.Event
        self.record = torch.cuda.Event.record
        self.elapsed = torch.cuda.Event.elapsed_time
        self.sync = torch.cuda.synchronize
        self.flush_buf = torch.zeros(L2_FLUSH_BYTES, dtype=torch.int8, device="cuda")
        self.read = torch.Tensor.max
        self.spin = torch.cuda._sleep

    def flush(self) -> None:
        self.read(self.flush_buf)  # a max over it: reads every line, writes one byte

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
    cache = paths.CACHE / f"roof-v4-{name.replace(' ', '_')}.json"  # v4: read flush
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


def gpu_id() -> str:
    """This process's GPU, told apart from its twins on the same machine (its UUID)."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return f"{props.name} {getattr(props, 'uuid', torch.cuda.current_device())}"


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


# --- a shared GPU ------------------------------------------------------------------------------

COMPUTE_APPS = ["nvidia-smi", "--query-compute-apps=pid,gpu_uuid", "--format=csv,noheader"]


def _bare_uuid(uuid: str) -> str:
    return uuid.strip().lower().removeprefix("gpu-")


def others_computing(listing: str, gpu_uuid: str) -> int:
    """How many other processes compute on this process's GPU, from the lines of
    `COMPUTE_APPS` (`PID, GPU-UUID`): those on its GPU but one, this process. Not by pid: in a
    container nvidia-smi lists this process under the host's pid. A MIG slice has a UUID of
    its own ("MIG-..."), which no line names: its neighbours on the GPU do not share its SMs
    or its memory."""
    ours = _bare_uuid(gpu_uuid)
    on_ours = [pid for pid, _, uuid in (line.partition(",") for line in listing.splitlines())
               if pid.strip().isdigit() and _bare_uuid(uuid) == ours]
    return max(0, len(on_ours) - 1)


def shared_note() -> str:
    """One line where other processes compute on this process's GPU: timings taken beside
    them are indicative only. Empty where none do, or where nvidia-smi cannot tell (absent,
    failing, slower than 5 s)."""
    import shutil
    import subprocess

    if shutil.which(COMPUTE_APPS[0]) is None:
        return ""
    try:
        out = subprocess.run(COMPUTE_APPS, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return ""
    uuid = getattr(torch.cuda.get_device_properties(torch.cuda.current_device()), "uuid", "")
    n = others_computing(out.stdout, str(uuid)) if out.returncode == 0 else 0
    if not n:
        return ""
    return (f"note: {n} other process{'es' if n > 1 else ''} compute{'' if n > 1 else 's'} on "
            "this GPU: these numbers are indicative only (they share its SMs and its memory "
            "bandwidth)")


# --- the protocol ------------------------------------------------------------------------------

def baseline_op(ex: Exercise):
    """What a user would write in torch (the manifest's `torch`, else its oracle), computing
    into a fresh tensor: no extra copy into `out` is timed."""
    def op(*args):
        names = [t.name for t in ex.inputs + ex.outputs] + [p.name for p in ex.params]
        env = dict(zip(names, args))
        eval(ex.baseline, {"torch": torch}, env)  # trusted manifest
    return op


def time_rounds(ex: Exercise, shape: dict, dtype: str, fns: dict, timer, rounds: int, seed_of,
                check_round=None, device: str = "cuda") -> dict[str, list[float]]:
    """WARMUP untimed rounds, then `rounds` timed ones. Each round draws fresh inputs
    (seed_of(round)), gives every fn fresh outputs and times each fn once, the order
    alternating between rounds; check_round(round, inputs, outputs) may raise to stop."""
    params = list(ex.param_values(shape).values())
    times = {k: [] for k in fns}
    for r in range(-WARMUP, rounds):
        inputs = cases.make_inputs(ex, shape, seed_of(r), dtype, device)
        outs = {k: cases.alloc_outputs(ex, shape, dtype, device)[1] for k in fns}
        for k in list(fns) if r % 2 == 0 else list(reversed(fns)):
            ms = timer.time(fns[k], *inputs.values(), *outs[k].values(), *params)
            if r >= 0:
                times[k].append(ms)
        if check_round is not None:
            check_round(r, inputs, outs)
    return times


def summary(ex: Exercise, shape: dict, dtype: str, times: dict, roof: float) -> dict:
    """One shape's row: median times, the ratio of the medians, the rate (GB/s, or TFLOP/s for
    a compute-bound exercise, under the key "gbps"), % of the copy roof (bytes only) and, where
    torch was timed beside, its rate and the student's ratio to it ("x_torch")."""
    itemsize = cases.DTYPES[dtype].itemsize
    work = ex.work_amount(shape, itemsize)
    s_ms = statistics.median(times["student"])
    r_ms = statistics.median(times.get("reference", times["student"]))
    # Reference and student are timed in processes of their own: rounds are not paired.
    ratios = [r_ms / s for s in times["student"]]
    rate = ex.rate(s_ms, shape, itemsize)
    row = {"shape": shape, "dtype": dtype, "work": work, "unit": ex.unit,
           "ratio": r_ms / s_ms, "ratios": ratios, "student_ms": s_ms,
           "reference_ms": r_ms, "gbps": rate, "reference_gbps": ex.rate(r_ms, shape, itemsize),
           "roof_pct": 100 * rate / roof if ex.unit == "bytes" else None, "raw_ms": times}
    if "torch" in times:
        t_ms = statistics.median(times["torch"])
        row.update(torch_gbps=ex.rate(t_ms, shape, itemsize), torch_ms=t_ms, x_torch=t_ms / s_ms)
    return row
