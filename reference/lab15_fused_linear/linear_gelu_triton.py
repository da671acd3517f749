"""Reference Triton linear layer with a fused GELU: the perf bar of lab15's `linear_gelu`
(hidden from students). y = gelu_tanh(x @ w.T + b) in bfloat16: tl.dot over K blocks into a
float32 accumulator, then in the epilogue the bias and GELU's tanh form (as v * sigmoid(2u)) in
float32, one rounding to bfloat16 at the store.

The bfloat16 blocks go to tl.dot as they are (the tensor cores' bfloat16 path: exact
products, a float32 sum).

Work (lab.toml's `flops`): 2 m n k. Minimum traffic: 2 (m k + n k + n + m n) bytes.
Tiles numbered in groups of GROUP_SIZE_M tile rows (lab10's matmul_fp16).

Prefill (more than DECODE_ROWS rows) where every row stride is a multiple of 16 bytes and every
base 16-byte aligned: gemm_tma_kernel, which lab15's mlp shares (mlp_triton.py): its tiles come
through tensor descriptors built in the kernel (TMA on Hopper: no address arithmetic per
element, the copy engine fills the shared tiles, zeros past the matrices), and it is
persistent: one program per SM walks the tiles PROGRAMS apart, so that a tile's epilogue
overlaps the next tile's loads (tl.range's flatten). Every other call: linear_gelu_kernel,
pointers and masks.

Target (lab.toml): 1.0x cuBLAS + a GELU kernel.
"""

import torch
import triton
import triton.language as tl

# Prefill (4096^3), gemm_tma_kernel, swept on an H100 (2026-12-06): 128 x 256 x 64 tiles, 8
# warps, 3 stages, one program per SM: 683-703 TFLOP/s, 1.01-1.04x cuBLAS + a GELU kernel
# (675); 128-column tiles 508, two programs per SM 687, 4 stages out of shared memory. The
# pointer kernel's best (128 x 128 x 64) was 573-577 (0.85x); it takes the same constants
# where a stride rules TMA out (no perf shape).
BLOCK_SIZE_M = 128
BLOCK_SIZE_N = 256
BLOCK_SIZE_K = 64
GROUP_SIZE_M = 8
NUM_WARPS = 8
NUM_STAGES = 3
PROGRAMS_PER_SM = 1  # gemm_tma_kernel's programs: SMs x this, or one per tile if fewer
# A batch of at most DECODE_ROWS rows (decode: the weight read dominates, and a 128-row tile
# would leave most of the GPU idle) has constants of its own, read per call as the others.
# Decode (64 x 4096 x 4096): one 64-row tile, 32 columns a program (128 programs on 132 SMs),
# K tiles 256 deep, 4 warps, 4 stages: 123-128 TFLOP/s, 1.17-1.25x cuBLAS + GELU (16 or 64
# columns 100 or out of shared memory; 16-row tiles 59).
DECODE_ROWS = 128
DECODE_BLOCK_SIZE_M = 64
DECODE_BLOCK_SIZE_N = 32
DECODE_BLOCK_SIZE_K = 256
DECODE_NUM_WARPS = 4
DECODE_NUM_STAGES = 4
# The sweep's candidates (benchmarks/tune_references.py tries each in turn; a configuration
# that does not fit the SM's shared memory fails to launch and is skipped). Each set moves
# only its own perf shape.
TUNE = {"BLOCK_SIZE_M": (64, 128, 256), "BLOCK_SIZE_N": (64, 128, 256),
        "BLOCK_SIZE_K": (32, 64, 128), "GROUP_SIZE_M": (1, 8, 16), "NUM_WARPS": (4, 8),
        "NUM_STAGES": (2, 3, 4, 5), "PROGRAMS_PER_SM": (1, 2),
        "DECODE_BLOCK_SIZE_M": (16, 32, 64), "DECODE_BLOCK_SIZE_N": (16, 32, 64, 128),
        "DECODE_BLOCK_SIZE_K": (64, 128, 256), "DECODE_NUM_WARPS": (2, 4, 8),
        "DECODE_NUM_STAGES": (3, 4, 5, 6)}


@triton.jit
def linear_gelu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, m, n, k, stride_xm, stride_wn,
                       BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                       BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr,
                       EVEN_K: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    first_m = (pid // per_group) * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)  # the last group may be short
    pid_m = (first_m + (pid % per_group) % group_rows).to(tl.int64)
    pid_n = ((pid % per_group) // group_rows).to(tl.int64)
    offs_m = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    in_m = offs_m[:, None] < m  # rows past m and columns past n: zeros, never stored
    in_n = offs_n[None, :] < n
    acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_SIZE_K):
        offs_k = k0 + tl.arange(0, BLOCK_SIZE_K)
        x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :]
        w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None]  # W^T: [kk, j] = w[j, kk]
        if EVEN_K:  # k a multiple of BLOCK_SIZE_K: no mask along k
            x_blk = tl.load(x_ptrs, mask=in_m, other=0.0)
            w_blk = tl.load(w_ptrs, mask=in_n, other=0.0)
        else:
            x_blk = tl.load(x_ptrs, mask=in_m & (offs_k[None, :] < k), other=0.0)
            w_blk = tl.load(w_ptrs, mask=(offs_k[:, None] < k) & in_n, other=0.0)
        acc = tl.dot(x_blk, w_blk, acc)  # bfloat16 products, exact; a float32 sum
    bias = tl.load(b_ptr + offs_n, mask=offs_n < n, other=0.0).to(tl.float32)
    v = acc + bias[None, :]
    u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
    out = v / (1.0 + tl.exp(-2.0 * u))
    tl.store(y_ptr + offs_m[:, None] * n + offs_n[None, :], out.to(tl.bfloat16),
             mask=in_m & in_n)


# gemm_tma_kernel's epilogues (constexpr: the kernel reads them).
PLAIN, BIAS_GELU, SILU_MUL = tl.constexpr(0), tl.constexpr(1), tl.constexpr(2)


@triton.jit
def gemm_tma_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, m, n, k, stride_a, stride_b, pair,
                    EPILOGUE: tl.constexpr, BLOCK_SIZE_M: tl.constexpr,
                    BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                    GROUP_SIZE_M: tl.constexpr, PROGRAMS: tl.constexpr, SWAP: tl.constexpr):
    """c = epilogue(a @ b.T) for a [m, k], b [n, k] (rows stride_a, stride_b apart) and c
    [m, n] contiguous, bfloat16, float32 sums: PLAIN; BIAS_GELU, gelu_tanh(. + bias);
    SILU_MUL, silu(a @ g.T) * (a @ u.T) for two weights g and u [n, k] `pair` elements apart
    (b the lower of the two; SWAP: u is): read as one [n, 2, k] tensor, so that a K step
    loads row j of both into rows 2j and 2j + 1 of one 2 BLOCK_SIZE_N-row tile and one
    tl.dot makes the gate's and the up's sums side by side (columns 2j and 2j + 1, which a
    thread holds together: split in registers). Through tensor descriptors: the launcher
    checks TMA's rules (16-byte aligned bases, strides multiples of 16 bytes)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[m, k], strides=[stride_a, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    if EPILOGUE == SILU_MUL:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[n, 2, k], strides=[stride_b, pair, 1],
                                           block_shape=[BLOCK_SIZE_N, 2, BLOCK_SIZE_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[n, k], strides=[stride_b, 1],
                                           block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[m, n], strides=[n, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    tiles_m = tl.cdiv(m, BLOCK_SIZE_M)
    tiles_n = tl.cdiv(n, BLOCK_SIZE_N)
    per_group = GROUP_SIZE_M * tiles_n
    # Persistent: program p takes tiles p, p + PROGRAMS, ... (numbered in groups of
    # GROUP_SIZE_M tile rows, as linear_gelu_kernel's); flatten lets the next tile's loads
    # start under this one's epilogue.
    # (tl.range's warp_specialize measured 704 TFLOP/s either way on an H100.)
    for tile in tl.range(tl.program_id(axis=0), tiles_m * tiles_n, PROGRAMS, flatten=True):
        first_m = (tile // per_group) * GROUP_SIZE_M
        group_rows = tl.minimum(tiles_m - first_m, GROUP_SIZE_M)
        off_m = (first_m + (tile % per_group) % group_rows) * BLOCK_SIZE_M
        off_n = ((tile % per_group) // group_rows) * BLOCK_SIZE_N
        if EPILOGUE == SILU_MUL:
            acc2 = tl.zeros((BLOCK_SIZE_M, 2 * BLOCK_SIZE_N), dtype=tl.float32)
            for k0 in range(0, k, BLOCK_SIZE_K):  # past k, m or n the descriptors read zeros
                b_blk = b_desc.load([off_n, 0, k0]).reshape(2 * BLOCK_SIZE_N, BLOCK_SIZE_K)
                acc2 = tl.dot(a_desc.load([off_m, k0]), b_blk.T, acc2)
            g, u = acc2.reshape(BLOCK_SIZE_M, BLOCK_SIZE_N, 2).split()
            if SWAP:
                g, u = u, g
            acc = g / (1.0 + tl.exp(-g)) * u
        else:
            acc = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for k0 in range(0, k, BLOCK_SIZE_K):
                acc = tl.dot(a_desc.load([off_m, k0]), b_desc.load([off_n, k0]).T, acc)
            if EPILOGUE == BIAS_GELU:
                offs_n = off_n + tl.arange(0, BLOCK_SIZE_N)
                v = acc + tl.load(bias_ptr + offs_n, mask=offs_n < n,
                                  other=0.0).to(tl.float32)[None, :]
                u = 0.7978845608028654 * (v + 0.044715 * v * v * v)
                acc = v / (1.0 + tl.exp(-2.0 * u))
        c_desc.store([off_m, off_n], acc.to(tl.bfloat16))  # clipped at m and n


def tma_ready(*tensors: torch.Tensor) -> bool:
    """Whether 2-D bfloat16 `tensors` meet TMA's rules: 16-byte aligned bases, rows a multiple
    of 16 bytes apart (a row of w padded by 5 elements is not)."""
    return all(t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0
               for t in tensors)


def programs(x: torch.Tensor, tiles: int, per_sm: int) -> int:
    """gemm_tma_kernel's program count on x's device: per_sm per SM (4 SMs without a GPU), at
    most one per tile."""
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 4
    return min(per_sm * sms, tiles)


def linear_gelu_triton(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor,
                       y: torch.Tensor) -> None:
    m, k = x.shape
    n = w.shape[0]
    assert w.shape[1] == k and y.shape == (m, n) and b.shape == (n,), \
        f"x {tuple(x.shape)}, w {tuple(w.shape)}, y {tuple(y.shape)}"
    assert x.stride(1) == 1 and w.stride(1) == 1 and y.is_contiguous() and b.is_contiguous(), \
        "rows must be contiguous"
    # Read per call: benchmarks/tune_references.py sets them.
    if m > DECODE_ROWS and tma_ready(x, w, y):
        tiles = triton.cdiv(m, BLOCK_SIZE_M) * triton.cdiv(n, BLOCK_SIZE_N)
        grid = programs(x, tiles, PROGRAMS_PER_SM)
        gemm_tma_kernel[(grid,)](x, w, b, y, m, n, k, x.stride(0), w.stride(0), 0,
                                 EPILOGUE=BIAS_GELU.value, BLOCK_SIZE_M=BLOCK_SIZE_M,
                                 BLOCK_SIZE_N=BLOCK_SIZE_N, BLOCK_SIZE_K=BLOCK_SIZE_K,
                                 GROUP_SIZE_M=GROUP_SIZE_M, PROGRAMS=grid, SWAP=False,
                                 num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return
    if m <= DECODE_ROWS:
        bm, bn, bk, group = DECODE_BLOCK_SIZE_M, DECODE_BLOCK_SIZE_N, DECODE_BLOCK_SIZE_K, 1
        warps, stages = DECODE_NUM_WARPS, DECODE_NUM_STAGES
    else:
        bm, bn, bk, group = BLOCK_SIZE_M, BLOCK_SIZE_N, BLOCK_SIZE_K, GROUP_SIZE_M
        warps, stages = NUM_WARPS, NUM_STAGES
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    linear_gelu_kernel[grid](x, w, b, y, m, n, k, x.stride(0), w.stride(0),
                             BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                             GROUP_SIZE_M=group, EVEN_K=k % bk == 0, num_warps=warps,
                             num_stages=stages)
