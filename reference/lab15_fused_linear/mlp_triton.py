"""Reference Triton gated MLP: the perf bar of lab15's `mlp` (hidden from students).
y = (silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T in bfloat16, in two kernels:

- mlp_gate_up_kernel: one tile of h per program, two float32 accumulators fed by tl.dot from
  the same block of x (loaded once for both); the epilogue computes silu(g) * u in float32 and
  stores h in bfloat16, one rounding;
- mlp_down_kernel: y = h @ w_down.T, a plain GEMM over f, one rounding.

The bfloat16 blocks go to tl.dot as they are (the tensor cores' bfloat16 path: exact products,
a float32 sum). Tiles numbered in groups of GROUP_SIZE_M tile rows (lab10's matmul_fp16); no
mask along the sum where its block divides it (EVEN_K: d = 4096 and f = 11008 = 43 x 256 at the
perf shapes), as linear_gelu_triton.py.

Work (lab.toml's `flops`): 3 x 2 m d f. Minimum traffic: 2 (m d + 3 d f + m d) bytes, plus h
written and read once, 4 m f. Eager torch moves 12 m f more (g, u and silu(g) each written and
read) in five launches.

Prefill where TMA's rules hold: both GEMMs through linear_gelu_triton.py's gemm_tma_kernel
(persistent, tensor descriptors), the SILU_MUL epilogue for gate/up, which reads w_gate and
w_up as one [f, 2, d] tensor from the lower of the two, their distance the middle stride (the
launcher takes it from the two addresses: a reference runs where its tensors are). Target
(lab.toml): 1.0x eager torch.
"""

import torch
import triton
import triton.language as tl

from grader.lab.reference import shared

# The persistent TMA GEMM with its epilogues, and its rules and program count.
_gemm = shared(__file__, "linear_gelu_triton")

# Prefill (m > DECODE_ROWS, compute-bound), where TMA's rules hold: both GEMMs through
# linear_gelu_triton.py's gemm_tma_kernel (persistent, tiles through tensor descriptors), its
# PROGRAMS_PER_SM; gate/up 128 x 128 tiles of h with w_gate and w_up read as one [f, 2, d]
# tensor (one 128 x 256 tl.dot a K step, paired()), down 128 x 256 tiles of y, K blocks of 64,
# 8 warps, 3 stages: 803 TFLOP/s on an H100 (2026-12-06, `TUNE_LABS=lab15 TUNE_ARGS=--no-sweep
# bash scripts/gpu-check.sh tune`), 1.12x eager torch (715). Two 128-column tl.dots a K step
# (two descriptors, two accumulators) ran 665-673, 0.94x; 64-column gate/up tiles 610,
# 128-column down tiles 587, K blocks of 128 out of shared memory, 2 programs per SM,
# GROUP_SIZE_M 16 or tl.range's warp specialization within 1% of that. The pointer kernels
# below (any stride) take the same tiles; their own best on an H100 (256 x 64 gate/up,
# 256 x 128 down, 4 stages) was 629-639 TFLOP/s, 0.88x eager torch (lab.toml asks 1.0x).
BLOCK_SIZE_M = 128
BLOCK_SIZE_N = 128  # columns of h per program
DOWN_BLOCK_SIZE_N = 256  # columns of y per program
BLOCK_SIZE_K = 64
GROUP_SIZE_M = 8
NUM_WARPS = 8
NUM_STAGES = 3
PROGRAMS_PER_SM = 1  # gemm_tma_kernel's programs per SM (linear_gelu_triton.py)
# Decode (m <= DECODE_ROWS): the read of the weights dominates (271 MB at d = 4096,
# f = 11008), and a 128-row tile would leave most of the GPU idle: one 64-row tile, 32 columns
# a program (344 programs for gate/up at f = 11008, 128 for down at d = 4096), 4 warps, 4
# stages, K blocks of 128 for gate/up and 256 for down (16 columns or 16-row tiles slower;
# 5 stages do not fit): 164-166 TFLOP/s, 1.08x eager torch.
DECODE_ROWS = 128
DECODE_BLOCK_SIZE_M = 64
DECODE_BLOCK_SIZE_N = 32
DECODE_DOWN_BLOCK_SIZE_N = 32
DECODE_BLOCK_SIZE_K = 128
DECODE_DOWN_BLOCK_SIZE_K = 256
DECODE_NUM_WARPS = 4
DECODE_NUM_STAGES = 4
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory or registers fails to launch and is skipped). Each
# set moves only its own perf shape.
TUNE = {"BLOCK_SIZE_M": (64, 128, 256), "BLOCK_SIZE_N": (32, 64, 128, 256),
        "DOWN_BLOCK_SIZE_N": (32, 64, 128, 256), "BLOCK_SIZE_K": (32, 64, 128),
        "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8), "NUM_STAGES": (2, 3, 4, 5),
        "PROGRAMS_PER_SM": (1, 2),
        "DECODE_BLOCK_SIZE_M": (16, 32, 64, 128), "DECODE_BLOCK_SIZE_N": (16, 32, 64, 128),
        "DECODE_DOWN_BLOCK_SIZE_N": (16, 32, 64, 128), "DECODE_BLOCK_SIZE_K": (64, 128, 256),
        "DECODE_DOWN_BLOCK_SIZE_K": (64, 128, 256),
        "DECODE_NUM_WARPS": (2, 4, 8), "DECODE_NUM_STAGES": (3, 4, 5, 6)}


@triton.jit
def _tile(pid, rows, cols, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
          GROUP_SIZE_M: tl.constexpr):
    """(pid_m, pid_n) of program pid, tiles numbered in groups of GROUP_SIZE_M tile rows."""
    tiles_m = tl.cdiv(rows, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(cols, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % group_rows).to(tl.int64)
    pid_n = ((pid % per_group) // group_rows).to(tl.int64)
    return pid_m, pid_n


@triton.jit
def mlp_gate_up_kernel(x_ptr, w_gate_ptr, w_up_ptr, h_ptr, m, f, d, stride_xm, stride_gate,
                       stride_up, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                       EVEN_K: tl.constexpr):
    pid_m, pid_n = _tile(tl.program_id(axis=0), m, f, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    in_m = offs_m[:, None] < m  # rows past m and columns past f: zeros, never stored
    in_n = offs_n[None, :] < f
    acc_g = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    acc_u = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, d, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
        g_ptrs = w_gate_ptr + offs_n[None, :] * stride_gate + offs_k[:, None]  # [kk, j] = w[j, kk]
        u_ptrs = w_up_ptr + offs_n[None, :] * stride_up + offs_k[:, None]
        if EVEN_K:  # d a multiple of BLOCK_SIZE_K: no mask along d
            x_blk = tl.load(x_ptrs, mask=in_m, other=0.0)
            g_blk = tl.load(g_ptrs, mask=in_n, other=0.0)
            u_blk = tl.load(u_ptrs, mask=in_n, other=0.0)
        else:
            x_blk = tl.load(x_ptrs, mask=in_m & (offs_k[None, :] < d), other=0.0)
            g_blk = tl.load(g_ptrs, mask=(offs_k[:, None] < d) & in_n, other=0.0)
            u_blk = tl.load(u_ptrs, mask=(offs_k[:, None] < d) & in_n, other=0.0)
        acc_g = tl.dot(x_blk, g_blk, acc_g)  # one block of x, both products
        acc_u = tl.dot(x_blk, u_blk, acc_u)
    h = acc_g / (1.0 + tl.exp(-acc_g)) * acc_u  # silu(g) * u in float32
    tl.store(h_ptr + offs_m[:, None] * f + offs_n[None, :], h.to(tl.bfloat16), mask=in_m & in_n)


@triton.jit
def mlp_down_kernel(h_ptr, w_down_ptr, y_ptr, m, d, f, stride_down,
                    BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                    BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                    EVEN_K: tl.constexpr):
    pid_m, pid_n = _tile(tl.program_id(axis=0), m, d, BLOCK_SIZE_M, BLOCK_SIZE_N, GROUP_SIZE_M)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    in_m = offs_m[:, None] < m
    in_n = offs_n[None, :] < d
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, f, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        h_ptrs = h_ptr + offs_m[:, None] * f + offs_k[None, :]  # h is contiguous: rows f apart
        w_ptrs = w_down_ptr + offs_n[None, :] * stride_down + offs_k[:, None]
        if EVEN_K:  # f a multiple of BLOCK_SIZE_K: no mask along f
            h_blk = tl.load(h_ptrs, mask=in_m, other=0.0)
            w_blk = tl.load(w_ptrs, mask=in_n, other=0.0)
        else:
            h_blk = tl.load(h_ptrs, mask=in_m & (offs_k[None, :] < f), other=0.0)
            w_blk = tl.load(w_ptrs, mask=(offs_k[:, None] < f) & in_n, other=0.0)
        acc = tl.dot(h_blk, w_blk, acc)
    tl.store(y_ptr + offs_m[:, None] * d + offs_n[None, :], acc.to(tl.bfloat16),
             mask=in_m & in_n)


def paired(w_gate: torch.Tensor, w_up: torch.Tensor):
    """(the lower of the two weights, the other's distance from it in elements, whether the
    lower is w_up) where gemm_tma_kernel can read them as one [f, 2, d] tensor: rows the same
    stride apart, distinct, and a distance TMA takes (a multiple of 16 bytes, under 2^40
    bytes); None otherwise."""
    distance = w_up.data_ptr() - w_gate.data_ptr()  # bytes
    if w_gate.stride(0) != w_up.stride(0) or distance == 0 or distance % 16 or \
            abs(distance) >= 1 << 40:
        return None
    if distance > 0:
        return w_gate, distance // w_gate.element_size(), False
    return w_up, -distance // w_up.element_size(), True


def mlp_triton(x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor,
               y: torch.Tensor) -> None:
    m, d = x.shape
    f = w_gate.shape[0]
    assert w_gate.shape == w_up.shape == (f, d) and w_down.shape == (d, f) and y.shape == (m, d), \
        (f"x {tuple(x.shape)}, w_gate {tuple(w_gate.shape)}, w_up {tuple(w_up.shape)}, "
         f"w_down {tuple(w_down.shape)}, y {tuple(y.shape)}")
    assert all(t.stride(1) == 1 for t in (x, w_gate, w_up, w_down)) and y.is_contiguous(), \
        "rows must be contiguous"
    # Read per call: benchmarks/tune_references.py sets them.
    pair = paired(w_gate, w_up)
    if m > DECODE_ROWS and f % 8 == 0 and pair and _gemm.tma_ready(x, w_gate, w_up, w_down, y):
        h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)  # (and h's rows)
        base, distance, swap = pair
        for a, b, c, n, k, bn, epilogue, apart in (
                (x, base, h, f, d, BLOCK_SIZE_N, _gemm.SILU_MUL, distance),
                (h, w_down, y, d, f, DOWN_BLOCK_SIZE_N, _gemm.PLAIN, 0)):
            grid = _gemm.programs(x, triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, bn),
                                  PROGRAMS_PER_SM)
            _gemm.gemm_tma_kernel[(grid,)](
                a, b, b, c, m, n, k, a.stride(0), b.stride(0), apart,
                EPILOGUE=epilogue.value, BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=bn,
                BLOCK_SIZE_K=BLOCK_SIZE_K, GROUP_SIZE_M=GROUP_SIZE_M, PROGRAMS=grid,
                SWAP=swap and apart > 0,
                num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return
    if m <= DECODE_ROWS:
        bm, bn, bn_down, bk, bk_down, group = (
            DECODE_BLOCK_SIZE_M, DECODE_BLOCK_SIZE_N, DECODE_DOWN_BLOCK_SIZE_N,
            DECODE_BLOCK_SIZE_K, DECODE_DOWN_BLOCK_SIZE_K, 1)
        warps, stages = DECODE_NUM_WARPS, DECODE_NUM_STAGES
    else:
        bm, bn, bn_down, bk, bk_down, group = (BLOCK_SIZE_M, BLOCK_SIZE_N, DOWN_BLOCK_SIZE_N,
                                               BLOCK_SIZE_K, BLOCK_SIZE_K, GROUP_SIZE_M)
        warps, stages = NUM_WARPS, NUM_STAGES
    h = torch.empty((m, f), dtype=torch.bfloat16, device=x.device)
    mlp_gate_up_kernel[(triton.cdiv(m, bm) * triton.cdiv(f, bn),)](
        x, w_gate, w_up, h, m, f, d, x.stride(0), w_gate.stride(0), w_up.stride(0),
        BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=group,
        EVEN_K=d % bk == 0, num_warps=warps, num_stages=stages)
    mlp_down_kernel[(triton.cdiv(m, bm) * triton.cdiv(d, bn_down),)](
        h, w_down, y, m, d, f, w_down.stride(0),
        BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn_down, BLOCK_SIZE_K=bk_down, GROUP_SIZE_M=group,
        EVEN_K=f % bk_down == 0, num_warps=warps, num_stages=stages)
