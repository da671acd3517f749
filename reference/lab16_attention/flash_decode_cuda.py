"""Reference CUDA flash-decoding launcher: the perf bar of lab16's `flash_decode` (hidden from
students). The split pass puts q . k^T and p . v on the tensor cores (WMMA), the group's query
heads padded to one 16-row operand, in one of two designs:
- BLOCK_TILES (checked in, flash_decode_block.cu): one cp.async pipeline a block, its warps
  sharing each BLOCK_BN-key K/V tile (scores split by keys, p . v by output columns, the softmax
  between through shared memory), the tiles unpadded and swizzled, their fragments loaded by
  ldmatrix;
- else (flash_decode_wmma.cu): a pipeline a warp, each warp streaming its own WMMA_BN-key tiles
  (rows padded), the warps merged exactly at the end;
then one combine block per query head (flash_decode_combine.cu), or the last block of each KV
head (FUSED_COMBINE).

Target (lab.toml): 0.85 of the copy roof at the perf shapes; students are graded at 0.8x of it.
On an H100 (2026-12-07, roof 3113 GB/s, `TUNE_LABS=lab16 TUNE_ARGS="--only
flash_decode_cuda.COMBINE_VEC=4,1" bash scripts/gpu-check.sh tune`, which chose the constants
below): 2730 / 2955 / 3141 GB/s (88 / 95 / 101% of the roof) at b 1 s 32768 / b 8 s 8192 / b 8
s 32768; Triton's reference 2717 / 2799 / 3048 in the same run. The pipeline a warp
(BLOCK_TILES False) ran 2570 / 2811 / 3039 on another H100 (roof 3112, `TUNE_ARGS=--no-sweep`).
Its padded rows make the copies take each 128-byte line in pieces: Nsight Compute counted 3.6 M
L2 read requests for the split pass at b 1 (8.4 M sectors, 34% of them read twice) against
1.6 M (6.3 M) for Triton's and for the swizzled tiles (`python -m
benchmarks.decode_split_pass` under ncu). At b 1 the call's tail is the fused combine:
`python -m benchmarks.decode_parts` (an H100, roof 3113) timed the call at 2736-2740 GB/s, its
split pass alone at 2807-2826, with 16-byte combine loads (COMBINE_VEC 4), and the call at
2615-2638 with 4-byte ones. Designs that lost at b 1 are in docs/perf-labs13-16.md (fewer warps
with deeper pipelines, 2 blocks an SM, tiles taken in turn: CLAIM_TILES, HEADS_FIRST below). On
2026-12-06 (roof 3065 GB/s) a split pass on the CUDA cores (lanes in groups of d / 8 reading a
key's row, the scores summed by shuffles) ran 2177 / 2256 / 2546, bound by instruction issue,
not memory.
"""

import math
from pathlib import Path

import numpy as np
import torch

from grader.backends.cuda import SourceModule, functions
from grader.lab.reference import shared

HERE = Path(__file__).resolve().parent
# The split pass: the fragment loads (load_fragment), the helpers lab16's WMMA references
# share, then its kernels: one source, so that a compile cache keyed by the text sees an edit of
# any.
SPLIT_SOURCE = (HERE.parent / "common" / "wmma_load.cuh").read_text() + \
    (HERE / "fragments.cuh").read_text() + (HERE / "flash_decode_split.cuh").read_text()
WMMA_SOURCE = SPLIT_SOURCE + (HERE / "flash_decode_wmma.cu").read_text()  # a pipeline a warp
BLOCK_SOURCE = SPLIT_SOURCE + (HERE / "flash_decode_block.cu").read_text()  # one a block
COMBINE_SOURCE = (HERE / "flash_decode_combine.cu").read_text()
# Launch constants, read per call (benchmarks/tune_references.py sets them). Swept on an H100
# (2026-12-06, `TUNE_LABS=lab16 bash scripts/gpu-check.sh tune`).
MAX_SPLITS = 32  # splits per KV head at most
SPLIT_ALIGN = 64  # the splits' unit: s in units of SPLIT_ALIGN keys, dealt out evenly
# Warps per block, each with its own pipeline of K/V tiles; keys per tile; tiles per warp in
# shared memory (WMMA_STAGES - 1 in flight while it works on one); blocks per SM. The sweep,
# one constant at a time from 4 warps, 32 keys, 3 stages, 1 block an SM (GB/s at the perf
# shapes): 2 stages 2379 / 2672 / 2793; then 16 keys 2423 / 2658 / 2862 (64 keys need
# 310016 bytes of shared memory: no launch); then 2 / 4 / 8 warps 2209-2598 / 2100-2868 /
# 2355 / 2660 / 2795; then 1 / 2 / 4 blocks an SM 2072 / 2652 / 2874, 1926 / 2616 / 2841,
# 1920 / 2563 / 2831. At b = 1 (16 splits a KV head, 128 blocks) one setting measured 2058 to
# 2423 in different rounds of the sweep: the b = 8 shapes decide. wmma_smem_bytes at d 128, 8
# warps, 16 keys, 2 stages: 162048 bytes, one block an SM, 8 warps of 16 keys in flight.
WMMA_WARPS = 8
WMMA_BN = 16
WMMA_STAGES = 2
# Split-pass blocks per SM over the whole batch, at most: the split count is rounded down, as
# few blocks are resident per SM, and a last wave of a few blocks would cost a whole wave's time.
WMMA_PROGRAMS_PER_SM = 1
# The last split-pass block of each KV head combines the head's splits
# (flash_decode_wmma.cu's FUSED: a count per KV head in `_done`, which that block resets), so
# that the call is one launch: the second launch and its ramp are a few microseconds of the
# 53 at b = 1. On an H100 (2026-12-07, the sweep at the perf shapes, GB/s): 2354 / 2658 / 2773
# fused, 2158 / 2639 / 2774 not (at b = 1 one setting measured 2158 to 2348 in one sweep).
# The combining block loads each split's max, sum and partial output together, COMBINE_CHUNK
# splits at once, merged online chunk by chunk: one L2 round trip a chunk (one at b = 1) after
# the count's. On an H100 (2026-12-07, decode_parts at b = 1): 2581-2594 GB/s, against 2534
# when the maxima and sums went through shared memory first (and 2406-2419 on another H100,
# roof 3068, with that; 2354 with a loop over the splits, a round trip every few splits).
FUSED_COMBINE = True
COMBINE_CHUNK = 16
# 4: the combining block's threads take 4 adjacent elements of a row each, every split's four
# partial outputs in one 16-byte load (flash_decode_split.cuh's VEC), and the block design
# stores its partials so: at b = 1 the group's 512 elements in one round trip of 128 threads;
# 1: an element a thread, 4-byte loads. On an H100 (2026-12-07, roof 3113) against 2 elements a
# thread 128 apart, two round trips of 4-byte loads at b = 1 (a design since removed): the sweep
# at the perf shapes 2756 / 2944 / 3149 GB/s with 4, 2639 / 2923 / 3107 with those; decode_parts at
# b = 1, the call 2736-2740 against 2615-2638 (the pipeline a warp: 2636 against 2602).
COMBINE_VEC = 4
# False: p goes from the accumulators to p . v's operands through shared memory, as on a GPU
# whose fragment maps differ (flash_decode_wmma.cu's P_IN_REGISTERS); a design test runs it.
P_IN_REGISTERS = True
# Designs aimed at b = 1 (docs/perf-labs13-16.md has the runs that compared them; each is a
# design test on the CPU):
# - TAIL (pipeline a warp only): flash_decode_wmma.cu's merge of the warps weighs each row's
#   warps once, then merges every element. On an H100 (2026-12-07, roof 3068, decode_parts at
#   b 1): 2494 GB/s with it and the fused combine's 2 elements a thread, 2464 without either.
# - CLAIM_TILES > 0 (pipeline a warp only): a KV head's warps take its keys in units of
#   CLAIM_TILES tiles from a count per head (CLAIM), so that warps on SMs served faster take
#   more; 0: fixed splits. There: 2389 / 2477 / 2422 at 1 / 2 / 4 tiles a unit.
# - HEADS_FIRST (pipeline a warp only): the grid (hkv, splits, b), a KV head's blocks apart in
#   launch order (for CLAIM's counts per head), or (splits, hkv, b). There: 2453 with 2 tiles.
TAIL = True
CLAIM_TILES = 0
HEADS_FIRST = False
# BLOCK_TILES: the split pass of flash_decode_block.cu, one pipeline a block: its BLOCK_WARPS
# warps share each BLOCK_BN-key tile (scores split by keys, p . v by output columns, the softmax
# between through shared memory, three __syncthreads a tile), BLOCK_STAGES tiles in shared
# memory, swizzled; no merge of warps at the end. On an H100 (2026-12-07, roof 3069,
# decode_parts at b 1, call / split pass alone, GB/s): 2581 / 2774 at 64 keys and 3 stages,
# 2564 / 2765 at 4 stages, 2554 / 2725 at 128 keys and 3, 2568 / 2709 at 2, 2413 / 2683 with 2
# warps; the pipeline a warp 2475-2479 / 2594-2600. With rows padded by 16 bytes instead of
# swizzled, the block design ran 2398-2402 / 2570-2586 at 128 keys.
BLOCK_TILES = True
BLOCK_WARPS = 4
BLOCK_BN = 64
BLOCK_STAGES = 3
# The count that finds each KV head's last block (FUSED_COMBINE): an acquire-release atomic at
# GPU scope after a barrier, as Triton's atomic_add(sem="acq_rel") is, or fences around a relaxed
# one (flash_decode_split.cuh's ACQ_REL). In the sweep of the run above (mean over the three
# perf shapes): 2877 GB/s with it, 2857 without.
COUNT_ACQ_REL = True
# Each tile's row statistics go through the exchange tile. The split pass is bound by memory,
# not issue: attention's quad shuffles (attention.cu's QUAD) ran 2231 / 2660 / 2802 GB/s here
# against 2348 / 2607 / 2792 without (an H100, 2026-12-07, the sweep at the perf shapes), and
# are not kept.
TUNE = {"MAX_SPLITS": (32, 64, 128), "WMMA_WARPS": (2, 4, 8), "WMMA_BN": (16, 32, 64),
        "WMMA_STAGES": (2, 3, 4), "WMMA_PROGRAMS_PER_SM": (1, 2, 4),
        "FUSED_COMBINE": (False, True), "CLAIM_TILES": (0, 1, 2), "BLOCK_TILES": (False, True),
        "BLOCK_BN": (64, 128), "BLOCK_STAGES": (2, 3, 4), "COUNT_ACQ_REL": (False, True),
        "COMBINE_VEC": (1, 4)}
PAD_T, PAD_F = 8, 4  # as fragments.cuh's
_modules: dict = {}
_combine = functions(COMBINE_SOURCE, no_extern_c=True)  # the kernel is extern "C" itself


def _wmma_kernels(warps: int, bn: int, stages: int, fused: bool, chunk: int, vec: int,
                  p_in_regs: bool, tail: bool, claim: int, heads_first: bool, block: bool,
                  acq_rel: bool):
    """{d: split kernel} of flash_decode_wmma.cu (or with `block`, flash_decode_block.cu), built
    for `warps`, `bn`, `stages`, `fused`, the fused combine's `chunk` and `vec` (COMBINE_VEC),
    `p_in_regs` (P_IN_REGISTERS), `tail` (TAIL), `claim` (CLAIM_TILES), `heads_first`
    (HEADS_FIRST) and `acq_rel` (COUNT_ACQ_REL)."""
    key = (warps, bn, stages, fused, chunk, vec, p_in_regs, tail, claim, heads_first, block,
           acq_rel)
    if key not in _modules:
        module = SourceModule(BLOCK_SOURCE if block else WMMA_SOURCE, no_extern_c=True,
                              options=[f"-DWARPS={warps}", f"-DBN={bn}", f"-DSTAGES={stages}",
                                       f"-DFUSED={int(fused)}", f"-DCHUNK={chunk}",
                                       f"-DVEC={vec}",
                                       f"-DP_IN_REGISTERS={int(p_in_regs)}",
                                       f"-DTAIL={int(tail)}", f"-DCLAIM={claim}",
                                       f"-DHEADS_FIRST={int(heads_first)}",
                                       f"-DACQ_REL={int(acq_rel)}"])
        name = "flash_decode_block_kernel_d" if block else "flash_decode_wmma_kernel_d"
        _modules[key] = {d: module.get_function(f"{name}{d}")
                         for d in (64, 128)}
    return _modules[key]


def stage_bytes(d: int, bn: int, stages: int) -> int:
    """One warp's stages of K and V tiles in flash_decode_wmma.cu's shared memory."""
    return stages * 2 * bn * (d + PAD_T) * 2


def wmma_smem_bytes(d: int, warps: int, bn: int, stages: int) -> int:
    """flash_decode_wmma.cu's shared memory: q's 16-row tile, then per warp its stages of K and
    V tiles and its float exchange tile (p, where it cannot stay in registers, and the warp's
    row statistics live in it too)."""
    per_warp = stage_bytes(d, bn, stages) + 16 * (max(bn, 32) + PAD_F) * 4
    return 16 * (d + PAD_T) * 2 + warps * per_warp


def block_smem_bytes(d: int, bn: int, stages: int) -> int:
    """flash_decode_block.cu's shared memory: q's 16-row tile, the block's stages of K and V
    tiles (unpadded, swizzled), the scores (float), p (16-bit) and alpha (a 16 x 16 float
    tile)."""
    return 16 * (d + PAD_T) * 2 + stages * 2 * bn * d * 2 + 16 * (bn + PAD_F) * 4 + \
        16 * (bn + PAD_T) * 2 + 16 * (16 + PAD_F) * 4


_buffers = shared(__file__, "decode_buffers")
_done = _buffers.Counts()  # the fused combine's, per KV head


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def plan(b: int, hkv: int, s: int, sms: int) -> tuple[int, int]:
    """(splits, unit) at the constants: WMMA_PROGRAMS_PER_SM blocks per SM over the batch at
    most, no more splits than units of SPLIT_ALIGN keys (so none is empty); the kernel deals
    the units out evenly (split i starts at unit i units // splits)."""
    planned = max(1, WMMA_PROGRAMS_PER_SM * sms // (b * hkv))
    return min(planned, _cdiv(s, SPLIT_ALIGN), MAX_SPLITS), SPLIT_ALIGN


def split_pass(q, k, v, part_o, part_m, part_l, o, unit: int, fused: bool) -> None:
    """flash_decode_wmma.cu's split pass over every (split, KV head, sequence), the splits as
    many as the partials hold, each a share of s in units of `unit` keys; with `fused` the last
    block of each KV head also writes its o."""
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    done = _done.get(2 * b * hkv, q.device)  # the fused combine's counts, then CLAIM's
    if BLOCK_TILES:
        assert not CLAIM_TILES and not HEADS_FIRST, "BLOCK_TILES: fixed splits, grid (splits, ..)"
        assert 64 // BLOCK_WARPS >= 16 and BLOCK_BN // BLOCK_WARPS >= 16, \
            f"BLOCK_WARPS {BLOCK_WARPS}, BLOCK_BN {BLOCK_BN}: 16 keys and 16 columns (d 64) a warp"
        warps, bn, stages = BLOCK_WARPS, BLOCK_BN, BLOCK_STAGES
        smem = block_smem_bytes(d, bn, stages)
    else:
        warps, bn, stages = WMMA_WARPS, WMMA_BN, WMMA_STAGES
        smem = wmma_smem_bytes(d, warps, bn, stages)
    assert COMBINE_VEC in (1, 4), f"COMBINE_VEC {COMBINE_VEC}: 1 or 4 elements a thread"
    _wmma_kernels(warps, bn, stages, fused, COMBINE_CHUNK, COMBINE_VEC, P_IN_REGISTERS, TAIL,
                  CLAIM_TILES, HEADS_FIRST, BLOCK_TILES, COUNT_ACQ_REL)[d](
        *[np.uintp(t.data_ptr()) for t in (q, k, v, part_o, part_m, part_l)], np.int32(s),
        np.int32(unit), np.int32(hq // hkv),
        np.float32(1.4426950408889634 / math.sqrt(d)), np.uintp(done.data_ptr()),
        np.uintp(o.data_ptr()), block=(32 * warps, 1, 1),
        grid=(hkv, part_m.shape[2], b) if HEADS_FIRST else (part_m.shape[2], hkv, b),
        shared=smem)


def flash_decode_cuda(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, o: torch.Tensor) -> None:
    b, hq, d = q.shape
    hkv, s = k.shape[1], k.shape[2]
    assert k.shape == v.shape == (b, hkv, s, d) and o.shape == q.shape, \
        f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}, o {tuple(o.shape)}"
    assert hq % hkv == 0 and hq // hkv in (1, 2, 4, 8), f"{hq} query heads on {hkv} KV heads"
    assert all(t.is_contiguous() and t.dtype == torch.bfloat16 for t in (q, k, v, o)), \
        "q, k, v and o: contiguous bfloat16"
    assert all(t.data_ptr() % 16 == 0 for t in (q, k, v)), "16-byte loads need alignment"
    assert o.data_ptr() % 4 == 0, "the combine's 4-byte stores (bfloat16 pairs) need alignment"
    assert d in (64, 128) and hkv <= 65535 and b <= 65535, f"head dim {d}, {hkv} x {b} blocks"
    assert WMMA_BN % 16 == 0 and SPLIT_ALIGN >= 1, f"WMMA_BN {WMMA_BN}, SPLIT_ALIGN {SPLIT_ALIGN}"
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count if q.is_cuda else 4
    splits, unit = plan(b, hkv, s, sms)
    part_o, part_m, part_l = _buffers.partials(b, hq, splits, d, q.device)
    split_pass(q, k, v, part_o, part_m, part_l, o, unit, FUSED_COMBINE)
    if FUSED_COMBINE:
        return
    _combine("flash_decode_combine_kernel")(
        *[np.uintp(t.data_ptr()) for t in (part_o, part_m, part_l, o)], np.int32(splits),
        block=(d, 1, 1), grid=(b * hq, 1, 1))
