"""How close torch's own reductions come to the copy roof when they only read, at the sizes of
lab16's flash_decode perf shapes (its KV cache: 134 MB at b 1, s 32768; 268 MB at b 8, s 8192;
1074 MB at b 8, s 32768): what a read of that size can reach on this GPU, launch and tail
included, beside what the references reach. Then a plain Triton read, each program summing one
contiguous range of the cache in tiles (no attention math, no combine), over a grid of plans
(programs per SM, warps, tile, pipeline depth) at the b = 1 size: what a read planned as the
decode's split pass can reach there, and which plan reaches most.

    python -m benchmarks.read_sizes          # on a GPU; prints two tables

Timed the grader's way (L2 flushed, CUDA events, median of 15), bfloat16, GB/s = bytes read /
time, % of the copy roof that grades the labs.
"""

import functools
import statistics
import sys

import torch
import triton
import triton.language as tl

from grader.backends.bench import Timer, copy_roof

SIZES_MB = [134, 268, 1074]
ROUNDS = 15
READS = {"sum": lambda x: x.sum(), "amax": lambda x: x.amax()}
# Triton plans at the b = 1 size: programs per SM, warps, elements per tile, pipeline stages.
PLANS = [(per_sm, warps, tile, stages) for per_sm in (1, 2, 3, 4, 8) for warps in (4, 8)
         for tile in (8192, 16384) for stages in (2, 3)]


@triton.jit
def _read_kernel(x_ptr, out_ptr, per_program, n, TILE: tl.constexpr, STAGES: tl.constexpr):
    """Sum x[p per_program : (p + 1) per_program] (p the program) in tiles of TILE."""
    start = tl.program_id(0).to(tl.int64) * per_program
    stop = tl.minimum(start + per_program, n)
    acc = tl.zeros((TILE,), dtype=tl.float32)
    for i in tl.range(start, stop, TILE, num_stages=STAGES):
        offs = i + tl.arange(0, TILE)
        acc += tl.load(x_ptr + offs, mask=offs < stop, other=0.0).to(tl.float32)
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0))


def triton_read(x: torch.Tensor, programs: int, warps: int, tile: int, stages: int):
    per_program = triton.cdiv(triton.cdiv(x.numel(), programs), tile) * tile
    grid = triton.cdiv(x.numel(), per_program)
    out = torch.empty(grid, dtype=torch.float32, device=x.device)
    return lambda: _read_kernel[(grid,)](x, out, per_program, x.numel(), TILE=tile,
                                         STAGES=stages, num_warps=warps)


def gbps_of(timer: Timer, fn, nbytes: int, rounds: int = ROUNDS) -> float:
    """GB/s of fn() moving nbytes: 3 calls to warm up, then the median of `rounds` timed."""
    for _ in range(3):
        fn()
    return nbytes / (statistics.median(timer.time(fn) for _ in range(rounds)) * 1e6)


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    timer = Timer()
    roof = copy_roof()["gbps"]
    print(torch.cuda.get_device_name(), f"copy roof {roof:.0f} GB/s")
    print(f"{'MB':>6} " + " ".join(f"{name + ' GB/s':>10} {'roof':>5}" for name in READS))
    for mb in SIZES_MB:
        x = torch.randn(mb * 10**6 // 2, dtype=torch.bfloat16, device="cuda")
        cells = []
        for fn in READS.values():
            gbps = gbps_of(timer, functools.partial(fn, x), 2 * x.numel())
            cells.append(f"{gbps:>10.0f} {gbps / roof:>5.0%}")
        print(f"{mb:>6} " + " ".join(cells))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = torch.randn(SIZES_MB[0] * 10**6 // 2, dtype=torch.bfloat16, device="cuda")
    print(f"\nA Triton read of {SIZES_MB[0]} MB, one contiguous range a program ({sms} SMs)")
    print(f"{'per SM':>6} {'warps':>5} {'tile':>6} {'stages':>6} {'GB/s':>6} {'roof':>5}")
    for per_sm, warps, tile, stages in PLANS:
        try:
            gbps = gbps_of(timer, triton_read(x, per_sm * sms, warps, tile, stages), 2 * x.numel())
        except Exception as exc:  # a plan the compiler or the launch refuses
            print(f"{per_sm:>6} {warps:>5} {tile:>6} {stages:>6} {type(exc).__name__}")
            continue
        print(f"{per_sm:>6} {warps:>5} {tile:>6} {stages:>6} {gbps:>6.0f} {gbps / roof:>5.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
