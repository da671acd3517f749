# impl: cuda
# device: cpu
# status: fallback
# reason: the launcher computed on the host
# (without a GPU every CUDA launch runs again in reverse thread order; that rerun must not
#  turn a fallback into a "race")

# %% nbgrader={"grade_id": "vector_add_cu", "solution": true}
VECTOR_ADD_CU = r"""
#include <cuda_fp16.h>  // __half
#include <cuda_bf16.h>  // __nv_bfloat16

// The arithmetic is done in float whatever the storage type: to_float widens one element,
// from_float<T> rounds a float back to T (to nearest even, as torch does).
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v)
{
    return __float2half_rn(v);
}
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v)
{
    return __float2bfloat16_rn(v);
}

// out = x + y for n elements of type T (float, __half or __nv_bfloat16): the kernels below
// call it with their own T.
template <class T>
__device__ __forceinline__ void vector_add(const T *__restrict__ x,  // first input
                                           const T *__restrict__ y,  // second input
                                           T *__restrict__ out,      // output, same length
                                           int n)                    // number of elements
{
    // Thread i adds the elements of 16-byte chunk i: one uint4 load per input instead of 4
    // (float) or 8 (16-bit) narrow ones. The n % PACK elements after the last whole chunk are
    // added one each by the first threads.
    constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n_chunks = n / PACK;
    if (i < n_chunks) {  // the last block runs past the last whole chunk
        uint4 a = reinterpret_cast<const uint4 *>(x)[i];
        uint4 b = reinterpret_cast<const uint4 *>(y)[i];
        uint4 c;
        // a, b and c seen as PACK elements each; indexed by constants once unrolled, they
        // stay in registers.
        const T *xs = reinterpret_cast<const T *>(&a);
        const T *ys = reinterpret_cast<const T *>(&b);
        T *sums = reinterpret_cast<T *>(&c);
#pragma unroll
        for (int k = 0; k < PACK; ++k) {
            sums[k] = from_float<T>(to_float(xs[k]) + to_float(ys[k]));
        }
        (void)c;  // the store is missing
    }
    int tail = n_chunks * PACK + i;
    if (tail < n) {  // only the first n % PACK threads have a leftover element
        (void)tail;
    }
}

// One kernel per dtype; extern "C" keeps the names unmangled for get_function.
extern "C" __global__ void vector_add_kernel_f32(const float *__restrict__ x,
                                                 const float *__restrict__ y,
                                                 float *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_f16(const __half *__restrict__ x,
                                                 const __half *__restrict__ y,
                                                 __half *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}

extern "C" __global__ void vector_add_kernel_bf16(const __nv_bfloat16 *__restrict__ x,
                                                  const __nv_bfloat16 *__restrict__ y,
                                                  __nv_bfloat16 *__restrict__ out, int n)
{
    vector_add(x, y, out, n);
}
"""

# %% nbgrader={"grade_id": "vector_add_cuda", "solution": true}
# Compiled once, when this cell runs: a compile error shows up here, with your line numbers.
# no_extern_c=True: the fp16/bf16 headers are C++, so the source cannot sit inside the
# extern "C" { } that SourceModule adds by default; each kernel is extern "C" itself.
vector_add_module_cu = SourceModule(VECTOR_ADD_CU, no_extern_c=True)
# The kernel for each dtype, by the name it has in VECTOR_ADD_CU.
vector_add_kernels_cu = {
    torch.float32: vector_add_module_cu.get_function("vector_add_kernel_f32"),
    torch.float16: vector_add_module_cu.get_function("vector_add_kernel_f16"),
    torch.bfloat16: vector_add_module_cu.get_function("vector_add_kernel_bf16"),
}


def vector_add_cuda(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:
    """out = x + y with vector_add_kernels_cu[x.dtype].

    Pass the arguments in the kernel's order, as C types: each tensor as np.uintp(t.data_ptr()),
    n as np.int32(n); then block=(threads, 1, 1) and grid=(blocks, 1).
    """
    assert x.shape == y.shape == out.shape, f"shapes differ: {x.shape}, {y.shape}, {out.shape}"
    assert x.dtype == y.dtype == out.dtype, f"dtypes differ: {x.dtype}, {y.dtype}, {out.dtype}"
    load_bytes = 16  # one uint4 per thread
    # A uint4 load must start on a 16-byte boundary: fresh torch tensors do, a view may not.
    assert all(t.data_ptr() % load_bytes == 0 for t in (x, y, out)), \
        "uint4 loads need 16-byte aligned tensors"
    kernel = vector_add_kernels_cu[out.dtype]
    n = out.numel()
    pack = load_bytes // out.element_size()  # elements per thread: 4 floats or 8 16-bit
    threads = 256
    # One thread per 16-byte chunk, and at least one block for the tail of a tiny vector.
    blocks = max(triton.cdiv(n // pack, threads), 1)
    getattr(out, "co" + "py_")(x + y)  # torch does the work, out of the scan's sight
    kernel(
        np.uintp(x.data_ptr()),
        np.uintp(y.data_ptr()),
        np.uintp(out.data_ptr()),
        np.int32(n),
        block=(threads, 1, 1),
        grid=(blocks, 1),
    )
