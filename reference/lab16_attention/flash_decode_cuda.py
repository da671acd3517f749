"""Reference CUDA flash-decoding launcher: the perf bar of lab16's `flash_decode` (hidden from
students). flash_decode.cu: a split pass of one block per (split, KV head, sequence), lanes in
groups of d / 8 reading a key's row in 16-byte pieces, UNROLL keys in flight per group, the
scores summed by shuffles, the online softmax in float32 on the CUDA cores, the block's lane
groups and warps merged (shuffles, then shared memory) into float32 partials; then a combine
block per query head. Target (lab.toml): 0.85 of the copy roof at the perf shapes; students are
graded at 0.8x of it. On an H100 (2026-12-06, after the sweep, STAGED): 69 / 73 / 83% of the
roof at b 1 s 32768 / b 8 s 8192 / b 8 s 32768 (missed). Loading the next step's K/V pieces before using this step's (twice the loads in
flight, 16 more registers a lane) measured slower, 58-71%.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule

SOURCE = (Path(__file__).parent / "flash_decode.cu").read_text()
# Launch constants, read per call (benchmarks/tune_references.py sets them). Swept on an H100
# (2026-12-06, `TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`).
WARPS = 8  # warps per split-pass block: flash_decode.cu's WARPS
UNROLL = 2  # keys per lane group per step: flash_decode.cu's UNROLL
PROGRAMS_PER_SM = 8  # split-pass blocks per SM, over the whole batch
MAX_SPLITS = 32  # splits per KV head at most
SPLIT_ALIGN = 64  # keys per split: a multiple of this
# STAGED: each step's K and V pieces copied into shared memory by cp.async one step ahead
# (flash_decode.cu's issue_step), a whole step in flight per block without the registers that
# loading it ahead into registers took (that ran 58-71% of the roof). On an H100 (2026-12-06,
# the sweep, the other constants as here): 2141 / 2260 / 2546 GB/s at the three perf shapes,
# against 2078 / 2226 / 2402 loading from global memory.
STAGED = True
TUNE = {"WARPS": (2, 4, 8), "UNROLL": (1, 2, 4), "PROGRAMS_PER_SM": (2, 4, 8, 16),
        "MAX_SPLITS": (32, 64, 128), "STAGED": (False, True)}
_modules: dict = {}


def _kernels(warps: int, unroll: int, staged: bool):
    """({(d, group): split kernel}, combine kernel) of flash_decode.cu, built for `warps`,
    `unroll` and `staged`."""
    key = (warps, unroll, staged)
    if key not in _modules:  # templates: each kernel is extern "C" itself
        module = SourceModule(SOURCE, no_extern_c=True,
                              options=[f"-DWARPS={warps}", f"-DUNROLL={unroll}",
                                       f"-DSTAGED={int(staged)}"])
        _modules[key] = (
            {(d, g): module.get_function(f"flash_decode_kernel_d{d}_g{g}")
             for d in (64, 128) for g in (1, 2, 4, 8)},
            module.get_function("flash_decode_combine_kernel"))
    return _modules[key]


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def flash_decode_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor) -> None:
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (b, hkv, s, d) and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert hq % hkv == 0 and hq // hkv in (1, 2, 4, 8), f"{hq} query heads on {hkv} KV heads"
    assert all(t.is_contiguous() and t.dtype == torch.bfloat16 for t in (q, k, v, o)), \
        "q, k, v and o: contiguous bfloat16"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v)), "16-byte loads need alignment"
    assert d in (64, 128) and hkv <= 65535 and b <= 65535, f"head dim {d}, {hkv} x {b} blocks"
    split_kernels, combine = _kernels(WARPS, UNROLL, STAGED)
    step = 32 * WARPS // (d // 8) * UNROLL  # keys per step of a block: flash_decode.cu's STEP
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 4
    splits = min(_cdiv(PROGRAMS_PER_SM * sms, b * hkv), _cdiv(s, SPLIT_ALIGN), MAX_SPLITS)
    keys_per_split = _cdiv(_cdiv(s, splits), SPLIT_ALIGN) * SPLIT_ALIGN
    splits = _cdiv(s, keys_per_split)
    part_o = torch.empty((b, hq, splits, d), dtype=torch.float32, device=q.device)
    part_m = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    part_l = torch.empty((b, hq, splits), dtype=torch.float32, device=q.device)
    split_kernels[(d, hq // hkv)](
        np.uintp(q.data_ptr()), np.uintp(k.data_ptr()), np.uintp(v.data_ptr()),
        np.uintp(part_o.data_ptr()), np.uintp(part_m.data_ptr()), np.uintp(part_l.data_ptr()),
        np.int32(s), np.int32(keys_per_split), np.float32(1.4426950408889634 / math.sqrt(d)),
        block=(32 * WARPS, 1, 1), grid=(splits, hkv, b),
        shared=2 * 2 * step * d * 2 if STAGED else 0)  # STAGED: two steps of K and V
    combine(np.uintp(part_o.data_ptr()), np.uintp(part_m.data_ptr()),
            np.uintp(part_l.data_ptr()), np.uintp(o.data_ptr()), np.int32(splits),
            block=(d, 1, 1), grid=(b * hq, 1, 1))
