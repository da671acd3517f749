"""Performance feedback that teaches: the counters of one profiled call (Nsight Compute's CSV)
against the exercise's minimum bytes, and ONE line of advice in the language of the
implementation. Advice only: nothing here changes a score; nothing here runs a process
(`pipeline.profiling` runs ncu, `execution.worker` makes the profiled call).

    parse()    -> the counters of that call from ncu's CSV
    measure()  -> a `Profile`: the numbers a student can act on
    advise()   -> the first rule of `RULES` that fires, costliest flaw first
    decide()   -> {"profile": {...}, "reference": {...}, "advice": "..."}

Why the whole profiled call and not one launch: the flaws that cost most are a second pass and
a second kernel (tests/corpus/*/*two_pass*, *two_kernels*), invisible in any one launch. The
profiler range holds the launcher's call and nothing else (the inputs and outputs are made
before it), so every kernel in it is part of what the timed rounds time, and no kernel-name
filter is needed (`flags()` takes one for other callers); `MAX_LAUNCHES` bounds the cost.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import re
from dataclasses import dataclass

from grader.lab.manifest import Exercise

NCU = "ncu"
# The counters, by their Hopper (sm_90) names. Each was checked against public Nsight Compute
# material: the docs corpus available here returned the Nsight Compute CLI and Profiling Guide
# pages only by their opening sections, so the names below are confirmed from ncu sections and
# scripts that use them on sm_80/sm_90, not from the Metrics Reference table itself: the GPU
# test `test_every_metric_is_collected` checks them on the course GPU.
READ_BYTES = "dram__bytes_read.sum"
WRITE_BYTES = "dram__bytes_write.sum"
DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
LD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
LD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
# Of each 32-byte sector fetched, the share the threads asked for (nvprof's gld_efficiency).
LD_USE_PCT = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
ST_USE_PCT = "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
OCCUPANCY_PCT = "sm__warps_active.avg.pct_of_peak_sustained_active"  # achieved occupancy
REGISTERS = "launch__registers_per_thread"
SHARED_STATIC = "launch__shared_mem_per_block_static"
SHARED_DYNAMIC = "launch__shared_mem_per_block_dynamic"
BLOCK_SIZE = "launch__block_size"
# Blocks per SM each resource allows: the smallest names what limits occupancy.
LIMITS = {"launch__occupancy_limit_registers": "registers",
          "launch__occupancy_limit_shared_mem": "shared memory",
          "launch__occupancy_limit_warps": "warps",
          "launch__occupancy_limit_blocks": "blocks"}
# HMMA: fp16/bf16 and TF32 matrix instructions (Hopper's wgmma also counts here).
TENSOR_PCT = "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
DURATION = "gpu__time_duration.sum"  # weighs a call's launches
METRICS = [READ_BYTES, WRITE_BYTES, DRAM_PCT, LD_SECTORS, LD_REQUESTS, LD_USE_PCT, ST_USE_PCT,
           OCCUPANCY_PCT, REGISTERS, SHARED_STATIC, SHARED_DYNAMIC, BLOCK_SIZE, *LIMITS,
           TENSOR_PCT, DURATION]
MAX_LAUNCHES = 8  # kernels profiled in the one call: a kernel per row must not profile them all
SECTOR = 32  # bytes
WARP = 32  # threads

SKIPPED_NO_NCU = f"skipped: {NCU} not found"


# --- the command -----------------------------------------------------------------------------

def flags(tool: str, kernel_regex: str | None = None) -> list[str]:
    """The ncu command line before the profiled program: the kernels of one profiler range
    (`profiled()`), the counters of `METRICS`, a CSV of raw values in base units. The GPU's
    clocks are left as they are (ncu's default locks them to base while it profiles, a
    device-wide setting that every process on the GPU would feel, and that a profiler killed
    at its deadline might leave behind)."""
    name = ["--kernel-name", f"regex:{kernel_regex}"] if kernel_regex else []
    return [tool, "--profile-from-start", "off", "--target-processes", "all",
            "--clock-control", "none",
            "--launch-count", str(MAX_LAUNCHES), *name, "--csv", "--page", "raw",
            "--print-units", "base", "--metrics", ",".join(METRICS)]


# --- reading the report ----------------------------------------------------------------------

_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2.0**10, "Mi": 2.0**20,
          "Gi": 2.0**30, "Ti": 2.0**40}
_PREFIXED = re.compile(r"^(Ki|Mi|Gi|Ti|K|M|G|T)(byte|B)\b")
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")


def _scale(unit: str) -> float:
    m = _PREFIXED.match(unit.strip())
    return _SCALE[m.group(1)] if m else 1.0


def _number(text: str) -> float | None:
    text = text.strip().replace(",", "").replace("\u202f", "").replace(" ", "")
    return float(text) if _NUMBER.match(text) else None


def parse_rows(text: str) -> list[dict]:
    """Every profiled launch of the LAST report in `text` (ncu's `--csv --page raw` output,
    among whatever else the program printed): {"kernel": name, metric: value, ...}, values
    in base units. Never raises: unreadable text gives []."""
    try:
        lines = [ln for ln in str(text).splitlines() if ln.strip() and not ln.startswith("==")]
        rows = list(csv.reader(io.StringIO("\n".join(lines))))
    except (csv.Error, ValueError, TypeError):
        return []
    starts = [i for i, r in enumerate(rows) if "ID" in r and any(m in r for m in METRICS)]
    if not starts:
        return []
    header, body = rows[starts[-1]], rows[starts[-1] + 1:]
    units = {}
    if body and len(body[0]) == len(header) and _number(body[0][header.index("ID")]) is None:
        units = dict(zip(header, body[0]))  # the units row (absent with some versions)
        body = body[1:]
    out = []
    for row in body:
        if len(row) != len(header):
            break  # the program's own output after the report
        values = dict(zip(header, row))
        if _number(values.get("ID", "")) is None:
            break
        launch = {"kernel": values.get("Kernel Name", "")}
        for metric in METRICS:
            if metric in values:
                number = _number(values[metric])
                if number is not None:
                    launch[metric] = number * _scale(units.get(metric, ""))
        out.append(launch)
    return out


def combine(rows: list[dict]) -> dict[str, float]:
    """One call's counters from its launches: counts (`.sum`) add up, rates and percentages
    are weighed by each launch's duration, a launch's own settings come from the longest."""
    if not rows:
        return {}
    weight = [r.get(DURATION, 1.0) or 1.0 for r in rows]
    longest = rows[max(range(len(rows)), key=lambda i: weight[i])]
    out: dict[str, float] = {"launches": float(len(rows))}
    for metric in METRICS:
        have = [(r[metric], w) for r, w in zip(rows, weight) if metric in r]
        if not have:
            continue
        if metric.endswith(".sum"):
            out[metric] = sum(v for v, _ in have)
        elif metric.startswith("launch__"):
            if metric in longest:
                out[metric] = longest[metric]
        else:
            out[metric] = sum(v * w for v, w in have) / sum(w for _, w in have)
    return out


def parse(text: str) -> dict[str, float]:
    """The counters of the profiled call (`combine` of `parse_rows`): {} when none."""
    return combine(parse_rows(text))


_NCU_PROBLEM = re.compile(r"==(?:ERROR|WARNING)== (.*)")


def problem(text: str) -> str | None:
    """What ncu said went wrong (no permission for the counters, no kernel profiled)."""
    found = _NCU_PROBLEM.findall(str(text))
    errors = [f for f in found if "ERR_" in f or "rror" in f]
    chosen = errors or [f for f in found if "No kernels were profiled" in f]
    return chosen[0].strip() if chosen else None


# --- the numbers -----------------------------------------------------------------------------

def _itemsize(dtype: str) -> int:
    from grader.lab import cases
    return cases.DTYPES[dtype].itemsize


def minimum_bytes(ex: Exercise, shape: dict, dtype: str) -> tuple[float, float]:
    """(read, write): each input read once, each output written once. A memory-bound
    exercise's total is its manifest's bytes formula, split as its tensors split it."""
    def size(tensors):
        return float(sum(ex.numel(t, shape) * _itemsize(t.options.get("dtype", dtype))
                         for t in tensors))

    read, write = size(ex.inputs), size(ex.outputs)
    if ex.unit == "bytes":
        total = float(ex.work_amount(shape, _itemsize(dtype)))
        if read + write > 0:
            read, write = total * read / (read + write), total * write / (read + write)
    return read, write


@dataclass(frozen=True)
class Profile:
    """One profiled call, in the numbers the advice speaks of (None: not measured)."""

    read_bytes: float
    write_bytes: float
    min_read: float
    min_write: float
    dram_pct: float | None = None  # achieved DRAM bandwidth, % of peak
    sectors_per_request: float | None = None  # global loads
    load_use_pct: float | None = None  # of each sector loaded, % the threads asked for
    store_use_pct: float | None = None
    occupancy_pct: float | None = None  # achieved
    registers: int | None = None  # per thread
    shared_bytes: int | None = None  # per block, static + dynamic
    block_size: int | None = None
    limiter: str | None = None  # what bounds the blocks per SM
    tensor_pct: float | None = None
    launches: int = 1

    @property
    def bytes_ratio(self) -> float:
        return _ratio(self.read_bytes + self.write_bytes, self.min_read + self.min_write)

    @property
    def read_ratio(self) -> float:
        return _ratio(self.read_bytes, self.min_read)

    @property
    def write_ratio(self) -> float:
        return _ratio(self.write_bytes, self.min_write)

    @property
    def load_width(self) -> float | None:
        """Bytes each thread loads per instruction: the bytes a warp's request uses, over 32."""
        if self.sectors_per_request is None or self.load_use_pct is None:
            return None
        return self.sectors_per_request * SECTOR * self.load_use_pct / 100 / WARP

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "bytes_ratio": self.bytes_ratio,
                "read_ratio": self.read_ratio, "write_ratio": self.write_ratio,
                "load_width": self.load_width}


def _ratio(got: float, least: float) -> float:
    return got / least if least > 0 else math.inf if got > 0 else 1.0


def _used(pct: float | None) -> float | None:
    """A sector-use percentage, None where it measured nothing: 0 is what ncu reports for a
    call without plain global loads (stores), e.g. one that copies through cp.async, TMA or
    atomics, which these counters leave out; no instruction uses none of what it moves."""
    return pct if pct else None


def measure(ex: Exercise, shape: dict, dtype: str, metrics: dict[str, float]) -> Profile | None:
    """The Profile of one call from its counters; None without the DRAM byte counts."""
    if READ_BYTES not in metrics or WRITE_BYTES not in metrics:
        return None
    min_read, min_write = minimum_bytes(ex, shape, dtype)
    requests = metrics.get(LD_REQUESTS)
    limits = {word: metrics[m] for m, word in LIMITS.items() if m in metrics}

    def whole(metric):
        return int(metrics[metric]) if metric in metrics else None

    shared = [metrics[m] for m in (SHARED_STATIC, SHARED_DYNAMIC) if m in metrics]
    return Profile(
        read_bytes=metrics[READ_BYTES], write_bytes=metrics[WRITE_BYTES], min_read=min_read,
        min_write=min_write, dram_pct=metrics.get(DRAM_PCT),
        sectors_per_request=(metrics[LD_SECTORS] / requests
                             if requests and LD_SECTORS in metrics else None),
        load_use_pct=_used(metrics.get(LD_USE_PCT)), store_use_pct=_used(metrics.get(ST_USE_PCT)),
        occupancy_pct=metrics.get(OCCUPANCY_PCT), registers=whole(REGISTERS),
        shared_bytes=int(sum(shared)) if shared else None, block_size=whole(BLOCK_SIZE),
        limiter=min(limits, key=limits.get) if limits else None,
        tensor_pct=metrics.get(TENSOR_PCT), launches=int(metrics.get("launches", 1)))


# --- the advice ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    """`when(ex, dtype, mine, reference)` fires the rule; `say[impl]` is its line, formatted
    with `_words()`. The reference (None when it was not profiled) keeps a rule quiet where
    the best kernel pays the same (a matmul re-reads its tiles; a gather cannot coalesce)."""

    name: str
    when: object
    say: dict[str, str]


COALESCED_PCT = 50  # below: most of every sector fetched is thrown away
EXTRA = 1.25  # this many times the minimum bytes (or the reference's) is a flaw
LOW_OCCUPANCY_PCT = 25
BUSY_DRAM_PCT = 70  # a kernel streaming this close to peak is not helped by more warps
NARROW = 4  # bytes per thread per load below which a load instruction carries too little
LOW_TENSOR_PCT = 20
TF32_TENSOR_PCT = 5  # an fp32 FMA kernel shows a percent or so of stray tensor-pipe cycles
FLOPS_DRAM_PCT = 25  # a compute-bound kernel whose DRAM is busier than this pays for its bytes
OUTPUT_SHARE = 0.1  # an output below this share of the minimum bytes: its stores cost nothing


def _worse(mine, theirs, factor: float, higher_is_worse: bool = True) -> bool:
    """`mine` is off by `factor` from the reference's `theirs` (always, without one; never
    when both are nothing)."""
    if theirs is None:
        return True
    return mine > theirs * factor if higher_is_worse else mine * factor < theirs


def _bytes_cost(ex, p: Profile) -> bool:
    """Memory traffic costs this kernel time: always in a memory-bound exercise; in a
    compute-bound one (a matmul re-reads its tiles by design) only where DRAM is busy."""
    return ex.unit == "bytes" or p.dram_pct is None or p.dram_pct >= FLOPS_DRAM_PCT


SPREAD = 8  # sectors per load request: a warp's 32 loads landing in at least this many


def _strided(p: Profile, r: Profile | None) -> str | None:
    """"load" or "store", where most of each sector moved is thrown away (and the reference,
    where profiled, wastes much less): the worse of the two."""
    found = []
    if p.load_use_pct is not None and (p.sectors_per_request or 0) >= SPREAD:
        found.append((p.load_use_pct, "load", r and r.load_use_pct))
    if p.store_use_pct is not None and p.min_write >= OUTPUT_SHARE * (p.min_read + p.min_write):
        found.append((p.store_use_pct, "store", r and r.store_use_pct))
    bad = [(use, kind) for use, kind, ref in found
           if use < COALESCED_PCT and _worse(use, ref, 1.5, higher_is_worse=False)]
    return min(bad)[1] if bad else None


def _uncoalesced(ex, dtype, p: Profile, r: Profile | None) -> bool:
    """Sectors wasted where it costs: DRAM left idle, or more bytes than the minimum crossing
    it. A kernel keeping DRAM busy with the minimum bytes loses nothing to the waste (L1 and
    L2 absorb it: a Triton load of 3-byte pixels, one byte a lane, at 86% of DRAM's peak)."""
    return (_bytes_cost(ex, p) and (_starved(p) or p.bytes_ratio >= EXTRA)
            and _strided(p, r) is not None)


def _extra_reads(ex, dtype, p: Profile, r: Profile | None) -> bool:
    return (_bytes_cost(ex, p) and p.read_ratio >= EXTRA
            and _worse(p.read_bytes, r and r.read_bytes, EXTRA))


def _extra_writes(ex, dtype, p: Profile, r: Profile | None) -> bool:
    """Written more than the minimum, by a share of the whole traffic that costs time (a
    single sum is a few bytes of output: a scratch line more is no flaw)."""
    extra = p.write_bytes - p.min_write
    return (_bytes_cost(ex, p) and p.write_ratio >= EXTRA
            and extra >= (EXTRA - 1) * (p.min_read + p.min_write)
            and _worse(p.write_bytes, r and r.write_bytes, EXTRA))


def _tf32(ex, dtype, p: Profile, r: Profile | None) -> bool:
    return ex.unit == "flops" and dtype == "float32" and (p.tensor_pct or 0) > TF32_TENSOR_PCT


def _starved(p: Profile) -> bool:
    """The kernel leaves DRAM idle: what limits it is how much work is in flight."""
    return p.dram_pct is None or p.dram_pct < BUSY_DRAM_PCT


def _low_occupancy(ex, dtype, p: Profile, r: Profile | None) -> bool:
    """Few warps and DRAM left idle. Not in a compute-bound exercise: a register-tiled
    matmul keeps few warps by design (its tensor pipes speak for it)."""
    return (p.occupancy_pct is not None and p.occupancy_pct < LOW_OCCUPANCY_PCT
            and ex.unit == "bytes" and _starved(p)
            and _worse(p.occupancy_pct, r and r.occupancy_pct, 2, higher_is_worse=False))


def _narrow_loads(ex, dtype, p: Profile, r: Profile | None) -> bool:
    width = p.load_width
    return (ex.unit == "bytes" and width is not None and width < NARROW - 0.5 and _starved(p)
            and _worse(width, r and r.load_width, 2, higher_is_worse=False))


def _idle_tensor_pipes(ex, dtype, p: Profile, r: Profile | None) -> bool:
    return (ex.unit == "flops" and dtype != "float32"
            and (p.tensor_pct or 0) < LOW_TENSOR_PCT
            and _worse(p.tensor_pct or 0, r and r.tensor_pct, 2, higher_is_worse=False))


def _idle_dram(ex, dtype, p: Profile, r: Profile | None) -> bool:
    return (ex.unit == "bytes" and p.dram_pct is not None and _starved(p)
            and (r is None or r.dram_pct is None or p.dram_pct + 15 <= r.dram_pct))


def _always(ex, dtype, p, r) -> bool:
    return True


# Costliest first. In a compute-bound exercise: fp32 products on the tensor pipes (a
# precision flaw), then tensor pipes left idle; memory flaws count there only where DRAM is
# busy. In a memory-bound one: a strided access wastes up to 7/8 of every sector; re-reading
# costs what it re-reads; occupancy, load width and idle DRAM cost what latency they leave
# unhidden.
RULES = (
    Rule("tf32", _tf32, {
        "cuda": "the tensor pipes ran ({tensor:.0f}% busy) on float32 inputs: TF32 keeps 10 "
                "of 23 mantissa bits - do float32 products with FMA instructions",
        "triton": "fp32 `tl.dot` ran in TF32 (tensor pipes {tensor:.0f}% busy), which keeps "
                  "10 of 23 mantissa bits - pass input_precision=\"ieee\""}),
    Rule("idle_tensor_pipes", _idle_tensor_pipes, {
        "cuda": "tensor pipes busy {tensor:.0f}% of the time{ref_tensor}: do the products "
                "with wmma fragments fed from __shared__ tiles, not with scalar FMAs",
        "triton": "tensor pipes busy {tensor:.0f}% of the time{ref_tensor}: feed tl.dot "
                  "larger tiles (BLOCK_SIZE_K >= 32) of float16 and accumulate in float32"}),
    Rule("uncoalesced", _uncoalesced, {
        "cuda": "{pattern}: neighbouring threads touch distant addresses - make "
                "threadIdx.x walk the contiguous (stride-1) dimension, and stage a tile in "
                "__shared__ memory where reads and writes run along different dimensions",
        "triton": "{pattern}: neighbouring lanes touch distant addresses - lay the "
                  "block's fastest axis (the last of tl.arange's broadcast) along the "
                  "contiguous (stride-1) dimension of each tensor"}),
    Rule("extra_reads", _extra_reads, {
        "cuda": "read {read:.1f}x the minimum bytes{than_read}: {who} is read from DRAM more "
                "than once (a second pass or a second kernel) - read each element once into "
                "registers (or a __shared__ tile) and use it from there",
        "triton": "read {read:.1f}x the minimum bytes{than_read}: {who} is loaded from DRAM "
                  "more than once (a second pass or a second kernel) - tl.load each block "
                  "once and keep it in registers for every use"}),
    Rule("extra_writes", _extra_writes, {
        "cuda": "wrote {write:.1f}x the minimum bytes{than_write}: an output (or a scratch "
                "buffer) is written more than once - finish each value in registers and "
                "store it once",
        "triton": "wrote {write:.1f}x the minimum bytes{than_write}: an output (or a scratch "
                  "buffer) is stored more than once - finish each value in registers and "
                  "tl.store it once"}),
    Rule("low_occupancy", _low_occupancy, {
        "cuda": "occupancy {occ:.0f}%: {limit} - so too few warps per SM hide the memory "
                "latency",
        "triton": "occupancy {occ:.0f}%: {limit} - so too few warps per SM hide the memory "
                  "latency"}),
    Rule("narrow_loads", _narrow_loads, {
        "cuda": "{width:.0f}-byte loads: each thread loads {width:.0f} byte(s) per "
                "instruction - load 4 to 16 bytes at once (uchar4, uint2, uint4 / float4) and "
                "unpack them in registers",
        "triton": "{width:.0f}-byte loads: each lane loads {width:.0f} byte(s) per "
                  "instruction - give each program a contiguous block of at least 16 bytes "
                  "per lane (a larger BLOCK_SIZE, offsets built from tl.arange) so Triton "
                  "can widen the loads"}),
    Rule("idle_dram", _idle_dram, {
        "cuda": "moves the minimum bytes, but DRAM is busy only {dram:.0f}% of the "
                "time{ref_dram}: too few bytes in flight - more elements per thread, wider "
                "loads, or more blocks",
        "triton": "moves the minimum bytes, but DRAM is busy only {dram:.0f}% of the "
                  "time{ref_dram}: too few bytes in flight - a larger BLOCK_SIZE, or more "
                  "programs"}),
    Rule("good", _always, {
        "cuda": "{good}",
        "triton": "{good}"}),
)


def _limit(impl: str, p: Profile) -> str:
    """Why few warps fit, in the implementation's own terms."""
    if p.limiter == "registers" and p.registers:
        fix = ("fewer values live per thread, or __launch_bounds__" if impl == "cuda" else
               "a smaller block per program or fewer num_stages")
        return f"each thread uses {p.registers} registers ({fix})"
    if p.limiter == "shared memory" and p.shared_bytes:
        fix = "smaller tiles" if impl == "cuda" else "smaller tiles or fewer num_stages"
        return f"each block uses {p.shared_bytes / 1024:.0f} KiB of shared memory ({fix})"
    if p.limiter == "blocks" and p.block_size:
        fix = "128-256 threads per block" if impl == "cuda" else "num_warps=4 or more"
        return f"blocks of {p.block_size} threads fill few warp slots ({fix})"
    return ("too few blocks to fill every SM (launch more, smaller blocks)" if impl == "cuda"
            else "too few programs to fill every SM (a smaller BLOCK_SIZE, more programs)")


def _words(ex: Exercise, impl: str, p: Profile, r: Profile | None, dtype: str) -> dict:
    def than(theirs):
        return f" (the reference: {theirs:.1f}x)" if r is not None and theirs > 0 else ""

    inputs = [t.name for t in ex.inputs]
    within = abs(p.bytes_ratio - 1) * 100
    if ex.unit == "bytes":
        good = (f"within {within:.0f}% of the minimum bytes"
                + (f", DRAM busy {p.dram_pct:.0f}% of the time" if p.dram_pct is not None
                   else "") + ": the kernel moves only what it must")
    elif dtype == "float32":  # FMA products: the tensor pipes rightly stay idle
        good = (f"{p.bytes_ratio:.1f}x the minimum bytes"
                + (f" (the reference: {r.bytes_ratio:.1f}x)" if r is not None else "")
                + ", no TF32: the counters see no flaw")
    else:
        good = (f"tensor pipes busy {p.tensor_pct or 0:.0f}% of the time, "
                f"{p.bytes_ratio:.1f}x the minimum bytes" + (
                    f" (the reference: {r.tensor_pct:.0f}%, {r.bytes_ratio:.1f}x)"
                    if r is not None and r.tensor_pct is not None else ""))
    if _strided(p, r) == "store":
        pattern = f"stores use {p.store_use_pct:.0f}% of each 32-byte sector written"
    else:
        pattern = (f"{p.sectors_per_request or 0:.1f} sectors per load request, "
                   f"{p.load_use_pct or 0:.0f}% of each 32-byte sector used")
    return {
        "pattern": pattern,
        "read": p.read_ratio, "write": p.write_ratio,
        "than_read": than(r.read_ratio if r else 0),
        "than_write": than(r.write_ratio if r else 0),
        "who": f"`{inputs[0]}`" if len(inputs) == 1 else "an input",
        "tensor": p.tensor_pct or 0.0, "occ": p.occupancy_pct or 0.0, "limit": _limit(impl, p),
        "width": p.load_width or 0.0, "dram": p.dram_pct or 0.0,
        "ref_tensor": (f" (the reference: {r.tensor_pct:.0f}%)"
                       if r is not None and r.tensor_pct is not None else ""),
        "ref_dram": (f" (the reference: {r.dram_pct:.0f}%)"
                     if r is not None and r.dram_pct is not None else ""),
        "good": good,
    }


def fired(ex: Exercise, dtype: str, p: Profile, r: Profile | None = None) -> Rule:
    """The first rule of `RULES` that fires (`good` always does)."""
    return next(rule for rule in RULES if rule.when(ex, dtype, p, r))


def advise(ex: Exercise, impl: str, profile: Profile, reference_profile: Profile | None = None,
           dtype: str | None = None) -> str:
    """ONE line of advice for the implementation `impl` from its profile (and the reference's,
    where it was profiled)."""
    dtype = dtype or ex.perf_dtypes[0]
    rule = fired(ex, dtype, profile, reference_profile)
    return rule.say[impl].format(**_words(ex, impl, profile, reference_profile, dtype))


# --- the verdict's part ----------------------------------------------------------------------

# Traffic several times the L2 (bench's flush size: 4x the H200's 60 MB): a second pass over
# the data misses the L2 and shows in the DRAM counters, and the writes reach DRAM.
PROFILE_BYTES = 256 << 20


def case(ex: Exercise) -> tuple[dict, str]:
    """The profiled case, in the first perf dtype: the smallest sweep or perf shape whose
    minimum traffic is at least PROFILE_BYTES (each byte more is time to make, ship and
    profile), else the first perf shape (a matmul's operands fit the L2 anyway)."""
    dtype = ex.perf_dtypes[0]
    big = sorted((sum(minimum_bytes(ex, s, dtype)), i, s)
                 for i, s in enumerate(ex.shapes["sweep"] + ex.shapes["perf"])
                 if sum(minimum_bytes(ex, s, dtype)) >= PROFILE_BYTES)
    return dict(big[0][2] if big and ex.unit == "bytes" else ex.shapes["perf"][0]), dtype


def decide(ex: Exercise, impl: str, mine: dict, reference: dict | None = None) -> dict:
    """What the perf verdict carries, from what `run()` returned for the student's call and
    the reference's: {"profile": {...}, "reference": {...} | None, "advice": "..."}, or
    {"profile": None, "advice": None, "reason": why not}."""
    shape, dtype = case(ex)
    if mine.get("reason"):
        return {"profile": None, "advice": None, "reason": mine["reason"]}
    p = measure(ex, shape, dtype, mine.get("metrics") or {})
    if p is None:
        return {"profile": None, "advice": None,
                "reason": f"{NCU} reported no DRAM counters for the call"}
    r = measure(ex, shape, dtype, (reference or {}).get("metrics") or {})
    return {"profile": p.to_dict(), "reference": r.to_dict() if r else None,
            "advice": advise(ex, impl, p, r, dtype), "rule": fired(ex, dtype, p, r).name,
            "shape": shape, "dtype": dtype}
