// CUDA C on a CPU: what a kernel written for pycuda's SourceModule needs from nvcc, for g++.
// grader/backends/cuda/compiler.py includes this before the student's source (and our cuda_fp16.h,
// cuda_bf16.h, ... shims make their #includes no-ops). Thread indices, barriers and warp
// intrinsics call into the runtime (tclab/runtime.h), which runs each CUDA thread on a fiber.
#pragma once

// Everything a kernel might #include is included here first: inside pycuda's extern "C" { }
// wrapper a later #include <cmath> would fail, but an include-guarded repeat is a no-op.
#include <assert.h>  // our shim (same directory): a failed assert ends the launch, not Python
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#include "tclab/abi.h"

#define TCLAB_CPU 1  // lets a kernel (or a test) tell this backend from nvcc

// ---------------------------------------------------------------- qualifiers

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
// One copy per block: a block runs start to finish on one OS thread, so a static
// thread_local is exactly "shared by the threads of the block in flight". 32-byte aligned:
// a thread_local array only gets its element's alignment (a __half array can start at an odd
// multiple of 2), and WMMA tiles must start 32-byte aligned, cp.async and float4 16-byte.
#define __shared__ static thread_local __attribute__((aligned(32)))
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __cudart_builtin__

static constexpr int warpSize = 32;

// ---------------------------------------------------------------- thread indices

namespace tclab {

// The current thread's context sits at the base of its (size-aligned) fiber stack.
__attribute__((always_inline)) inline const tclab_thread_ctx* self() {
    uintptr_t sp;
#if defined(__x86_64__)
    asm("movq %%rsp, %0" : "=r"(sp));
#elif defined(__aarch64__)
    asm("mov %0, sp" : "=r"(sp));
#else
    sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
    uintptr_t base = sp & ~static_cast<uintptr_t>(TCLAB_STACK_SIZE - 1);
    return reinterpret_cast<const tclab_thread_ctx*>(base + tclab_ctx_offset(base));
}

inline unsigned lane_id() {
    const tclab_thread_ctx* c = self();
    const dim3& b = c->block->blockDim;
    return (c->threadIdx.x + b.x * (c->threadIdx.y + b.y * c->threadIdx.z)) & 31u;
}

// Dynamic shared memory (extern __shared__ T name[]): one buffer per OS thread, sized for the
// largest opt-in request. compiler.py rewrites each declaration into a pointer to it.
alignas(256) static thread_local unsigned char dyn_smem[TCLAB_MAX_DYN_SMEM];

template <class T>
inline uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes");
    uint64_t b = 0;
    __builtin_memcpy(&b, &v, sizeof(T));
    return b;
}

template <class T>
inline T from_bits(uint64_t b) {
    T v;
    __builtin_memcpy(&v, &b, sizeof(T));
    return v;
}

}  // namespace tclab

#define threadIdx (::tclab::self()->threadIdx)
#define blockIdx (::tclab::self()->block->blockIdx)
#define blockDim (::tclab::self()->block->blockDim)
#define gridDim (::tclab::self()->block->gridDim)
#define TCLAB_DYN_SHARED(T, name) static thread_local T* const name = reinterpret_cast<T*>(::tclab::dyn_smem)

// ---------------------------------------------------------------- synchronisation

inline void __syncthreads() { tclab_rt_syncthreads(); }
inline int __syncthreads_count(int p) { return tclab_rt_syncthreads_op(TCLAB_BAR_COUNT, p); }
inline int __syncthreads_and(int p) { return tclab_rt_syncthreads_op(TCLAB_BAR_AND, p); }
inline int __syncthreads_or(int p) { return tclab_rt_syncthreads_op(TCLAB_BAR_OR, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { tclab_rt_warp(TCLAB_WARP_SYNC, mask, 0, 0, 32); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __nanosleep(unsigned) {}
inline void __trap() { tclab_rt_trap("__trap() called"); }
inline void __brkpt() { tclab_rt_trap("__brkpt() called"); }
#if defined(__x86_64__)
inline long long clock64() { return static_cast<long long>(__builtin_ia32_rdtsc()); }
#else
inline long long clock64() { return static_cast<long long>(clock()); }
#endif

// ---------------------------------------------------------------- warp intrinsics

template <class T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize) {
    return ::tclab::from_bits<T>(tclab_rt_warp(TCLAB_SHFL_IDX, mask, ::tclab::to_bits(var), srcLane, width));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ::tclab::from_bits<T>(
        tclab_rt_warp(TCLAB_SHFL_UP, mask, ::tclab::to_bits(var), static_cast<int>(delta), width));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ::tclab::from_bits<T>(
        tclab_rt_warp(TCLAB_SHFL_DOWN, mask, ::tclab::to_bits(var), static_cast<int>(delta), width));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize) {
    return ::tclab::from_bits<T>(tclab_rt_warp(TCLAB_SHFL_XOR, mask, ::tclab::to_bits(var), laneMask, width));
}
inline unsigned __ballot_sync(unsigned mask, int pred) {
    return static_cast<unsigned>(tclab_rt_warp(TCLAB_BALLOT, mask, pred != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int pred) {
    return static_cast<int>(tclab_rt_warp(TCLAB_ANY, mask, pred != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int pred) {
    return static_cast<int>(tclab_rt_warp(TCLAB_ALL, mask, pred != 0, 0, 32));
}
// Lanes of the warp that have not exited (fibers have no notion of "converged").
inline unsigned __activemask() { return tclab_rt_activemask(); }
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value) {
    return static_cast<unsigned>(tclab_rt_warp(TCLAB_MATCH_ANY, mask, ::tclab::to_bits(value), 0, 32));
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int* pred) {
    unsigned r = static_cast<unsigned>(tclab_rt_warp(TCLAB_MATCH_ALL, mask, ::tclab::to_bits(value), 0, 32));
    *pred = r != 0;
    return r;
}
#define TCLAB_REDUCE(name, T, op)                                                              \
    inline T name(unsigned mask, T value) {                                                    \
        return static_cast<T>(tclab_rt_warp(op, mask, static_cast<uint32_t>(value), 0, 32));   \
    }
TCLAB_REDUCE(__reduce_add_sync, unsigned, TCLAB_REDUCE_ADD)
TCLAB_REDUCE(__reduce_add_sync, int, TCLAB_REDUCE_ADD)
TCLAB_REDUCE(__reduce_min_sync, unsigned, TCLAB_REDUCE_UMIN)
TCLAB_REDUCE(__reduce_min_sync, int, TCLAB_REDUCE_MIN)
TCLAB_REDUCE(__reduce_max_sync, unsigned, TCLAB_REDUCE_UMAX)
TCLAB_REDUCE(__reduce_max_sync, int, TCLAB_REDUCE_MAX)
TCLAB_REDUCE(__reduce_and_sync, unsigned, TCLAB_REDUCE_AND)
TCLAB_REDUCE(__reduce_or_sync, unsigned, TCLAB_REDUCE_OR)
TCLAB_REDUCE(__reduce_xor_sync, unsigned, TCLAB_REDUCE_XOR)
#undef TCLAB_REDUCE

// Each barrier and warp call tells the runtime its kernel.cu line first, so a divergent
// __syncthreads() or a shuffle naming absent lanes is reported where it is written. (Defined
// after the functions: a macro does not expand inside its own expansion.)
#define TCLAB_AT_LINE(call) (tclab_rt_line(__LINE__), call)
#define __syncthreads() TCLAB_AT_LINE(__syncthreads())
#define __syncthreads_count(p) TCLAB_AT_LINE(__syncthreads_count(p))
#define __syncthreads_and(p) TCLAB_AT_LINE(__syncthreads_and(p))
#define __syncthreads_or(p) TCLAB_AT_LINE(__syncthreads_or(p))
#define __syncwarp(...) TCLAB_AT_LINE(__syncwarp(__VA_ARGS__))
#define __shfl_sync(...) TCLAB_AT_LINE(__shfl_sync(__VA_ARGS__))
#define __shfl_up_sync(...) TCLAB_AT_LINE(__shfl_up_sync(__VA_ARGS__))
#define __shfl_down_sync(...) TCLAB_AT_LINE(__shfl_down_sync(__VA_ARGS__))
#define __shfl_xor_sync(...) TCLAB_AT_LINE(__shfl_xor_sync(__VA_ARGS__))
#define __ballot_sync(...) TCLAB_AT_LINE(__ballot_sync(__VA_ARGS__))
#define __any_sync(...) TCLAB_AT_LINE(__any_sync(__VA_ARGS__))
#define __all_sync(...) TCLAB_AT_LINE(__all_sync(__VA_ARGS__))

// ---------------------------------------------------------------- atomics
// Blocks run on different OS threads, so these are real hardware atomics. Relaxed ordering,
// as in CUDA; __threadfence() is the fence.

#define TCLAB_ATOMIC_INT(T)                                                                    \
    inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_RELAXED); }       \
    inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_RELAXED); }       \
    inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_RELAXED); }     \
    inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_RELAXED); }       \
    inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_RELAXED); }         \
    inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_RELAXED); }       \
    inline T atomicCAS(T* a, T cmp, T v) {                                                     \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);    \
        return cmp;                                                                            \
    }                                                                                          \
    inline T atomicMin(T* a, T v) {                                                            \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                          \
        while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED,     \
                                                       __ATOMIC_RELAXED)) {                    \
        }                                                                                      \
        return old;                                                                            \
    }                                                                                          \
    inline T atomicMax(T* a, T v) {                                                            \
        T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                          \
        while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_RELAXED,     \
                                                       __ATOMIC_RELAXED)) {                    \
        }                                                                                      \
        return old;                                                                            \
    }
TCLAB_ATOMIC_INT(int)
TCLAB_ATOMIC_INT(unsigned int)
TCLAB_ATOMIC_INT(long long)
TCLAB_ATOMIC_INT(unsigned long long)
#undef TCLAB_ATOMIC_INT

inline unsigned short atomicCAS(unsigned short* a, unsigned short cmp, unsigned short v) {
    __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    return cmp;
}

inline unsigned atomicInc(unsigned* a, unsigned limit) {
    unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, old >= limit ? 0u : old + 1u, true,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

inline unsigned atomicDec(unsigned* a, unsigned limit) {
    unsigned old = __atomic_load_n(a, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(a, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                        true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    return old;
}

// Floating-point atomics: a compare-and-swap loop on the bit pattern. (atomicMin/Max on
// float are not CUDA built-ins; they are provided because students write them by hand.)
#define TCLAB_ATOMIC_FLOAT(T, U, name, expr)                                                   \
    inline T name(T* a, T v) {                                                                 \
        U* p = reinterpret_cast<U*>(a);                                                        \
        U old = __atomic_load_n(p, __ATOMIC_RELAXED);                                          \
        for (;;) {                                                                             \
            T cur = ::tclab::from_bits<T>(old);                                                \
            T next = (expr);                                                                   \
            U want = static_cast<U>(::tclab::to_bits(next));                                   \
            if (__atomic_compare_exchange_n(p, &old, want, true, __ATOMIC_RELAXED,             \
                                            __ATOMIC_RELAXED))                                 \
                return cur;                                                                    \
        }                                                                                      \
    }
TCLAB_ATOMIC_FLOAT(float, uint32_t, atomicAdd, cur + v)
TCLAB_ATOMIC_FLOAT(double, uint64_t, atomicAdd, cur + v)
TCLAB_ATOMIC_FLOAT(float, uint32_t, atomicMax, (v > cur ? v : cur))
TCLAB_ATOMIC_FLOAT(float, uint32_t, atomicMin, (v < cur ? v : cur))
TCLAB_ATOMIC_FLOAT(double, uint64_t, atomicMax, (v > cur ? v : cur))
TCLAB_ATOMIC_FLOAT(double, uint64_t, atomicMin, (v < cur ? v : cur))
#undef TCLAB_ATOMIC_FLOAT

inline float atomicExch(float* a, float v) {
    uint32_t old = __atomic_exchange_n(reinterpret_cast<uint32_t*>(a),
                                       static_cast<uint32_t>(::tclab::to_bits(v)), __ATOMIC_RELAXED);
    return ::tclab::from_bits<float>(old);
}

// Scoped variants (sm_60+) behave like the device-wide ones here.
#define TCLAB_SCOPED(name)                                                                     \
    template <class... A>                                                                      \
    inline auto name##_block(A... a) { return name(a...); }                                    \
    template <class... A>                                                                      \
    inline auto name##_system(A... a) { return name(a...); }
TCLAB_SCOPED(atomicAdd)
TCLAB_SCOPED(atomicSub)
TCLAB_SCOPED(atomicExch)
TCLAB_SCOPED(atomicMin)
TCLAB_SCOPED(atomicMax)
TCLAB_SCOPED(atomicCAS)
TCLAB_SCOPED(atomicAnd)
TCLAB_SCOPED(atomicOr)
TCLAB_SCOPED(atomicXor)
#undef TCLAB_SCOPED

#include "tclab/cuda_math.h"
#include "tclab/cuda_half.h"

// ---------------------------------------------------------------- kernel registry
// compiler.py appends one TCLAB_KERNEL(...) per __global__ function; the compiler deduces the
// parameter types, so Python learns each kernel's signature without parsing C++.

namespace tclab {

template <class T>
constexpr char kind_of() {
    if constexpr (std::is_void_v<T>)
        return 'v';
    else if constexpr (std::is_pointer_v<T>)
        return 'P';
    else if constexpr (std::is_same_v<T, __half>)
        return 'h';
    else if constexpr (std::is_same_v<T, __nv_bfloat16>)
        return 'b';
    else if constexpr (std::is_same_v<T, bool>)
        return '?';
    else if constexpr (std::is_floating_point_v<T>)
        return 'f';
    else if constexpr (std::is_integral_v<T>)
        return std::is_signed_v<T> ? 'i' : 'u';
    else if constexpr (std::is_enum_v<T>)
        return 'i';
    else
        return 'S';
}

template <class T>
constexpr uint32_t size_of() {
    if constexpr (std::is_void_v<T>)
        return 0;
    else
        return sizeof(T);
}

template <class T>
constexpr tclab_param_info param_info() {
    using P = std::remove_cv_t<std::remove_pointer_t<T>>;
    if constexpr (std::is_pointer_v<T>)
        return {'P', kind_of<P>(), sizeof(T), alignof(T), size_of<P>()};
    else
        return {kind_of<T>(), 0, sizeof(T), alignof(T), 0};
}

template <class F>
struct Launcher;

template <class... A>
struct Launcher<void (*)(A...)> {
    template <std::size_t... I>
    static void invoke(void* fn, void** args, std::index_sequence<I...>) {
        reinterpret_cast<void (*)(A...)>(fn)(*static_cast<A*>(args[I])...);
    }
    static void call(void* fn, void** args) { invoke(fn, args, std::index_sequence_for<A...>{}); }
    static constexpr tclab_param_info params[sizeof...(A) + 1] = {param_info<A>()..., {}};
};

template <class F>
constexpr tclab_kernel_entry entry(const char* name, F fn) {
    constexpr int32_t n = sizeof(Launcher<F>::params) / sizeof(tclab_param_info) - 1;
    return {name, reinterpret_cast<void*>(fn), &Launcher<F>::call, Launcher<F>::params, n};
}

}  // namespace tclab

