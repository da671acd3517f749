"""Which kernel is "torch's fused attention" on this GPU: F.scaled_dot_product_attention at
lab16's perf shapes (b 4, h 16, s 4096, bfloat16, head dims 64 and 128, full and causal), as
torch picks it and under each fused backend forced in turn, in TFLOP/s (lab16's flop count).

    python -m benchmarks.sdpa_backends          # on a GPU; prints one table

lab16's baseline is the flash backend (FlashAttention-2, lab.toml's `torch`); what a user
writes is the default call: this table says which backend that is, and what each of the others
reaches beside it, timed the grader's way (L2 flushed, CUDA events, median of 15).
"""

import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

from grader.backends.bench import Timer

SHAPES = [(64, 0), (64, 1), (128, 0), (128, 1)]  # (head dim, causal)
B, H, S = 4, 16, 4096
ROUNDS = 15
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def tflops(ms: float, d: int, causal: int) -> float:
    pairs = S * (S + 1) // 2 if causal else S * S
    return 4 * B * H * d * pairs / (ms * 1e-3) / 1e12


def timed(timer: Timer, fn, *args) -> float | None:
    try:
        for _ in range(3):
            fn(*args)
        return statistics.median(timer.time(fn, *args) for _ in range(ROUNDS))
    except RuntimeError as err:  # the backend refuses this shape or GPU
        print(f"    ({str(err).splitlines()[0][:100]})", file=sys.stderr)
        return None


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    timer = Timer()
    print(torch.cuda.get_device_name(), "torch", torch.__version__)
    names = ["default", *BACKENDS]
    print(f"{'d':>4} {'causal':>6} " + " ".join(f"{n:>10}" for n in names) + "   default is")
    for d, causal in SHAPES:
        q, k, v = (torch.randn(B, H, S, d, dtype=torch.bfloat16, device="cuda") for _ in "qkv")
        rates, outs = {}, {}
        for name in names:
            def call(q, k, v, name=name, causal=bool(causal), outs=outs):
                if name == "default":
                    outs[name] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    return
                with sdpa_kernel(BACKENDS[name]):
                    outs[name] = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            ms = timed(timer, call, q, k, v)
            rates[name] = None if ms is None else tflops(ms, d, causal)
        # the default's backend: the forced one whose output it matches bit for bit
        same = [n for n in BACKENDS if n in outs and rates[n] and torch.equal(outs[n],
                                                                              outs["default"])]
        print(f"{d:>4} {causal:>6} " + " ".join(
            f"{rates[n]:>10.0f}" if rates[n] else f"{'-':>10}" for n in names)
            + "   " + (", ".join(same) or "?"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
