"""Where lab16's Triton flash-decoding reference spends its time at b = 1, s = 32768 (32 query
heads on 8 KV heads, d = 128: 134 MB of cache, the perf shape furthest below the 0.85 roof
target), plan by plan: the whole call, its split pass alone, and the split pass's loads alone
(the same grid, tiles and pipeline, sums in place of the dots and the softmax). The gaps between
the columns are the combine and the math; the last column is what the plan's reads reach.

    python -m benchmarks.decode_parts          # on a GPU; prints one table

Timed the grader's way (L2 flushed, CUDA events, median of ROUNDS), GB/s of the cache's bytes,
% of the copy roof that grades the labs. Each plan sets the reference module's launch
constants (PLANS below), as benchmarks/tune_references.py's sweep does.
"""

import math
import statistics
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

from grader.backends.bench import Timer, copy_roof
from grader.lab.reference import shared

B, HQ, HKV, S, D = 1, 32, 8, 32768, 128
ROUNDS = 25
# (NUM_WARPS, PROGRAMS_PER_SM, BLOCK_N, NUM_STAGES, FUSED_COMBINE)
PLANS = [(2, 2, 128, 2, False), (4, 1, 128, 2, False), (4, 1, 128, 2, True),
         (4, 1, 128, 3, True), (4, 2, 64, 3, False), (4, 2, 64, 3, True), (2, 2, 64, 3, True),
         (8, 1, 128, 3, True), (4, 1, 128, 2, True)]  # the last again: the drift between
NAMES = ("NUM_WARPS", "PROGRAMS_PER_SM", "BLOCK_N", "NUM_STAGES", "FUSED_COMBINE")
REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "lab16_attention"


@triton.jit
def _loads_kernel(k_ptr, v_ptr, out_ptr, s, keys_per_split, HEAD_DIM: tl.constexpr,
                  BLOCK_N: tl.constexpr):
    """The split pass's loads, one program per (split, KV head): its K^T and V tiles, summed."""
    split = tl.program_id(axis=0)
    kv = tl.program_id(axis=1).to(tl.int64) * s * HEAD_DIM
    offs_d = tl.arange(0, HEAD_DIM)
    acc = tl.zeros((HEAD_DIM,), dtype=tl.float32)
    start = split * keys_per_split
    for n0 in range(start, tl.minimum(start + keys_per_split, s), BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        kt = tl.load(k_ptr + kv + offs_n[None, :] * HEAD_DIM + offs_d[:, None])
        v = tl.load(v_ptr + kv + offs_n[:, None] * HEAD_DIM + offs_d[None, :])
        acc += tl.sum(kt.to(tl.float32), axis=1) + tl.sum(v.to(tl.float32), axis=0)
    tl.store(out_ptr + (tl.program_id(axis=1) * tl.num_programs(axis=0) + split) * HEAD_DIM
             + offs_d, acc)


def parts(ref, q, k, v, o, sms: int) -> dict:
    """{column: fn} for the reference module's current constants: the call, the split pass
    alone (the partials left uncombined), the split pass's loads alone."""
    splits = min(triton.cdiv(ref.PROGRAMS_PER_SM * sms, B * HKV), triton.cdiv(S, ref.BLOCK_N),
                 ref.MAX_SPLITS)
    keys_per_split = triton.cdiv(triton.cdiv(S, splits), ref.BLOCK_N) * ref.BLOCK_N
    splits = triton.cdiv(S, keys_per_split)
    part_o = torch.empty((B, HQ, splits, D), dtype=torch.float32, device=q.device)
    part_m, part_l = (torch.empty((B, HQ, splits), dtype=torch.float32, device=q.device)
                      for _ in range(2))
    sums = torch.empty((HKV, splits, D), dtype=torch.float32, device=q.device)
    group = HQ // HKV
    done = torch.zeros(B * HKV, dtype=torch.int32, device=q.device)

    def split_pass():
        ref.flash_decode_kernel[(splits, HKV, B)](
            q, k, v, part_o, part_m, part_l, S, keys_per_split, 1.4426950408889634 / math.sqrt(D),
            done, o, GROUP=group, BLOCK_G=16, HEAD_DIM=D, BLOCK_N=ref.BLOCK_N, TAIL=False,
            PDL=False, FUSED=False, BLOCK_S=triton.next_power_of_2(splits),
            BLOCK_COMBINE=triton.next_power_of_2(group), CHUNK=1,
            num_warps=ref.NUM_WARPS, num_stages=ref.NUM_STAGES)

    def loads():
        _loads_kernel[(splits, HKV)](k, v, sums, S, keys_per_split, HEAD_DIM=D,
                                     BLOCK_N=ref.BLOCK_N, num_warps=ref.NUM_WARPS,
                                     num_stages=ref.NUM_STAGES)
    return {"call": lambda: ref.flash_decode_triton(q, k, v, o), "split pass": split_pass,
            "loads": loads}


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    ref = shared(str(REFERENCE / "flash_decode_triton.py"), "flash_decode_triton")
    timer = Timer()
    roof = copy_roof()["gbps"]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    q = torch.randn(B, HQ, D, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(B, HKV, S, D, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    o = torch.empty_like(q)
    nbytes = 2 * k.numel() * 2
    print(f"{torch.cuda.get_device_name()}, copy roof {roof:.0f} GB/s; b {B}, hq {HQ}, hkv {HKV}, "
          f"s {S}, d {D} ({nbytes / 1e6:.0f} MB); GB/s and % of the roof")
    print(f"{'warps':>5} {'per SM':>6} {'tile':>4} {'stages':>6} {'fused':>5} "
          + " ".join(f"{c:>17}" for c in ("call", "split pass", "loads")))
    for plan in PLANS:
        for name, value in zip(NAMES, plan):
            setattr(ref, name, value)
        cells = []
        for fn in parts(ref, q, k, v, o, sms).values():
            for _ in range(3):
                fn()
            gbps = nbytes / (statistics.median(timer.time(fn) for _ in range(ROUNDS)) * 1e6)
            cells.append(f"{gbps:>11.0f} {gbps / roof:>5.0%}")
        warps, per_sm, tile, stages, fused = plan
        print(f"{warps:>5} {per_sm:>6} {tile:>4} {stages:>6} {str(fused):>5} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
