"""Where lab16's flash-decoding references spend their time at b = 1, s = 32768 (32 query heads
on 8 KV heads, d = 128: 134 MB of cache, the perf shape furthest below the 0.85 roof target),
plan by plan: the whole call, and its split pass alone (the partials left uncombined). The gap
between the two is the combine: a second launch, or the tail of the last program of each KV
head (FUSED_COMBINE). What a plain read of those bytes reaches: benchmarks/read_sizes.py.

    python -m benchmarks.decode_parts          # on a GPU; prints one table

Timed the grader's way (L2 flushed, CUDA events, median of ROUNDS), GB/s of the cache's bytes,
% of the copy roof that grades the labs. Each plan sets the reference module's launch
constants (PLANS, CUDA_PLANS below), as benchmarks/tune_references.py's sweep does; the first
plan of each comes again last, to show the drift between.
"""

import math
import sys
from pathlib import Path

import numpy as np
import torch
import triton

from benchmarks.read_sizes import gbps_of
from grader.backends.bench import Timer, copy_roof
from grader.lab.reference import shared

B, HQ, HKV, S, D = 1, 32, 8, 32768, 128
ROUNDS = 25
# (NUM_WARPS, PROGRAMS_PER_SM, BLOCK_N, NUM_STAGES, FUSED_COMBINE)
PLANS = [(4, 1, 128, 3, True), (2, 2, 128, 2, False)]
NAMES = ("NUM_WARPS", "PROGRAMS_PER_SM", "BLOCK_N", "NUM_STAGES", "FUSED_COMBINE")
# (WMMA_WARPS, WMMA_BN, WMMA_STAGES, WMMA_PROGRAMS_PER_SM, FUSED_COMBINE)
CUDA_PLANS = [(8, 16, 2, 1, True), (7, 16, 3, 1, True), (6, 16, 3, 1, True),
              (5, 16, 4, 1, True), (8, 16, 2, 1, True)]
CUDA_NAMES = ("WMMA_WARPS", "WMMA_BN", "WMMA_STAGES", "WMMA_PROGRAMS_PER_SM", "FUSED_COMBINE")
REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "lab16_attention"


def triton_parts(ref, q, k, v, o, sms: int) -> dict:
    """{column: fn} at the Triton reference module's current constants."""
    splits = min(triton.cdiv(ref.PROGRAMS_PER_SM * sms, B * HKV), triton.cdiv(S, ref.BLOCK_N),
                 ref.MAX_SPLITS)
    keys_per_split = triton.cdiv(triton.cdiv(S, splits), ref.BLOCK_N) * ref.BLOCK_N
    splits = triton.cdiv(S, keys_per_split)
    part_o, part_m, part_l = partials(splits, q.device)
    group = HQ // HKV
    done = torch.zeros(B * HKV, dtype=torch.int32, device=q.device)

    def split_pass():
        ref.flash_decode_kernel[(splits, HKV, B)](
            q, k, v, part_o, part_m, part_l, S, keys_per_split, 1.4426950408889634 / math.sqrt(D),
            done, o, GROUP=group, BLOCK_G=16, HEAD_DIM=D, BLOCK_N=ref.BLOCK_N, TAIL=False,
            PDL=False, FUSED=False, BLOCK_S=triton.next_power_of_2(splits),
            BLOCK_COMBINE=triton.next_power_of_2(group), CHUNK=1,
            num_warps=ref.NUM_WARPS, num_stages=ref.NUM_STAGES)
    return {"call": lambda: ref.flash_decode_triton(q, k, v, o), "split pass": split_pass}


def cuda_parts(ref, q, k, v, o, sms: int) -> dict:
    """{column: fn} at the CUDA reference module's current constants."""
    planned = max(1, ref.WMMA_PROGRAMS_PER_SM * sms // (B * HKV))
    splits = min(planned, triton.cdiv(S, ref.SPLIT_ALIGN), ref.MAX_SPLITS)
    keys_per_split = triton.cdiv(triton.cdiv(S, splits), ref.SPLIT_ALIGN) * ref.SPLIT_ALIGN
    splits = triton.cdiv(S, keys_per_split)
    tensors = (q, k, v, *partials(splits, q.device))
    done = torch.zeros(B * HKV, dtype=torch.int32, device=q.device)
    kernel = ref._wmma_kernels(ref.WMMA_WARPS, ref.WMMA_BN, ref.WMMA_STAGES, False)[D]

    def split_pass():
        kernel(*[np.uintp(t.data_ptr()) for t in tensors], np.int32(S), np.int32(keys_per_split),
               np.int32(HQ // HKV), np.float32(1.4426950408889634 / math.sqrt(D)),
               np.uintp(done.data_ptr()), np.uintp(o.data_ptr()),
               block=(32 * ref.WMMA_WARPS, 1, 1), grid=(splits, HKV, B),
               shared=ref.wmma_smem_bytes(D, ref.WMMA_WARPS, ref.WMMA_BN, ref.WMMA_STAGES))
    return {"call": lambda: ref.flash_decode_cuda(q, k, v, o), "split pass": split_pass}


def partials(splits: int, device) -> tuple:
    """part_o [b, hq, splits, d], part_m and part_l [b, hq, splits], float32."""
    return (torch.empty((B, HQ, splits, D), dtype=torch.float32, device=device),
            *(torch.empty((B, HQ, splits), dtype=torch.float32, device=device) for _ in range(2)))


def table(timer: Timer, roof: float, ref, plans, names, parts, tensors, sms: int) -> None:
    """One row per plan: the call and its split pass, GB/s and % of the roof."""
    nbytes = 2 * tensors[1].numel() * 2
    print(" ".join(f"{n.lower().replace('_', ' '):>{max(6, len(n))}}" for n in names)
          + " ".join(f"{c:>17}" for c in ("call", "split pass")))
    for plan in plans:
        for name, value in zip(names, plan):
            setattr(ref, name, value)
        cells = []
        for fn in parts(ref, *tensors, sms).values():
            gbps = gbps_of(timer, fn, nbytes, ROUNDS)
            cells.append(f"{gbps:>11.0f} {gbps / roof:>5.0%}")
        print(" ".join(f"{str(v):>{max(6, len(n))}}" for n, v in zip(names, plan))
              + " ".join(cells))


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    timer = Timer()
    roof = copy_roof()["gbps"]
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    q = torch.randn(B, HQ, D, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(B, HKV, S, D, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    tensors = (q, k, v, torch.empty_like(q))
    print(f"{torch.cuda.get_device_name()}, copy roof {roof:.0f} GB/s; b {B}, hq {HQ}, hkv {HKV}, "
          f"s {S}, d {D} ({4 * k.numel() / 1e6:.0f} MB); GB/s and % of the roof")
    print("\nTriton (flash_decode_triton.py)")
    table(timer, roof, shared(str(REFERENCE / "flash_decode_triton.py"), "flash_decode_triton"),
          PLANS, NAMES, triton_parts, tensors, sms)
    print("\nCUDA (flash_decode_cuda.py)")
    table(timer, roof, shared(str(REFERENCE / "flash_decode_cuda.py"), "flash_decode_cuda"),
          CUDA_PLANS, CUDA_NAMES, cuda_parts, tensors, sms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
