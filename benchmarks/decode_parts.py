"""Where lab16's flash-decoding references spend their time at b = 1, s = 32768 (32 query heads
on 8 KV heads, d = 128: 134 MB of cache, the perf shape furthest below the 0.85 roof target),
plan by plan: the whole call, and its split pass alone (the partials left uncombined). The gap
between the two is the combine: a second launch, or the tail of the last program of each KV
head (FUSED_COMBINE). What a plain read of those bytes reaches: benchmarks/read_sizes.py.

    python -m benchmarks.decode_parts          # on a GPU; prints a table per reference

Timed the grader's way (L2 flushed, CUDA events, median of ROUNDS), GB/s of the cache's bytes,
% of the copy roof that grades the labs. Each plan sets the reference module's launch
constants (PLANS, CUDA_PLANS below), as benchmarks/tune_references.py's sweep does, and times
the reference's own plan (`plan`) and split pass (`split_pass`); the first plan of each comes
again at the end, to show the drift between.
"""

import sys
from pathlib import Path

import torch

from benchmarks.read_sizes import gbps_of
from grader.backends.bench import Timer, copy_roof
from grader.lab import cases, manifest
from grader.lab.reference import shared

B, HQ, HKV, S, D = 1, 32, 8, 32768, 128
ROUNDS = 25
# (NUM_WARPS, PROGRAMS_PER_SM, BLOCK_N, NUM_STAGES, FUSED_COMBINE)
PLANS = [(4, 1, 128, 3, True), (2, 2, 128, 2, False), (4, 1, 128, 3, True)]
NAMES = ("NUM_WARPS", "PROGRAMS_PER_SM", "BLOCK_N", "NUM_STAGES", "FUSED_COMBINE")
# (BLOCK_TILES, COMBINE_VEC, WMMA_PROGRAMS_PER_SM): one pipeline a block (flash_decode_block.cu),
# its fused combine 4 adjacent elements a thread (the first) or 1, one block an SM (16 splits a
# KV head at b 1 on 132 SMs) or 2 (32); then a pipeline a warp (flash_decode_wmma.cu) with
# either combine
CUDA_PLANS = [(True, 4, 1), (True, 1, 1), (True, 4, 2), (False, 4, 1), (False, 1, 1),
              (True, 4, 1), (True, 1, 1)]
CUDA_NAMES = ("BLOCK_TILES", "COMBINE_VEC", "WMMA_PROGRAMS_PER_SM")
REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "lab16_attention"


def reference(stem: str):
    """The module `stem` of lab16's references (a reference's launcher has its name), loaded
    once."""
    return shared(str(REFERENCE / f"{stem}.py"), stem)


def parts(ref, launcher, q, k, v, o, sms: int) -> dict:
    """{column: fn} for a reference module at its current constants: its launcher, and its
    split pass alone on its own plan (the partials left uncombined)."""
    splits, size = ref.plan(B, HKV, S, sms)  # size: whatever its split pass takes
    part = reference("decode_buffers").partials(B, HQ, splits, D, q.device)
    return {"call": lambda: launcher(q, k, v, o),
            "split pass": lambda: ref.split_pass(q, k, v, *part, o, size, fused=False)}


def error(q, k, v, o) -> float:
    """The largest difference of o from the lab's oracle (lab.toml's expression, float64)."""
    shape = {"b": B, "hq": HQ, "hkv": HKV, "s": S, "d": D}
    want = cases.oracle(manifest.exercise("lab16_attention/flash_decode"),
                        {"q": q, "k": k, "v": v}, shape, q.device)["o"]
    return (o.double() - want).abs().max().item()


def table(timer: Timer, roof: float, stem: str, plans, names, tensors, sms: int) -> None:
    """One row per plan of reference `stem`: the call and its split pass, GB/s and % of the
    roof, and the call's largest error (a plan that is fast and wrong shows)."""
    ref = reference(stem)
    nbytes = 2 * tensors[1].numel() * 2
    print(" ".join(f"{n.lower().replace('_', ' '):>{max(6, len(n))}}" for n in names)
          + " ".join(f"{c:>17}" for c in ("call", "split pass")) + "  max error")
    for plan in plans:
        for name, value in zip(names, plan):
            setattr(ref, name, value)
        cells = []
        for fn in parts(ref, getattr(ref, stem), *tensors, sms).values():
            gbps = gbps_of(timer, fn, nbytes, ROUNDS)
            cells.append(f"{gbps:>11.0f} {gbps / roof:>5.0%}")
        tensors[3].zero_()
        getattr(ref, stem)(*tensors)
        print(" ".join(f"{str(v):>{max(6, len(n))}}" for n, v in zip(names, plan))
              + " ".join(cells) + f"  {error(*tensors):9.1e}")


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
    for stem, plans, names in (("flash_decode_triton", PLANS, NAMES),
                               ("flash_decode_cuda", CUDA_PLANS, CUDA_NAMES)):
        print(f"\n{stem}.py")
        table(timer, roof, stem, plans, names, tensors, sms)
    return 0


if __name__ == "__main__":
    sys.exit(main())
