"""The trust boundary's parts on their own: the host's phantoms record or refuse, the host
process cannot reach the device process, the device builds kernels from source only and
replays nothing but a well-formed stream. Each defence beside the control it needs."""

from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest
import torch

from grader.backends import device as dev
from grader.execution import kernels, phantom, replay
from grader.execution.host import HostLink, isolate

GEOM = {"shape": [8], "stride": [1], "offset": 0, "dtype": "float32", "bytes": 32}


def recorder() -> phantom.Recorder:
    return phantom.Recorder("cpu", allowed_ops=())


def test_allocations_fills_and_views_are_recorded():
    rec = recorder()
    x = rec.given(GEOM)
    with rec.recording():
        tmp = torch.zeros(4, 2, device=x.device)
        view = x.view(2, 4).t()
        view.fill_(3.0)
    kinds = [op["op"] for op in rec.stream.ops]
    assert kinds == ["alloc", "fill", "fill"], rec.stream.ops
    assert tmp.shape == (4, 2) and view.shape == (4, 2) and view.stride() == (1, 4)
    assert rec.stream.ops[2]["dst"]["stride"] == [1, 4] and not rec.stream.refused
    assert x.data_ptr() >= phantom.BASE and x[2:].data_ptr() == x.data_ptr() + 8


@pytest.mark.parametrize("touch, named", [
    (lambda x: x + 1, "torch.ops.aten.add"),
    (lambda x: x.numpy(), "Tensor.numpy()"),
    (lambda x: x.tolist(), "Tensor.tolist()"),
    (lambda x: np.from_dlpack(x), "Tensor.__dlpack__()"),
    (lambda x: x.untyped_storage(), "Tensor.untyped_storage()"),
    (lambda x: x.to(torch.float64), "torch.ops.aten._to_copy"),
    (lambda x: x.clone(), "torch.ops.aten.clone"),
    (lambda x: x[0].item(), "Tensor.item(), a device value read on the host"),
    (lambda x: float(x[0]), "float(tensor), a device value read on the host"),
])
def test_every_other_touch_of_device_data_is_refused_and_named(touch, named):
    rec = recorder()
    x = rec.given(GEOM)
    with pytest.raises(phantom.HostCompute), rec.recording():
        touch(x)
    assert rec.stream.refused and rec.stream.refused[0].startswith(named), rec.stream.refused
    # The control: the same touch of a real tensor computes (the refusal is the phantom's).
    touch(torch.zeros(8))


def test_a_copy_is_recorded_only_where_the_exercise_allows_it():
    rec = phantom.Recorder("cpu", allowed_ops=("copy_",))
    a, b = rec.given(GEOM), rec.given(GEOM)
    with rec.recording():
        a.copy_(b)
    assert rec.stream.ops[-1]["op"] == "copy"
    rec = recorder()
    a, b = rec.given(GEOM), rec.given(GEOM)
    with pytest.raises(phantom.HostCompute), rec.recording():
        a.copy_(b)


def test_in_place_copies_and_fills_never_reach_torchs_dispatcher(monkeypatch):
    """torch's copy_ of a CUDA tensor starts CUDA before its dispatch reaches a phantom (on a GPU
    machine a phantom is a CUDA tensor, in a host that has no GPU): the recorder serves copy_,
    fill_ and zero_ before torch does."""
    rec = phantom.Recorder("cpu", allowed_ops=("copy_",))
    a, b = rec.given(GEOM), rec.given(GEOM)

    def dispatched(cls, func, types, args=(), kwargs=None):
        raise AssertionError(f"{func} reached torch's dispatcher")
    monkeypatch.setattr(phantom.Phantom, "__torch_dispatch__", classmethod(dispatched))
    with rec.recording():
        a.copy_(b)
        a.fill_(2.0)
        a.zero_()
    assert [op["op"] for op in rec.stream.ops[-3:]] == ["copy", "fill", "fill"]
    assert rec.stream.ops[-2]["value"] == 2.0 and rec.stream.ops[-1]["value"] == 0
    # The control: another op on a phantom does reach it.
    with pytest.raises(AssertionError, match="dispatcher"), rec.recording():
        a.add_(1.0)


def test_a_host_tensor_on_a_gpu_and_a_kept_phantom_cannot_be_kernel_arguments():
    gpu = phantom.Recorder("gpu")
    with pytest.raises(phantom.HostCompute, match="a tensor on the host's memory"):
        gpu.arg(torch.ones(3), "k[grid]")  # a kernel on a GPU cannot read it
    rec = recorder()
    assert "t" in rec.arg(torch.ones(3), "k[grid]")  # on the CPU: sent with the stream
    old = recorder().given(GEOM)
    with pytest.raises(phantom.HostCompute, match="kept from an earlier call"):
        rec.arg(old, "k[grid]")
    assert rec.arg(np.int32(7), "k")["np"] == "int32"  # numbers pass as typed numbers
    x = rec.given(GEOM)
    assert rec.arg(np.uintp(x.data_ptr() + 4), "k")["ptr"] == {"buf": 1, "byte": 4}


def test_a_host_table_sent_to_the_gpu_keeps_the_dtype_it_is_given():
    """`t.to("cuda", torch.float16)` names the dtype by position: the upload is float16, as
    with `dtype=` (the control), not the host tensor's float32."""
    gpu = phantom.Recorder("gpu")
    with gpu.recording():
        by_position = torch.arange(4.0).to("cuda", torch.float16)
        by_keyword = torch.arange(4.0).to("cuda", dtype=torch.float16)
    assert by_keyword.dtype == torch.float16
    assert by_position.dtype == torch.float16


def test_a_printed_phantom_shows_no_values():
    x = recorder().given(GEOM)
    assert "no values on the host" in repr(x) and "no values on the host" in f"{x}"


# --- the host process --------------------------------------------------------------------

def _fork(body) -> str:
    """`body()` in a forked child; what it returned (a line), or its exception."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(w, str(body()).encode())
        except BaseException as exc:  # noqa: BLE001
            os.write(w, f"{type(exc).__name__}".encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 4096).decode()
    os.waitpid(pid, 0)
    return out


def test_the_host_cannot_read_the_device_processes_memory_or_see_a_gpu():
    secret = np.frombuffer(b"device-data-1234", dtype=np.uint8).copy()
    address, parent = secret.ctypes.data, os.getpid()

    def peek():
        with open(f"/proc/{parent}/mem", "rb") as mem:
            mem.seek(address)
            return mem.read(16).decode()

    def isolated_peek():
        why = isolate()
        if why:
            return f"SKIP {why}"
        return f"{sorted(os.listdir('/dev'))} {peek()}"

    # The control: a plain child of the same user reads its parent's memory.
    assert _fork(peek) == "device-data-1234"
    got = _fork(isolated_peek)
    if got.startswith("SKIP"):
        pytest.skip(got)
    assert got == "PermissionError", got  # and /dev was empty up to that read


def test_the_host_plants_nothing_where_the_device_reads(tmp_path):
    """The device imports its kernels module from its folder and loads compiled code from its
    caches: the host gets empty folders of its own there, so a file it writes never reaches
    the device's. The control: a plain child's file does."""
    def plant(isolated):
        if isolated:
            why = isolate([str(tmp_path)])
            if why:
                return f"SKIP {why}"
        (tmp_path / "kernels.py").write_text("import os\nos._exit(7)\n")
        return "planted"

    assert _fork(lambda: plant(False)) == "planted" and (tmp_path / "kernels.py").exists()
    (tmp_path / "kernels.py").unlink()
    got = _fork(lambda: plant(True))
    if got.startswith("SKIP"):
        pytest.skip(got)
    assert got == "planted" and not (tmp_path / "kernels.py").exists()


def test_a_host_that_dies_is_named(tmp_path):
    request = {"device": "cpu", "lab": "", "manifest": "", "exercise": "", "impl": "triton",
               "setup": "", "sources": {}, "workdir": str(tmp_path)}
    link = HostLink.start(request, close=[])
    os.kill(link.pid, 11)
    from grader.execution.host import HostDied

    with pytest.raises(HostDied, match="SIGSEGV"):
        link.loaded()
    link.close()


# --- the device's kernels, from source ---------------------------------------------------

CELL = '''
import triton
import triton.language as tl
import os

BLOCK: tl.constexpr = 64
NOTED = print("this line must not run on the device")


@triton.jit
def helper(x):
    return x * 2


@triton.autotune(configs=[triton.Config({"B": 32})], key=["n"])
@triton.jit
def kern(x_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    tl.store(x_ptr + offs, helper(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
'''


def build(tmp_path, body: str = CELL):
    dev.use("cpu")
    return kernels.build("", {"cell": textwrap.dedent(body)}, tmp_path)


def test_the_device_keeps_kernels_imports_and_constexprs_only(tmp_path, capsys):
    module, built = build(tmp_path)
    assert type(module.kern).__name__ in ("JITFunction", "InterpretedFunction")
    assert not hasattr(module, "NOTED") and not hasattr(module, "os")
    assert "must not run" not in capsys.readouterr().out
    lines = built.path.read_text().splitlines()
    in_file = next(i for i, ln in enumerate(lines, 1) if ln.startswith("def kern("))
    in_cell = next(i for i, ln in enumerate(textwrap.dedent(CELL).splitlines(), 1)
                   if ln.startswith("def kern("))
    assert built.locate(in_file).endswith(f"line {in_cell}")  # the cells' own line numbers


@pytest.mark.parametrize("line, why", [
    ("    open('/etc/passwd')", "`open` is not available"),
    ("    triton.knobs.os.system('true')", "is not part of Triton's language"),
    ("    x_ptr.__class__", "is not part of Triton's language"),
    ("    tl.load(x_ptr).handle", "is not part of Triton's language"),
    ("    import os", "cannot contain import"),
    ("    (lambda: 0)()", "cannot contain lambda"),
])
def test_a_kernel_body_may_use_triton_only(tmp_path, line, why):
    body = CELL.replace("    offs = tl.arange(0, B)\n", f"{line}\n    offs = tl.arange(0, B)\n")
    with pytest.raises(kernels.KernelSourceError, match=why):
        build(tmp_path, body)
    (tmp_path / "control").mkdir()
    build(tmp_path / "control")  # the control: the same cell without that line builds


def test_a_kernel_header_runs_no_python(tmp_path):
    body = CELL.replace("B: tl.constexpr)", "B: tl.constexpr = __import__('os').getpid())")
    with pytest.raises(kernels.KernelSourceError, match="default must be"):
        build(tmp_path, body)


# --- the replay ----------------------------------------------------------------------------

@pytest.mark.parametrize("stream, why", [
    ({"ops": [{"op": "run_python", "code": "1"}]}, "unknown step"),
    ({"ops": [{"op": "alloc", "buf": 1, "bytes": 1 << 40}]}, "cannot make"),
    ({"ops": [{"op": "alloc", "buf": 0, "bytes": 4}]}, "cannot make"),  # a given buffer
    ({"ops": [{"op": "fill", "dst": {**GEOM, "buf": 5}, "value": 0}]}, "does not hold"),
    ({"ops": [{"op": "fill", "dst": {**GEOM, "buf": 0, "shape": [99]}, "value": 0}]},
     "does not hold"),
    ({"ops": [{"op": "fill", "dst": {**GEOM, "buf": 0}, "value": "x"}]}, "not a number"),
    ({"ops": [{"op": "cuda", "module": 3, "function": "k", "args": [], "block": [1],
               "grid": [1]}]}, "never gave"),
])
def test_a_forged_stream_is_refused(tmp_path, stream, why):
    device = replay.Device(None, "triton", "cpu", "", {}, tmp_path)
    given = [torch.zeros(8)]
    with pytest.raises(replay.StreamError, match=why):
        device.run(stream, given)
    ok = {"ops": [{"op": "fill", "dst": {**GEOM, "buf": 0}, "value": 2.0}]}
    device.run(ok, given)  # the control: a well-formed stream runs
    assert given[0].tolist() == [2.0] * 8


def test_the_hosts_torch_cuda_answers_from_the_device_and_orders_nothing():
    """A launcher may size its grid by the GPU's SMs (torch's or Triton's driver, as Triton's
    tutorials do) or launch in a stream context: the host (no GPU, no CUDA) answers from what
    the device process said, and its streams do nothing."""
    def in_a_host():
        phantom.install_host("gpu")
        phantom.set_device({"name": "a GPU", "major": 9, "minor": 0,
                            "multi_processor_count": 132})
        props = torch.cuda.get_device_properties(0)
        with torch.cuda.stream(torch.cuda.Stream()):
            torch.cuda.synchronize()
        from triton.runtime import driver

        triton_sms = driver.active.utils.get_device_properties(0)["multiprocessor_count"]
        return (props.multi_processor_count, triton_sms, torch.cuda.get_device_capability(),
                torch.cuda.is_available(), os.environ["CUDA_VISIBLE_DEVICES"],
                driver.active.get_current_target().arch)

    assert _fork(in_a_host) == "(132, 132, (9, 0), True, '', 90)"


def test_a_small_constant_table_made_on_the_host_reaches_the_device(tmp_path):
    """Honest: a lookup table from torch.tensor(...) (it cannot hold device data: the host has
    none), sent with the stream. A large one is refused: compute it in a kernel."""
    import base64

    rec = recorder()
    x = rec.given(GEOM)
    with rec.recording():
        table = torch.tensor([1.5, -2.0, 4.0], device=x.device)
    (upload,) = [op for op in rec.stream.ops if op["op"] == "upload"]
    assert table.shape == (3,) and upload["dst"]["shape"] == [3]
    with pytest.raises(phantom.HostCompute, match="made on the host"), rec.recording():
        torch.tensor(np.zeros(1 << 19), device=x.device)  # 4 MiB of float64
    # The device writes what was sent, where the stream says.
    device = replay.Device(None, "triton", "cpu", "", {}, tmp_path)
    given = [torch.zeros(8)]
    data = base64.b64encode(torch.tensor([1.5, -2.0, 4.0]).numpy().tobytes()).decode()
    device.run({"ops": [{"op": "upload", "dst": {**GEOM, "buf": 0, "shape": [3]},
                         "data": data}]}, given)
    assert given[0].tolist()[:4] == [1.5, -2.0, 4.0, 0.0]
    with pytest.raises(replay.StreamError, match="wrong size"):
        device.run({"ops": [{"op": "upload", "dst": {**GEOM, "buf": 0}, "data": data}]},
                   given)


def test_a_helper_from_an_earlier_cell_is_there_as_in_the_notebook():
    """A notebook is one namespace: the grader builds an exercise from the cells above it too
    (`submission.earlier_cells`). The control: the exercise's own cells alone raise NameError."""
    from pathlib import Path

    from corpus_controls import notebook

    from grader.lab import manifest, submission
    from grader.pipeline import grading
    path = (Path(__file__).parent / "corpus" / "lab03_activations" /
            "honest_helper_from_an_earlier_cell.py")
    lab = manifest.get("lab03")
    ex = lab.exercise("leaky_relu")
    nb = submission.read_notebook(notebook(path))
    own = submission.cell_sources(nb, ex.impls["triton"].cells)
    both = {**submission.earlier_cells(nb, ex.impls["triton"].cells), **own}
    assert list(both) == ["relu_triton", "leaky_relu_triton"]
    alone = grading.grade_exercise(ex, "triton", own, "cpu", hidden=False, perf=False)
    assert alone.first_failure.status == "exception" and "NameError" in alone.reason
    assert grading.grade_exercise(ex, "triton", both, "cpu", hidden=False, perf=False).correct


def test_a_source_module_may_not_make_the_compiler_run_a_program():
    """Compiler options that name a program or a file (they would run where the data is) are
    refused; the usual ones pass (the control)."""
    assert replay.unsafe_options(["-O3", "-use_fast_math", "-lineinfo", "-Xptxas", "-v",
                                  "-std=c++17", "-DBLOCK=256", "-maxrregcount=64"]) == []
    for bad in (["-ccbin", "/bin/sh"], ["-Xcompiler", "-wrapper,/bin/sh,-c,id"],
                ["-fplugin=/x.so"], ["-I/home"], ["--compiler-bindir=/tmp"]):
        assert replay.unsafe_options(bad), bad
