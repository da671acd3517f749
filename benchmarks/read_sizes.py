"""How close torch's own reductions come to the copy roof when they only read, at the sizes of
lab16's flash_decode perf shapes (its KV cache: 134 MB at b 1, s 32768; 268 MB at b 8, s 8192;
1074 MB at b 8, s 32768): what a read of that size can reach on this GPU, launch and tail
included, beside what the references reach.

    python -m benchmarks.read_sizes          # on a GPU; prints one table

Timed the grader's way (L2 flushed, CUDA events, median of 15), bfloat16, GB/s = bytes read /
time, % of the copy roof that grades the labs.
"""

import statistics
import sys

import torch

from grader.backends.bench import Timer, copy_roof

SIZES_MB = [134, 268, 1074]
ROUNDS = 15
READS = {"sum": lambda x: x.sum(), "amax": lambda x: x.amax()}


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
            for _ in range(3):
                fn(x)
            ms = statistics.median(timer.time(fn, x) for _ in range(ROUNDS))
            gbps = x.numel() * 2 / (ms * 1e6)
            cells.append(f"{gbps:>10.0f} {gbps / roof:>5.0%}")
        print(f"{mb:>6} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
