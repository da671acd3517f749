"""The profile judge: ncu's report read robustly, one line of advice per flaw (each rule with
its own flawed kernel, as synthetic counters: the CPU stand-in for the GPU controls below),
and, on a GPU, the controls of tests/corpus/ profiled for real."""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_controls import CORPUS, notebook

from grader.judge import advice
from grader.lab import manifest, submission
from grader.pipeline import grading, profiling

COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
           "Block Size", "Grid Size", "Device", "CC"]
UNITS = {advice.READ_BYTES: "byte", advice.WRITE_BYTES: "byte", advice.DRAM_PCT: "%",
         advice.LD_SECTORS: "sector", advice.LD_REQUESTS: "request", advice.LD_USE_PCT: "%",
         advice.ST_USE_PCT: "%", advice.OCCUPANCY_PCT: "%", advice.REGISTERS: "register/thread",
         advice.SHARED_STATIC: "byte/block", advice.SHARED_DYNAMIC: "byte/block",
         advice.BLOCK_SIZE: "", advice.TENSOR_PCT: "%", advice.DURATION: "nsecond",
         **{m: "block" for m in advice.LIMITS}}


def report(*launches: dict, units: dict | None = None, prof: bool = True) -> str:
    """ncu's `--csv --page raw` text, as its documentation shows it: ==PROF== lines, a header,
    a units row, a row per launch with quoted values and thousands separators."""
    metrics = list(advice.METRICS)

    def row(values):
        return ",".join(f'"{v}"' for v in values)

    lines = ['==PROF== Connected to process 4242 (/usr/bin/python3.11)'] if prof else []
    lines += [f'==PROF== Profiling "{k["kernel"]}" - {i}: 0%....50%....100% - 3 passes'
              for i, k in enumerate(launches)] if prof else []
    lines += ['==PROF== Disconnected from process 4242'] if prof else []
    lines.append(row(COLUMNS + metrics))
    if units is not False:
        lines.append(row([""] * len(COLUMNS) + [(units or UNITS).get(m, "") for m in metrics]))
    for i, k in enumerate(launches):
        lines.append(row([i, 4242, "python3.11", "127.0.0.1", k["kernel"], 1, 7, "(256, 1, 1)",
                          "(1024, 1, 1)", 0, "9.0"] + [k.get(m, "n/a") for m in metrics]))
    return "\n".join(lines) + "\n"


def launch(kernel="vector_add_kernel", **values) -> dict:
    return {"kernel": kernel, **values}


def test_parse_reads_a_report_among_prof_lines_units_and_separators():
    text = report(launch(**{advice.READ_BYTES: "2,147,483,648", advice.WRITE_BYTES: "1,073,741,824",
                            advice.DRAM_PCT: "91.52", advice.LD_SECTORS: "67,108,864",
                            advice.LD_REQUESTS: "4,194,304", advice.REGISTERS: "16",
                            advice.DURATION: "700,000"}))
    got = advice.parse(text)
    assert got[advice.READ_BYTES] == 2147483648 and got[advice.WRITE_BYTES] == 1073741824
    assert got[advice.DRAM_PCT] == pytest.approx(91.52) and got[advice.REGISTERS] == 16
    assert got["launches"] == 1 and advice.TENSOR_PCT not in got  # "n/a" is no number


def test_parse_scales_prefixed_units_and_reads_a_report_without_a_units_row():
    text = report(launch(**{advice.READ_BYTES: "2.15", advice.WRITE_BYTES: "512"}),
                  units={advice.READ_BYTES: "Gbyte", advice.WRITE_BYTES: "Mbyte"})
    got = advice.parse(text)
    assert got[advice.READ_BYTES] == pytest.approx(2.15e9) and got[advice.WRITE_BYTES] == 512e6
    bare = advice.parse(report(launch(**{advice.READ_BYTES: "1,000", advice.WRITE_BYTES: "10"}),
                           units=False, prof=False))
    assert bare[advice.READ_BYTES] == 1000 and bare[advice.WRITE_BYTES] == 10


def test_parse_combines_the_launches_of_one_call():
    """A two-kernel call: bytes add up, percentages are weighed by time, a launch's settings
    come from the longest launch."""
    text = report(launch("copy_kernel", **{advice.READ_BYTES: 100, advice.WRITE_BYTES: 100,
                                           advice.DRAM_PCT: 90, advice.REGISTERS: 10,
                                           advice.DURATION: 1000}),
                  launch("vector_add_kernel", **{advice.READ_BYTES: 200, advice.WRITE_BYTES: 100,
                                                 advice.DRAM_PCT: 60, advice.REGISTERS: 20,
                                                 advice.DURATION: 3000}))
    got = advice.parse(text)
    assert got[advice.READ_BYTES] == 300 and got[advice.WRITE_BYTES] == 200 and got["launches"] == 2
    assert got[advice.DRAM_PCT] == pytest.approx(67.5) and got[advice.REGISTERS] == 20


def test_parse_reads_the_last_report_not_one_the_program_printed():
    forged = report(launch(**{advice.READ_BYTES: 1, advice.WRITE_BYTES: 1}), prof=False)
    real = report(launch(**{advice.READ_BYTES: 5000, advice.WRITE_BYTES: 7000}))
    got = advice.parse("student output\n" + forged + "more output, with, commas\n" + real)
    assert got[advice.READ_BYTES] == 5000 and got[advice.WRITE_BYTES] == 7000


@pytest.mark.parametrize("text", [
    "", None, 42, "==PROF== Connected to process 1\n==WARNING== No kernels were profiled.\n",
    '"ID","Kernel Name"\n"0","k"\n', "\x00\x01 garbage \"unclosed\n,,,\n", '"ID",' * 5000,
    report(launch(**{advice.READ_BYTES: 1}))[:-40],  # cut off mid-row
])
def test_unreadable_text_gives_nothing_and_never_raises(text):
    assert advice.parse(text) == {}
    assert advice.parse_rows(text) == []


def test_problem_names_what_ncu_said():
    text = ("==PROF== Connected to process 7\n==ERROR== ERR_NVGPUCTRPERM - The user does not "
            "have permission to access NVIDIA GPU Performance Counters\n")
    assert "ERR_NVGPUCTRPERM" in advice.problem(text)
    assert "No kernels" in advice.problem("==WARNING== No kernels were profiled.\n")
    assert advice.problem("all fine\n") is None


def test_flags_profile_one_range_with_the_metric_set():
    argv = advice.flags("/opt/ncu", "vector_add_kernel")
    assert argv[0] == "/opt/ncu"
    for pair in (["--profile-from-start", "off"], ["--target-processes", "all"],
                 ["--launch-count", str(advice.MAX_LAUNCHES)], ["--page", "raw"],
                 ["--print-units", "base"], ["--kernel-name", "regex:vector_add_kernel"],
                 ["--clock-control", "none"]):  # the GPU's settings are not ours to change
        i = argv.index(pair[0])
        assert argv[i: i + 2] == pair
    assert "--csv" in argv and argv[argv.index("--metrics") + 1].split(",") == advice.METRICS
    assert "--kernel-name" not in advice.flags("ncu")


def test_the_profiled_case_is_several_times_the_l2_and_no_larger_than_needed():
    for lab in manifest.registry().values():
        for ex in lab.exercises:
            shape, dtype = advice.case(ex)
            assert dtype == ex.perf_dtypes[0]
            if ex.unit == "bytes":
                assert sum(advice.minimum_bytes(ex, shape, dtype)) >= advice.PROFILE_BYTES, ex.key


def test_minimum_bytes_split_the_manifest_formula_by_tensor():
    ex = manifest.exercise("lab01")
    read, write = advice.minimum_bytes(ex, {"n": 1000}, "float32")
    assert (read, write) == (8000, 4000)


# --- one rule, one flawed kernel ------------------------------------------------------------

def profile_of(key: str, read: float = 1.0, write: float = 1.0, **counters) -> advice.Profile:
    """A Profile of exercise `key` on its profiled case: `read`/`write` times the minimum
    bytes, the other counters as given (by metric name)."""
    ex = manifest.exercise(key)
    shape, dtype = advice.case(ex)
    least_read, least_write = advice.minimum_bytes(ex, shape, dtype)
    metrics = {advice.READ_BYTES: read * least_read, advice.WRITE_BYTES: write * least_write,
               advice.DRAM_PCT: 90.0, advice.LD_SECTORS: 4e6, advice.LD_REQUESTS: 1e6,
               advice.LD_USE_PCT: 100.0, advice.ST_USE_PCT: 100.0, advice.OCCUPANCY_PCT: 80.0,
               advice.REGISTERS: 16, advice.BLOCK_SIZE: 256, **counters}
    return advice.measure(ex, shape, dtype, metrics)


FLAWED = {  # rule: (exercise, implementation, counters, words its line must hold)
    "uncoalesced": ("lab02_matrix_add/matrix_add", "cuda",
                    dict(read=1.1, **{advice.LD_SECTORS: 32e6, advice.LD_USE_PCT: 12.5,
                                      advice.DRAM_PCT: 40.0}),
                    ["32.0 sectors per load request", "12% of each 32-byte sector",
                     "threadIdx.x walk the contiguous"]),
    "uncoalesced_store": ("lab09_transpose", "cuda", {advice.ST_USE_PCT: 12.5,
                                                      advice.DRAM_PCT: 35.0},
                          ["stores use 12% of each 32-byte sector", "__shared__"]),
    "uncoalesced_triton": ("lab02_matrix_add/matrix_add", "triton",
                           {advice.LD_SECTORS: 32e6, advice.LD_USE_PCT: 12.5,
                            advice.DRAM_PCT: 40.0},
                           ["neighbouring lanes", "stride-1"]),
    "extra_reads": ("lab01", "triton", dict(read=1.5, write=2.0),
                    ["read 1.5x the minimum bytes", "an input is loaded from DRAM more than "
                     "once", "tl.load each block once"]),
    "extra_reads_named": ("lab03_activations/relu", "cuda", dict(read=2.0, write=2.0),
                          ["read 2.0x the minimum bytes", "`x` is read from DRAM more than "
                           "once"]),
    "extra_writes": ("lab03_activations/relu", "triton", dict(write=2.0),
                     ["wrote 2.0x the minimum bytes", "tl.store it once"]),
    "tf32": ("lab10_matmul/matmul_fp32", "triton", {advice.TENSOR_PCT: 60.0},
             ["fp32 `tl.dot` ran in TF32", 'input_precision="ieee"']),
    "low_occupancy": ("lab07_softmax", "cuda",
                      {advice.OCCUPANCY_PCT: 12.0, advice.DRAM_PCT: 30.0, advice.REGISTERS: 255,
                       "launch__occupancy_limit_registers": 1,
                       "launch__occupancy_limit_shared_mem": 8,
                       "launch__occupancy_limit_warps": 8, "launch__occupancy_limit_blocks": 32},
                      ["occupancy 12%", "each thread uses 255 registers", "__launch_bounds__"]),
    "low_occupancy_shared": ("lab07_softmax", "triton",
                             {advice.OCCUPANCY_PCT: 12.0, advice.DRAM_PCT: 30.0,
                              advice.SHARED_STATIC: 0, advice.SHARED_DYNAMIC: 196608,
                              "launch__occupancy_limit_registers": 8,
                              "launch__occupancy_limit_shared_mem": 1},
                             ["occupancy 12%", "192 KiB of shared memory", "num_stages"]),
    "narrow_loads": ("lab05_image_ops/invert", "cuda",
                     {advice.LD_SECTORS: 1e6, advice.LD_REQUESTS: 1e6, advice.DRAM_PCT: 35.0},
                     ["1-byte loads", "uchar4"]),
    "idle_tensor_pipes": ("lab10_matmul/matmul_fp16", "cuda", {advice.TENSOR_PCT: 0.0},
                          ["tensor pipes busy 0%", "wmma"]),
    "idle_dram": ("lab01", "triton", {advice.DRAM_PCT: 35.0},
                  ["DRAM is busy only 35%", "BLOCK_SIZE"]),
    "good": ("lab01", "cuda", dict(read=1.02, write=1.0, **{advice.DRAM_PCT: 92.0}),
             ["within 1% of the minimum bytes", "DRAM busy 92%"]),
}


@pytest.mark.parametrize("case", FLAWED, ids=list(FLAWED))
def test_each_rule_fires_on_its_own_flaw(case):
    key, impl, counters, words = FLAWED[case]
    counters = dict(counters)
    p = profile_of(key, counters.pop("read", 1.0), counters.pop("write", 1.0), **counters)
    ex = manifest.exercise(key)
    assert advice.fired(ex, ex.perf_dtypes[0], p).name == case.split("_named")[0].split(
        "_store")[0].split("_triton")[0].split("_shared")[0]
    line = advice.advise(ex, impl, p)
    assert "\n" not in line
    for w in words:
        assert w in line, f"{w!r} not in {line!r}"


def test_every_rule_has_a_flawed_kernel_and_a_line_in_both_languages():
    names = {r.name for r in advice.RULES}
    assert names <= {k.split("_named")[0].split("_store")[0].split("_triton")[0]
                     .split("_shared")[0] for k in FLAWED}
    assert all(set(r.say) == {"triton", "cuda"} for r in advice.RULES)
    assert advice.RULES[-1].name == "good"


def test_a_flaw_the_reference_shares_is_no_flaw():
    """A matmul re-reads its tiles, the reference too: only reading much more than it fires."""
    ex = manifest.exercise("lab10_matmul/matmul_fp16")
    busy = {advice.TENSOR_PCT: 55.0}
    mine, ref = profile_of(ex.key, 3.0, 1.0, **busy), profile_of(ex.key, 2.8, 1.0, **busy)
    assert advice.fired(ex, "float16", mine, ref).name == "good"
    assert advice.fired(ex, "float16", profile_of(ex.key, 9.0, 1.0, **busy), ref).name == \
        "extra_reads"
    assert "(the reference: 2.8x)" in advice.advise(ex, "triton", profile_of(ex.key, 9.0, **busy),
                                                ref)


def test_the_costliest_flaw_speaks_first():
    """Strided and re-read: the stride is named (it is what inflates the reads)."""
    p = profile_of("lab02_matrix_add/matrix_add", 3.0, 1.0,
                   **{advice.LD_SECTORS: 32e6, advice.LD_USE_PCT: 12.5, advice.OCCUPANCY_PCT: 10.0,
                      advice.DRAM_PCT: 20.0})
    ex = manifest.exercise("lab02_matrix_add/matrix_add")
    assert advice.fired(ex, "float32", p).name == "uncoalesced"


# Counters as measured on the H200 (benchmarks/profile_feedback.py, docs/perf.md): the kernels
# a rule must NOT blame, and what they must be told instead.
MEASURED = {  # (exercise, dtype, read, write, counters, reference counters or None, rule)
    # tl.dot copies through cp.async: plain-load counters see 16 sectors a request, 0% used
    "matmul_fp32_triton_solution": (
        "lab10_matmul/matmul_fp32", "float32", 15.2, 0.97,
        {advice.DRAM_PCT: 10.0, advice.LD_SECTORS: 16e6, advice.LD_USE_PCT: 0.0,
         advice.OCCUPANCY_PCT: 30.0,
         advice.TENSOR_PCT: 0.0},
        {advice.DRAM_PCT: 2.9, advice.LD_SECTORS: 16e6, advice.LD_USE_PCT: 0.0,
         advice.TENSOR_PCT: 0.0},
        "good"),
    "matmul_fp32_cuda_solution": (  # register-tiled: few warps, C stored 8 bytes a lane
        "lab10_matmul/matmul_fp32", "float32", 2.56, 0.83,
        {advice.DRAM_PCT: 1.6, advice.ST_USE_PCT: 25.0, advice.OCCUPANCY_PCT: 24.4,
         advice.TENSOR_PCT: 0.85},
        None, "good"),
    "matmul_fp16_triton_solution": (
        "lab10_matmul/matmul_fp16", "float16", 2.16, 0.82,
        {advice.DRAM_PCT: 13.0, advice.LD_SECTORS: 16e6, advice.LD_USE_PCT: 0.0,
         advice.OCCUPANCY_PCT: 12.5,
         advice.TENSOR_PCT: 73.3}, None, "good"),
    "wmma_fragments_loaded_from_global": (
        "lab10_matmul/matmul_fp16", "float16", 4.35, 0.98,
        {advice.DRAM_PCT: 1.0, advice.LD_SECTORS: 8e6, advice.LD_USE_PCT: 50.0,
         advice.TENSOR_PCT: 4.4},
        {advice.DRAM_PCT: 8.0, advice.TENSOR_PCT: 55.0}, "idle_tensor_pipes"),
    "triton_tf32": (  # its loads look as strided as the solution's: the precision speaks first
        "lab10_matmul/matmul_fp32", "float32", 10.0, 1.0,
        {advice.DRAM_PCT: 11.5, advice.LD_SECTORS: 16e6, advice.LD_USE_PCT: 0.0,
         advice.TENSOR_PCT: 40.0},
        {advice.DRAM_PCT: 2.9, advice.LD_SECTORS: 16e6, advice.LD_USE_PCT: 0.0,
         advice.TENSOR_PCT: 0.0},
        "tf32"),
    "gray_from_3_byte_pixels_at_the_roof": (  # no reference (a student's own GPU)
        "lab05_image_ops/rgb_to_gray", "uint8", 1.0, 0.83,
        {advice.DRAM_PCT: 86.0, advice.LD_SECTORS: 32e6, advice.LD_USE_PCT: 12.5,
         advice.OCCUPANCY_PCT: 67.0},
        None, "good"),
    "reduction_atomic_per_tile": (  # 4 bytes of output; 2.4 MB of atomics' lines written
        "lab06_reduction", "float32", 1.0, 602752.0,
        {advice.DRAM_PCT: 5.8, advice.ST_USE_PCT: 0.03, advice.OCCUPANCY_PCT: 56.6},
        {advice.DRAM_PCT: 86.0, advice.ST_USE_PCT: 12.5}, "idle_dram"),
}


@pytest.mark.parametrize("case", MEASURED, ids=list(MEASURED))
def test_measured_kernels_get_the_rule_their_flaw_deserves(case):
    key, dtype, read, write, counters, ref_counters, rule = MEASURED[case]
    ex = manifest.exercise(key)
    mine = profile_of(key, read, write, **counters)
    ref = profile_of(key, **ref_counters) if ref_counters is not None else None
    assert advice.fired(ex, dtype, mine, ref).name == rule
    line = advice.advise(ex, "triton", mine, ref, dtype)
    if rule == "good" and dtype == "float32":
        assert "no TF32" in line and "tensor pipes" not in line, line


def test_sector_use_of_zero_is_not_measured():
    """ncu's 0% is a call without plain loads, not a kernel that uses none of its sectors."""
    p = profile_of("lab02_matrix_add/matrix_add", **{advice.LD_SECTORS: 32e6,
                                                     advice.LD_USE_PCT: 0.0,
                                                     advice.ST_USE_PCT: 0.0})
    assert p.load_use_pct is None and p.store_use_pct is None and p.load_width is None


def test_two_nothings_are_not_worse_than_each_other():
    assert not advice._worse(0.0, 0.0, 1.5, higher_is_worse=False)
    assert not advice._worse(0.0, 0.0, 1.25)
    assert advice._worse(0.0, 10.0, 1.5, higher_is_worse=False)


def test_occupancy_is_no_flaw_for_a_kernel_that_keeps_dram_busy():
    p = profile_of("lab07_softmax", **{advice.OCCUPANCY_PCT: 12.0, advice.DRAM_PCT: 88.0})
    assert advice.fired(manifest.exercise("lab07_softmax"), "float32", p).name == "good"


def test_decide_carries_the_numbers_and_one_line():
    ex = manifest.exercise("lab01")
    shape, dtype = advice.case(ex)
    read, write = advice.minimum_bytes(ex, shape, dtype)
    mine = {"metrics": advice.parse(report(launch(**{advice.READ_BYTES: 1.5 * read,
                                                 advice.WRITE_BYTES: write, advice.DRAM_PCT: 80})))}
    ref = {"metrics": {advice.READ_BYTES: read, advice.WRITE_BYTES: write, advice.DRAM_PCT: 93.0}}
    got = advice.decide(ex, "triton", mine, ref)
    assert got["rule"] == "extra_reads" and got["advice"].startswith("read 1.5x")
    assert got["profile"]["read_ratio"] == pytest.approx(1.5)
    assert got["reference"]["bytes_ratio"] == pytest.approx(1.0)
    assert got["shape"] == shape and got["dtype"] == dtype


def test_decide_without_a_profile_says_why_and_gives_no_number():
    ex = manifest.exercise("lab01")
    got = advice.decide(ex, "cuda", {"reason": advice.SKIPPED_NO_NCU})
    assert got == {"profile": None, "advice": None, "reason": "skipped: ncu not found"}
    assert advice.decide(ex, "cuda", {"metrics": {}})["profile"] is None


def test_run_without_ncu_is_skipped(monkeypatch):
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    ex = manifest.exercise("lab01")
    assert profiling.run(ex, "triton", {}) == {"reason": "skipped: ncu not found"}
    assert profiling.run(ex, "cuda", {}, reference=True) == {"reason": "skipped: ncu not found"}


# --- on a GPU: the real thing ---------------------------------------------------------------

def _sources(path: Path, impl: str, exercise: str | None = None):
    lab = manifest.get(path.parent.name)
    nb = submission.read_notebook(path)
    parts = grading.plan(lab, nb, str(path), "gpu", impls=[impl],
                         exercises=[exercise] if exercise else None)
    ex, _, sources = parts[0]
    return ex, sources


# Which corpus control triggers which rule (the GPU negative controls): one or more per rule.
CONTROLS = [
    ("lab01_vector_add/triton_two_pass_slow.py", "triton", None, "extra_reads"),
    ("lab03_activations/triton_relu_two_pass_slow.py", "triton", "relu", "extra_reads"),
    ("lab10_matmul/cuda_naive_slow.py", "cuda", "matmul_fp32", "extra_reads"),
    ("lab02_matrix_add/cuda_uncoalesced_slow.py", "cuda", "matrix_add", "uncoalesced"),
    ("lab09_transpose/cuda_naive_slow.py", "cuda", None, "uncoalesced"),
    ("lab05_image_ops/cuda_byte_per_thread_slow.py", "cuda", "invert", "narrow_loads"),
    ("lab12_dequant/cuda_byte_per_thread_slow.py", "cuda", "dequant_int4", "narrow_loads"),
    ("lab10_matmul/triton_tf32.py", "triton", "matmul_fp32", "tf32"),
    ("lab10_matmul/cuda_wmma_global_slow.py", "cuda", "matmul_fp16", "idle_tensor_pipes"),
    ("lab06_reduction/triton_atomic_per_tile_slow.py", "triton", None, "idle_dram"),
    ("lab01_vector_add/cuda_oversized_shared_tile_slow.py", "cuda", None, "low_occupancy"),
    ("lab12_dequant/triton_clears_output_first_slow.py", "triton", "dequant_int8",
     "extra_writes"),
]


def test_every_rule_has_a_control_in_the_corpus():
    """Each rule has its GPU negative control, a submission that must fail."""
    rules = {r.name for r in advice.RULES} - {"good"}
    assert rules == {c[3] for c in CONTROLS}
    for control, *_ in CONTROLS:
        head = (CORPUS / control).read_text()
        assert "# status: fail" in head, control

@pytest.mark.gpu
@pytest.mark.parametrize("impl", ["triton", "cuda"])
def test_the_solution_is_told_it_moves_the_minimum(impl):
    lab = manifest.get("lab01")
    ex, sources = _sources(lab.source, impl)
    mine, ref = profiling.run(ex, impl, sources), profiling.run(ex, impl, {}, reference=True)
    assert set(advice.METRICS) <= set(mine.get("metrics", {})), mine
    got = advice.decide(ex, impl, mine, ref)
    assert got["rule"] == "good", got
    assert got["advice"].startswith("within "), got
    assert mine["seconds"] < 30, mine  # the lead's budget: profiling adds <= 5 s on top


@pytest.mark.gpu
@pytest.mark.parametrize("control,impl,exercise,rule", CONTROLS,
                         ids=[c[0][:5] + "-" + c[0].split("/")[1][:-3] for c in CONTROLS])
def test_a_control_gets_its_rule(control, impl, exercise, rule):
    ex, sources = _sources(notebook(CORPUS / control), impl, exercise)
    mine, ref = profiling.run(ex, impl, sources), profiling.run(ex, impl, {}, reference=True)
    got = advice.decide(ex, impl, mine, ref)
    assert got["rule"] == rule, got
