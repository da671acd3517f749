"""Reference CUDA gated MLP launcher: the perf bar of lab15's `mlp` (hidden from students).
WMMA __nv_bfloat16 fragments, float accumulators, 4 warps per 64 x 64 tile: mlp_gate_up_kernel
(two accumulator sets, silu(g) * u in a float32 epilogue, h stored in bfloat16), then
mlp_down_kernel (y = h @ w_down.T): mlp.cu, with its work and byte ledger. Constants not yet
tuned on a GPU. Target (lab.toml): 0.45x eager torch (three cuBLAS GEMMs, SiLU and the product)
at 64 and 4096 tokens, d = 4096, f = 11008; students are graded at 0.8x of it.
"""

from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "mlp.cu").read_text()
TILE, THREADS = 64, 128  # TILE and THREADS in mlp.cu (not yet tuned on a GPU)
_kernels = None


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def mlp_cuda(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
             y: torch.Tensor) -> None:
    global _kernels
    if _kernels is None:  # <mma.h> is C++: the kernels are extern "C" themselves
        module = SourceModule(SOURCE, no_extern_c=True)
        _kernels = (module.get_function("mlp_gate_up_kernel"),
                    module.get_function("mlp_down_kernel"))
    gate_up, down = _kernels
    m, d = x.shape
    f = w_gate.shape[0]
    assert w_gate.shape == w_up.shape == (f, d) and w_down.shape == (d, f) and y.shape == (m, d), \
        (f"x {tuple(x.shape)}, w_gate {tuple(w_gate.shape)}, w_up {tuple(w_up.shape)}, "
         f"w_down {tuple(w_down.shape)}, y {tuple(y.shape)}")
    assert all(t.stride(1) == 1 for t in (x, w_gate, w_up, w_down)) and y.is_contiguous(), \
        "rows must be contiguous"
    h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)
    gate_up(np.uintp(x.data_ptr()), np.uintp(w_gate.data_ptr()), np.uintp(w_up.data_ptr()),
            np.uintp(h.data_ptr()), np.int32(m), np.int32(f), np.int32(d),
            np.int32(x.stride(0)), np.int32(w_gate.stride(0)), np.int32(w_up.stride(0)),
            block=(THREADS, 1, 1), grid=(_cdiv(m, TILE) * _cdiv(f, TILE), 1))
    down(np.uintp(h.data_ptr()), np.uintp(w_down.data_ptr()), np.uintp(y.data_ptr()),
         np.int32(m), np.int32(d), np.int32(f), np.int32(w_down.stride(0)),
         block=(THREADS, 1, 1), grid=(_cdiv(m, TILE) * _cdiv(d, TILE), 1))
