"""When each block of lab16's CUDA flash-decoding reference starts, has its first K/V tile,
ends its loop, has merged its warps and (the last block of each KV head) has combined the
splits, at b = 1, s = 32768 (benchmarks/decode_parts.py's shape), at the reference's constants
and its split pass with a pipeline a warp (BLOCK_TILES off: flash_decode_wmma.cu).

    python -m benchmarks.decode_timeline          # on a GPU; prints the spread of each stamp
    python -m benchmarks.decode_timeline CLAIM_TILES=2   # with launcher constants set

The reference's launcher compiles and runs its kernel's text with %globaltimer stamps added
(thread 0 of each block writes them to a __device__ array); calls are timed the grader's way
(L2 flushed by a read, CUDA events), and the stamps are in microseconds from the first
block's start. The stamps cost a few instructions a block, not a memory round trip
in the loop. `patched_source()` fails where the kernel's text no longer has the places it
stamps, so that an edit of the kernel breaks the CPU test of it, not the next GPU call.
"""

import ast
import sys

import numpy as np
import torch

from benchmarks.decode_parts import HKV, HQ, B, D, S, reference
from grader.backends.bench import Timer

CALLS = 6
STAMPS = ("start", "first tile", "loop end", "merged", "combined")
HELPERS = """
__device__ unsigned long long stamps[8 * 65536];
__device__ __forceinline__ unsigned long long now()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}
"""
# (the text a stamp goes after, the stamp): each text must occur once in the kernel
PLACES = [
    ("using bf16 = __nv_bfloat16;\n", HELPERS),
    ("    const bf16 *k_head = k + (long long)kv_head * s * D, *v_head = v + (long long)kv_head"
     " * s * D;\n",
     "    unsigned long long *stamp = stamps + 8 * (split + splits * kv_head);\n"
     "    if (threadIdx.x == 0) stamp[0] = now();\n    bool first_tile = true;\n"),
    ("        const bf16(*vs)[LDT] = kv[warp][use][1];\n",
     "        if (threadIdx.x == 0 && first_tile) stamp[1] = now();\n"
     "        first_tile = false;\n"),
    ("        wmma::store_matrix_sync(&os[0][16 * i], acc[i], LDO, wmma::mem_row_major);\n"
     "    __syncthreads();\n", "    if (threadIdx.x == 0) stamp[2] = now();\n"),
    ("#if FUSED\n", ""),
    ("    if (threadIdx.x == 0)\n        done[kv_head] = 0;\n",
     "    __syncthreads();\n    if (threadIdx.x == 0) stamp[4] = now();\n"),
]
MERGED = "    __syncthreads();\n    if (threadIdx.x == 0) stamp[3] = now();\n"


def patched_source(source: str) -> str:
    """The split pass's source with the stamps."""
    for after, stamp in PLACES:
        assert source.count(after) == 1, f"the kernel no longer has, once: {after!r}"
        if after == "#if FUSED\n":
            source = source.replace(after, MERGED + after)
        else:
            source = source.replace(after, after + stamp)
    return source


def main() -> int:
    if not torch.cuda.is_available():
        print("skipped: needs a GPU")
        return 0
    import pycuda.driver as drv

    ref = reference("flash_decode_cuda")
    ref.BLOCK_TILES = False  # the stamps have their places in flash_decode_wmma.cu's text
    for arg in sys.argv[1:]:
        name, value = arg.split("=", 1)
        assert hasattr(ref, name), f"flash_decode_cuda has no constant {name}"
        setattr(ref, name, ast.literal_eval(value))
    ref.WMMA_SOURCE = patched_source(ref.WMMA_SOURCE)  # what the launcher compiles from now
    ref._modules.clear()
    ref.FUSED_COMBINE = True
    q = torch.randn(B, HQ, D, dtype=torch.bfloat16, device="cuda")
    k, v = (torch.randn(B, HKV, S, D, dtype=torch.bfloat16, device="cuda") for _ in range(2))
    o = torch.empty_like(q)
    ref.flash_decode_cuda(q, k, v, o)  # builds the stamped kernel
    (kernels,) = ref._modules.values()
    at, size = kernels[D].module._mod.get_global("stamps")
    timer = Timer()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    blocks = ref.plan(B, HKV, S, sms)[0] * HKV
    print(" ".join(sys.argv[1:]) or "the checked-in constants")
    print(f"{torch.cuda.get_device_name()}; b {B}, hq {HQ}, hkv {HKV}, s {S}, d {D}; {blocks} "
          f"blocks; microseconds from the first block's start (min / median / max over blocks)")
    for call in range(CALLS):
        drv.memset_d8(at, 0, size)
        torch.cuda.synchronize()
        ms = timer.time(ref.flash_decode_cuda, q, k, v, o)
        got = np.zeros(size // 8, dtype=np.uint64)
        drv.memcpy_dtoh(got, at)
        rows = got[:8 * blocks].reshape(blocks, 8)[:, :5].astype(np.int64)
        t0 = rows[:, 0].min()
        cells = []
        for i, name in enumerate(STAMPS):
            have = rows[:, i][rows[:, i] > 0]
            us = (have - t0) / 1e3
            cells.append(f"{name} {us.min():5.1f} / {np.median(us):5.1f} / {us.max():5.1f}")
        print(f"call {call}: {ms * 1e3:5.1f} us ({4 * k.numel() / ms / 1e6:.0f} GB/s); "
              + "; ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
