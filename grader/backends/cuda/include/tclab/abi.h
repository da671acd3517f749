// What kernel modules and the runtime (tclab/runtime.h) agree on. Bump TCLAB_ABI_VERSION on any
// change here: it is part of every cache key, so stale modules are rebuilt, never mixed.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "vector_types.h"

#define TCLAB_ABI_VERSION 4
// fault_write's value for a fault that is no page fault: a misaligned vector access.
#define TCLAB_FAULT_MISALIGNED 2

// Each CUDA thread runs on a fiber whose stack is TCLAB_STACK_SIZE bytes, aligned to its size.
// The thread's context sits at a fixed offset in that stack, so kernel code finds "its"
// threadIdx by masking the stack pointer: no thread-local lookup, right across switches.
// Layout of one stack: [guard page][stack ... grows down][context][unused] (low to high).
#define TCLAB_STACK_LOG2 18
#define TCLAB_STACK_SIZE (1u << TCLAB_STACK_LOG2)  // 256 KiB of address space, touched lazily
#define TCLAB_STACK_HEADER (16u * 1024u)           // the context's area, at the top

// Where a thread's context sits in its stack, given the stack's (size-aligned) base. It sits
// at the top, with the stack growing down from just below it, so that a thread's context and
// its hottest frames share a page (one TLB entry per thread at each switch). Size-aligned
// stacks would also put every context in the same cache sets, so each stack gets a "colour"
// from its own address: a 64-byte step within the page. Kernel code recomputes the offset.
static inline uintptr_t tclab_ctx_offset(uintptr_t base) {
    return TCLAB_STACK_SIZE - TCLAB_STACK_HEADER + (((base >> TCLAB_STACK_LOG2) & 63u) << 6);
}

// The largest dynamic shared memory a block may ask for: the H200's opt-in limit (227 KiB).
#define TCLAB_MAX_DYN_SMEM (227u * 1024u)

// Warp-level operations, passed to tclab_rt_warp().
enum {
    TCLAB_WARP_SYNC = 0,
    TCLAB_SHFL_IDX,
    TCLAB_SHFL_UP,
    TCLAB_SHFL_DOWN,
    TCLAB_SHFL_XOR,
    TCLAB_BALLOT,
    TCLAB_ANY,
    TCLAB_ALL,
    TCLAB_MATCH_ANY,
    TCLAB_MATCH_ALL,
    TCLAB_REDUCE_ADD,
    TCLAB_REDUCE_MIN,
    TCLAB_REDUCE_MAX,
    TCLAB_REDUCE_UMIN,
    TCLAB_REDUCE_UMAX,
    TCLAB_REDUCE_AND,
    TCLAB_REDUCE_OR,
    TCLAB_REDUCE_XOR,
    TCLAB_WARP_COLLECTIVE,  // value: a tclab_collective*, below (nvcuda::wmma)
};

// Block-wide barrier flavours, passed to tclab_rt_syncthreads().
enum { TCLAB_BAR_PLAIN = 0, TCLAB_BAR_COUNT, TCLAB_BAR_AND, TCLAB_BAR_OR };

// Thread schedules: the order in which the threads of a block run between sync points.
enum { TCLAB_SCHED_FORWARD = 0, TCLAB_SCHED_REVERSE = 1, TCLAB_SCHED_RANDOM = 2 };

// Launch outcome.
enum {
    TCLAB_OK = 0,
    TCLAB_ERR_TRAP = 1,      // assert() or __trap() in the kernel
    TCLAB_ERR_FAULT = 2,     // SIGSEGV/SIGBUS: illegal memory access
    TCLAB_ERR_FPE = 3,       // SIGFPE: integer division by zero
    TCLAB_ERR_DEADLOCK = 4,  // barrier/warp sync that can never complete
    TCLAB_ERR_STACK = 5,     // a thread overflowed its fiber stack
    TCLAB_ERR_INTERNAL = 6,  // the runtime itself failed (out of memory, ...)
    TCLAB_ERR_SYNC = 7,      // a barrier or warp call that is undefined on a GPU
    TCLAB_ERR_USAGE = 8,     // a CUDA API call with arguments CUDA leaves undefined (WMMA ldm)
};

struct tclab_block_info {
    uint3 blockIdx;
    dim3 blockDim;
    dim3 gridDim;
};

struct tclab_thread_ctx {
    uint3 threadIdx;
    const tclab_block_info* block;
};

// A warp-collective operation that the runtime completes once for the whole warp, as the
// hardware does (nvcuda::wmma's *_sync calls, grader/backends/cuda/include/mma.h). Every lane passes its
// own record, on its own stack, to tclab_rt_warp(TCLAB_WARP_COLLECTIVE, mask, record, 0, 32).
// When all the lanes the mask names have arrived, the runtime checks that they wait at the same
// call (same `run`, same line), then calls `run` once with the 32 records (nullptr for lanes
// outside the group). `run` returns TCLAB_OK, or an error status with a message in msg (the
// runtime prefixes the call's name, line and warp) that fails the launch.
struct tclab_collective {
    const char* name;  // what messages call it: "nvcuda::wmma::mma_sync"
    int line;          // kernel.cu line of the call
    int (*run)(struct tclab_collective* const* lanes, unsigned group, char* msg, size_t size);
};

// How Python describes a kernel parameter: kind 'P' pointer, 'i'/'u' integer, 'f' float,
// 'h' __half, 'b' __nv_bfloat16, '?' bool, 'S' struct passed by value. For a pointer,
// pointee/pointee_size describe what it points to ('v' for void), to check array dtypes.
struct tclab_param_info {
    char kind;
    char pointee;
    uint32_t size;
    uint32_t align;
    uint32_t pointee_size;
};

typedef void (*tclab_call_fn)(void* fn, void** args);

struct tclab_kernel_entry {
    const char* name;  // as written in the source (qualified if in a namespace)
    void* fn;          // the kernel itself (its symbol name is found with dladdr)
    tclab_call_fn call;
    const tclab_param_info* params;
    int32_t nparams;
};

// One launch, filled by Python (ctypes mirrors this layout in grader/backends/cuda/runtime.py).
struct tclab_launch {
    tclab_call_fn call;
    void* fn;
    void** args;
    uint32_t grid[3];
    uint32_t block[3];
    uint64_t shared_bytes;
    void* (*dynsmem)(void);   // the module's per-OS-thread dynamic shared memory
    const int64_t* poison;    // (offset from dynsmem, size) pairs: static __shared__ to poison
    int32_t npoison;
    int32_t schedule;
    uint64_t seed;
    int32_t workers;
    // results
    int32_t status;
    int32_t fault_signal;
    int32_t fault_write;      // 1 write, 0 read, -1 unknown, TCLAB_FAULT_MISALIGNED
    uint64_t fault_addr;
    uint32_t err_block[3];
    uint32_t err_thread[3];
    char message[1024];
};

#ifdef __cplusplus
extern "C" {
#endif
// Called by kernel code (defined in the runtime library).
void tclab_rt_syncthreads(void);
int tclab_rt_syncthreads_op(int op, int pred);
uint64_t tclab_rt_warp(int op, unsigned mask, uint64_t value, int arg, int width);
unsigned tclab_rt_activemask(void);
void tclab_rt_line(int line);  // the kernel.cu line of the sync call that follows
void tclab_rt_trap(const char* message) __attribute__((noreturn));
// Ends the launch with `status` (TCLAB_ERR_SYNC, TCLAB_ERR_USAGE) and a message, from kernel code.
void tclab_rt_fail(int status, const char* message) __attribute__((noreturn));
// __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior (per thread).
void tclab_rt_async_copy(void* dst, const void* src, uint32_t bytes, uint32_t zeros);
void tclab_rt_async_commit(void);
void tclab_rt_async_wait(uint32_t prior);
void tclab_rt_assert_fail(const char* expr, const char* file, unsigned line, const char* func)
    __attribute__((noreturn));
#ifdef __cplusplus
}
#endif
