"""The table `benchmarks/tune_references.py` writes (docs/perf-table.md is one): its header names
the GPU, the date, the command and the copy roof; `--from-json` renders it from a run's JSON
without a GPU, and an older JSON without a date or command is refused unless they are given.
No GPU: the results are canned."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("tune_references",
                                               ROOT / "benchmarks" / "tune_references.py")
tune = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tune)


def row(**changes) -> dict:
    r = {"exercise": "lab01_vector_add", "dtype": "float32", "shape": "n=268435456, float32",
         "impl": "triton", "torch_gbps": 3066.0, "reference_gbps": 3083.0, "solution_gbps": 3068.0,
         "unit": "GB/s", "torch_name": "torch", "x_torch": 1.0055, "roof": 1.0043,
         "solution_x_reference": 0.995, "reference_correct": True, "variants": {},
         "target_met": True}
    return {**r, **changes}


def results(**changes) -> dict:
    r = {"gpu": "NVIDIA H100 80GB HBM3", "roof_gbps": 3069.7, "date": "2026-12-06",
         "command": "python benchmarks/tune_references.py --no-sweep",
         "labs": {"lab01_vector_add": {"tuned": {}, "rows": [
             row(), row(impl="cuda", target_met=False, solution_x_reference=0.85)]}}}
    return {**r, **changes}


def test_the_header_names_gpu_date_command_and_roof():
    text = tune.markdown(results())
    header = text.split("| exercise |")[0]
    assert text.startswith("# ") and "NVIDIA H100 80GB HBM3" in text.splitlines()[0]
    assert "2026-12-06" in text.splitlines()[0]
    assert "`python benchmarks/tune_references.py --no-sweep`" in header
    assert "copy roof: 3070 GB/s" in header
    assert "--from-json" in header  # how to regenerate it
    assert "2 rows; 1 reference row(s) below the lab's target, 1 solution row(s) under 0.9x" \
        in header


def test_the_rows_follow_the_header():
    lines = tune.markdown(results()).splitlines()
    rows = [line for line in lines if line.startswith("| lab01")]
    assert rows == [
        "| lab01_vector_add | float32 | triton | n=268435456, float32 | 3066 | 3083 | 1.01 | "
        "100.4 | met | 3068 | 0.99 |",
        "| lab01_vector_add | float32 | cuda | n=268435456, float32 | 3066 | 3083 | 1.01 | "
        "100.4 | MISSED | 3068 | 0.85 |"]


@pytest.mark.parametrize("missing", ["date", "command", "gpu", "roof_gbps"],
                         ids=["no_date", "no_command", "no_gpu_name", "no_roof"])  # "gpu": a marker
def test_a_header_without_its_facts_is_refused(missing):
    r = results()
    del r[missing]
    with pytest.raises(ValueError, match=missing):
        tune.markdown(r)


def test_the_recorded_command_leaves_out_where_the_results_go():
    argv = ["lab03", "--no-sweep", "--json", "out/tune.json", "--md=out/tune.md"]
    assert tune.command_line(argv) == "python benchmarks/tune_references.py lab03 --no-sweep"


def test_from_json_renders_without_a_gpu(tmp_path, monkeypatch, capsys):
    older = results()
    del older["date"], older["command"]  # a JSON written before the run recorded them
    src = tmp_path / "tune.json"
    src.write_text(json.dumps(older))
    out = tmp_path / "table.md"
    monkeypatch.setattr(tune.torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(sys, "argv", ["tune_references.py", "--from-json", str(src), "--md",
                                      str(out), "--date", "2026-12-06", "--command",
                                      "python benchmarks/tune_references.py --no-sweep"])
    tune.main()
    assert out.read_text() == tune.markdown(results())

    monkeypatch.setattr(sys, "argv", ["tune_references.py", "--from-json", str(src)])
    with pytest.raises(SystemExit, match="lack date, command"):
        tune.main()


def undated_sections(text: str) -> list[str]:
    """The `## ` sections of a perf document that lack a date, a command or the machine."""
    import re

    bad = []
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title = section.splitlines()[0]
        facts = (re.search(r"20\d\d-\d\d-\d\d", section),
                 re.search(r"`([A-Z_]+=\S* )*(python|bash)\s", section),
                 re.search(r"H100|H200|machine", section))
        if not all(facts):
            bad.append(title)
    return bad


def test_perf_doc_is_a_short_reference_with_its_facts():
    text = (ROOT / "docs" / "perf.md").read_text()
    assert len(text.splitlines()) <= 300, "docs/perf.md is a reference of at most 300 lines"
    assert not undated_sections(text)


def test_a_section_without_its_date_is_named():
    doc = ("## Timed\n(H100, 2026-12-06, `bash scripts/gpu-check.sh tune`): 1.00x\n"
           "## Untimed\nThe reference is 1.00x torch.\n")
    assert undated_sections(doc) == ["Untimed"]


def test_only_narrows_a_sweep_to_named_constants_and_candidates():
    """`--only MODULE.NAME=V1,V2` (the sweep's narrowing, one design question per GPU call):
    literals parsed, bare words kept as strings; a module not named sweeps nothing; a name the
    module never sets, or a malformed argument, is refused."""
    only = tune.parse_only(["linear_gelu_cuda.TILE=128x256_2x4, 128x128_2x2",
                            "flash_decode_cuda.STAGED=False,True", "linear_gelu_cuda.BK=32,64"])
    assert only == {"linear_gelu_cuda": {"TILE": ("128x256_2x4", "128x128_2x2"), "BK": (32, 64)},
                    "flash_decode_cuda": {"STAGED": (False, True)}}
    g = {"__file__": "/x/reference/lab15_fused_linear/linear_gelu_cuda.py", "TILE": "64x64_2x2",
         "BK": 64, "TUNE": {"TILE": ("64x64_2x2",), "STAGES": (3, 4)}}
    assert tune.sweep_plan(g, None) == g["TUNE"]
    assert tune.sweep_plan(g, only) == {"TILE": ("128x256_2x4", "128x128_2x2"), "BK": (32, 64)}
    assert tune.sweep_plan({**g, "__file__": "/x/mlp_cuda.py"}, only) == {}
    with pytest.raises(ValueError, match="no constant GROUP_M"):
        tune.sweep_plan(g, tune.parse_only(["linear_gelu_cuda.GROUP_M=8"]))
    for bad in ("linear_gelu_cuda=64", "BK=64", "linear_gelu_cuda.BK"):
        with pytest.raises(ValueError, match="MODULE.NAME=V1,V2"):
            tune.parse_only([bad])


def test_only_sweeps_constants_jointly_when_joined_by_a_plus():
    """`--only MODULE.A+B=a1/b1,a2/b2`: each candidate sets both constants (a plan that only
    works as a pair, e.g. fewer warps AND more blocks an SM); a candidate of the wrong width
    or an unknown name among them is refused; the sweep leaves the winning pair set."""
    only = tune.parse_only(["flash_decode_cuda.WMMA_WARPS+WMMA_PROGRAMS_PER_SM=8/1, 4/2"])
    assert only == {"flash_decode_cuda": {"WMMA_WARPS+WMMA_PROGRAMS_PER_SM": ((8, 1), (4, 2))}}
    g = {"__file__": "/x/flash_decode_cuda.py", "WMMA_WARPS": 8, "WMMA_PROGRAMS_PER_SM": 1}
    assert tune.sweep_plan(g, only) == only["flash_decode_cuda"]
    tune.assign(g, "WMMA_WARPS+WMMA_PROGRAMS_PER_SM", (4, 2))
    assert (g["WMMA_WARPS"], g["WMMA_PROGRAMS_PER_SM"]) == (4, 2)
    with pytest.raises(ValueError, match="2 value"):
        tune.parse_only(["flash_decode_cuda.WMMA_WARPS+WMMA_PROGRAMS_PER_SM=8/1,4"])
    with pytest.raises(ValueError, match="no constant WARPS"):
        tune.sweep_plan(g, tune.parse_only(["flash_decode_cuda.WARPS+WMMA_PROGRAMS_PER_SM=8/1"]))
