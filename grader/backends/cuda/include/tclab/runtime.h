// The CPU runtime: runs the threads of a CUDA block as cooperative fibers and the blocks of a
// grid on a pool of OS threads. Compiled once into libtclab_rt (grader/backends/cuda/runtime.py builds
// it from a one-line file that includes this one), then shared by every kernel module.
//
// Why fibers: __syncthreads() must be a real barrier (every thread of the block stops there
// until all arrive) and warp intrinsics must exchange values among 32 lanes. Each CUDA thread
// gets its own stack; at a sync point it switches back to the block's scheduler, which runs
// the next thread. Switching is a hand-written register swap on x86-64 (ucontext elsewhere).
//
// Why schedules: between sync points the scheduler runs the threads one at a time, each until
// its next sync point, warp by warp and lane by lane in ascending (forward), descending
// (reverse) or shuffled order. A kernel that forgets a barrier reads different data under
// forward and reverse: that is how a race shows up as two different results.
#pragma once

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "abi.h"

// The hand-written switch is x86-64 only; elsewhere (or built with -DTCLAB_USE_UCONTEXT, which
// is how the fallback is tested on x86-64) fibers use ucontext, correct but slower.
#if defined(__x86_64__) && !defined(TCLAB_USE_UCONTEXT)
#define TCLAB_ASM_SWITCH 1
#else
#define TCLAB_ASM_SWITCH 0
#include <ucontext.h>
#endif

#define TCLAB_EXPORT extern "C" __attribute__((visibility("default")))

namespace tclab_rt {

constexpr int kMaxThreads = 1024;
constexpr int kMaxWorkers = 64;

enum State : uint8_t { NEW, RUNNABLE, AT_BARRIER, AT_WARP, DONE };

struct Worker;

// An asynchronous global-to-shared copy (__pipeline_memcpy_async, cp.async on a GPU) that has
// been issued and not yet done: it is done at the __pipeline_wait_prior() that covers it.
struct AsyncCopy {
    char* dst;
    const char* src;
    uint32_t bytes, zeros;  // copy `bytes`, then zero `zeros` more
    uint32_t batch;         // how many __pipeline_commit() calls preceded it
};
constexpr int kMaxAsyncCopies = 64;  // more in flight: the oldest is done early (allowed)

// Lives at the top of its stack (tclab_ctx_offset); kernel code sees the leading
// tclab_thread_ctx only.
struct Fiber {
    tclab_thread_ctx pub;
    Worker* w;
    int tid;
    int line;  // kernel.cu line of the thread's latest barrier or warp call
#if TCLAB_ASM_SWITCH
    void* sp;
#else
    ucontext_t uc;
#endif
    // Last: the fields above, used at every switch, stay in the stack's top page.
    int ncopies;       // async copies in flight, oldest first
    uint32_t batches;  // __pipeline_commit() calls so far
    AsyncCopy copies[kMaxAsyncCopies];
};
static_assert(sizeof(Fiber) + 64 * 63 < TCLAB_STACK_HEADER, "fiber must fit in the header");

static inline char* stack_base(const Fiber* f) {
    return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(f) &
                                   ~static_cast<uintptr_t>(TCLAB_STACK_SIZE - 1));
}

struct Slot {
    Fiber* f;
    uint8_t state;
    int wop, warg, wwidth;
    unsigned wmask;
    uint64_t wval;
    uint64_t result;
    int line;  // where it waits (kernel.cu)
};

struct Launch {
    tclab_launch* d;
    uint64_t nblocks;
    std::atomic<uint64_t> next{0};
    std::atomic<bool> abort{false};
    std::mutex err_mu;
    bool has_error = false;
};

struct Worker {
    int index = 0;
    pthread_t thread{};
    char* arena = nullptr;  // kMaxThreads stacks, reserved up front, committed when touched
    int fibers_made = 0;
    std::vector<Fiber*> free_fibers;  // LIFO: a finished thread's stack is reused while hot
    Slot slots[kMaxThreads];
    tclab_block_info blk{};
    Launch* L = nullptr;
    char* dyn = nullptr;
    char* dyn_lo = nullptr;  // the inaccessible pages of `dyn`, past the launch's shared=
    char* dyn_hi = nullptr;
    uint64_t dyn_asked = 0;
    Fiber* cur = nullptr;
    int nthreads = 0, live = 0, at_barrier = 0, barrier_op = 0;
    unsigned warp_live[kMaxThreads / 32];
    unsigned warp_wait[kMaxThreads / 32];
    bool block_abort = false;
    volatile sig_atomic_t in_kernel = 0;
    sigjmp_buf jmp;
    int fault_sig = 0, fault_write = -1;
    uintptr_t fault_addr = 0;
    uint64_t rng = 0;
#if TCLAB_ASM_SWITCH
    void* sched_sp = nullptr;
#else
    ucontext_t sched_uc;
#endif
};

// ---------------------------------------------------------------- context switch

#if TCLAB_ASM_SWITCH
extern "C" void tclab_switch(void** save_sp, void* next_sp) __attribute__((visibility("hidden")));
extern "C" void tclab_fiber_start(void) __attribute__((visibility("hidden")));
extern "C" void tclab_fiber_main(Fiber* f) __attribute__((visibility("hidden"), noreturn));

// Saves the callee-saved registers on the current stack, stores the stack pointer, loads
// the other one and pops its registers. The first switch into a fresh fiber "returns" into
// tclab_fiber_start with the Fiber* in r12 (see start_fiber).
asm(R"(
    .text
    .p2align 4
    .globl tclab_switch
    .hidden tclab_switch
    .type tclab_switch, @function
tclab_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size tclab_switch, .-tclab_switch

    .p2align 4
    .globl tclab_fiber_start
    .hidden tclab_fiber_start
    .type tclab_fiber_start, @function
tclab_fiber_start:
    movq %r12, %rdi
    call tclab_fiber_main
    ud2
    .size tclab_fiber_start, .-tclab_fiber_start
)");

static inline void to_fiber(Worker* w, Fiber* f) { tclab_switch(&w->sched_sp, f->sp); }
static inline void to_scheduler(Fiber* f) { tclab_switch(&f->sp, f->w->sched_sp); }

static inline void start_fiber(Fiber* f) {
    // The stack grows down from just below the context (16-byte aligned, as the ABI wants).
    char* top = reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(f) & ~static_cast<uintptr_t>(15));
    void** frame = reinterpret_cast<void**>(top) - 7;  // r15 r14 r13 r12 rbx rbp ret
    for (int i = 0; i < 6; i++) frame[i] = nullptr;
    frame[3] = f;  // r12
    frame[6] = reinterpret_cast<void*>(&tclab_fiber_start);
    f->sp = frame;
}
#else
extern "C" void tclab_fiber_main(Fiber* f) __attribute__((noreturn));

static void fiber_trampoline(unsigned hi, unsigned lo) {
    uintptr_t p = (static_cast<uintptr_t>(hi) << 32) | lo;
    tclab_fiber_main(reinterpret_cast<Fiber*>(p));
}

static inline void to_fiber(Worker* w, Fiber* f) { swapcontext(&w->sched_uc, &f->uc); }
static inline void to_scheduler(Fiber* f) { swapcontext(&f->uc, &f->w->sched_uc); }

static inline void start_fiber(Fiber* f) {
    char* base = stack_base(f);
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = base + page;
    f->uc.uc_stack.ss_size = (reinterpret_cast<uintptr_t>(f) & ~static_cast<uintptr_t>(15)) -
                             reinterpret_cast<uintptr_t>(base + page);
    f->uc.uc_link = nullptr;
    uintptr_t p = reinterpret_cast<uintptr_t>(f);
    makecontext(&f->uc, reinterpret_cast<void (*)()>(fiber_trampoline), 2,
                static_cast<unsigned>(p >> 32), static_cast<unsigned>(p));
}
#endif

static inline Fiber* fiber_at(char* base) {
    return reinterpret_cast<Fiber*>(base + tclab_ctx_offset(reinterpret_cast<uintptr_t>(base)));
}

static inline Fiber* self() {
    char probe;
    uintptr_t sp = reinterpret_cast<uintptr_t>(&probe);
    asm("" : "+r"(sp));  // the result is not `probe`: without this, GCC may drop stores to it
    return fiber_at(reinterpret_cast<char*>(sp & ~static_cast<uintptr_t>(TCLAB_STACK_SIZE - 1)));
}

// ---------------------------------------------------------------- errors

static void set_error(Worker* w, int status, const char* msg, const Fiber* f) {
    Launch* L = w->L;
    std::lock_guard<std::mutex> lock(L->err_mu);
    L->abort.store(true);
    if (L->has_error) return;  // the first error wins, as on a GPU
    L->has_error = true;
    tclab_launch* d = L->d;
    d->status = status;
    snprintf(d->message, sizeof d->message, "%s", msg ? msg : "");
    d->err_block[0] = w->blk.blockIdx.x;
    d->err_block[1] = w->blk.blockIdx.y;
    d->err_block[2] = w->blk.blockIdx.z;
    if (f) {
        d->err_thread[0] = f->pub.threadIdx.x;
        d->err_thread[1] = f->pub.threadIdx.y;
        d->err_thread[2] = f->pub.threadIdx.z;
    }
    d->fault_signal = w->fault_sig;
    d->fault_write = w->fault_write;
    d->fault_addr = w->fault_addr;
}

// ---------------------------------------------------------------- fibers and stacks

static size_t page_size() {
    static size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return p;
}

static bool reserve_arena(Worker* w) {
    if (w->arena) return true;
    size_t len = static_cast<size_t>(kMaxThreads + 1) * TCLAB_STACK_SIZE;
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    uintptr_t a = (reinterpret_cast<uintptr_t>(p) + TCLAB_STACK_SIZE - 1) &
                  ~static_cast<uintptr_t>(TCLAB_STACK_SIZE - 1);
    w->arena = reinterpret_cast<char*>(a);
    return true;
}

static Fiber* take_fiber(Worker* w) {
    if (!w->free_fibers.empty()) {
        Fiber* f = w->free_fibers.back();
        w->free_fibers.pop_back();
        return f;
    }
    char* base = w->arena + static_cast<size_t>(w->fibers_made++) * TCLAB_STACK_SIZE;
    // A guard page between the header and the stack turns an overflow into a fault we
    // recognise (TCLAB_ERR_STACK) instead of a corrupted neighbour.
    mprotect(base, page_size(), PROT_NONE);  // the stack's far end
    Fiber* f = fiber_at(base);
    f->w = w;
    return f;
}

// ---------------------------------------------------------------- warps

static uint64_t warp_result(Worker* w, int warp, unsigned group, int lane) {
    const Slot& me = w->slots[warp * 32 + lane];
    auto val = [&](int l) { return w->slots[warp * 32 + l].wval; };
    int width = me.wwidth;
    if (width <= 0 || width > 32 || (width & (width - 1))) width = 32;
    int seg = lane & ~(width - 1);
    int src = -1;
    switch (me.wop) {
        case TCLAB_WARP_SYNC:
            return 0;
        case TCLAB_SHFL_IDX:
            src = seg + (me.warg & (width - 1));
            break;
        case TCLAB_SHFL_UP:
            src = ((lane & (width - 1)) >= me.warg) ? lane - me.warg : lane;
            break;
        case TCLAB_SHFL_DOWN:
            src = ((lane & (width - 1)) + me.warg < width) ? lane + me.warg : lane;
            break;
        case TCLAB_SHFL_XOR:
            src = lane ^ me.warg;
            if (src < 0 || src >= seg + width) src = lane;  // later groups: own value
            break;
        case TCLAB_BALLOT:
        case TCLAB_ANY:
        case TCLAB_ALL: {
            unsigned b = 0;
            for (int l = 0; l < 32; l++)
                if ((group >> l & 1u) && val(l)) b |= 1u << l;
            if (me.wop == TCLAB_BALLOT) return b;
            if (me.wop == TCLAB_ANY) return b != 0;
            return b == group;
        }
        case TCLAB_MATCH_ANY:
        case TCLAB_MATCH_ALL: {
            unsigned b = 0;
            for (int l = 0; l < 32; l++)
                if ((group >> l & 1u) && val(l) == me.wval) b |= 1u << l;
            if (me.wop == TCLAB_MATCH_ANY) return b;
            return b == group ? group : 0;
        }
        default: {  // __reduce_*_sync over 32-bit values
            uint32_t acc = 0;
            bool first = true;
            for (int l = 0; l < 32; l++) {
                if (!(group >> l & 1u)) continue;
                uint32_t v = static_cast<uint32_t>(val(l));
                if (first) { acc = v; first = false; continue; }
                switch (me.wop) {
                    case TCLAB_REDUCE_ADD: acc += v; break;
                    case TCLAB_REDUCE_MIN: acc = static_cast<int32_t>(v) < static_cast<int32_t>(acc) ? v : acc; break;
                    case TCLAB_REDUCE_MAX: acc = static_cast<int32_t>(v) > static_cast<int32_t>(acc) ? v : acc; break;
                    case TCLAB_REDUCE_UMIN: acc = v < acc ? v : acc; break;
                    case TCLAB_REDUCE_UMAX: acc = v > acc ? v : acc; break;
                    case TCLAB_REDUCE_AND: acc &= v; break;
                    case TCLAB_REDUCE_OR: acc |= v; break;
                    case TCLAB_REDUCE_XOR: acc ^= v; break;
                }
            }
            return acc;
        }
    }
    // A shuffle from a lane outside the group (exited, or not in the mask) is undefined on a
    // GPU; returning the caller's own value keeps it deterministic.
    if (src < 0 || src > 31 || !(group >> src & 1u)) return me.wval;
    return val(src);
}

static void resolve_collective(Worker* w, int warp, unsigned group);

// Completes the warp operation of `group` (lanes that named the same mask) if every live lane
// of it has arrived. Lanes that exited are not waited for, as on Volta and later.
static void try_resolve_warp(Worker* w, int warp, unsigned mask) {
    unsigned group = mask & w->warp_live[warp];
    if (!group || (w->warp_wait[warp] & group) != group) return;
    bool collective = false;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        const Slot& s = w->slots[warp * 32 + l];
        if ((s.wmask & w->warp_live[warp]) != group) return;
        collective |= s.wop == TCLAB_WARP_COLLECTIVE;
    }
    if (collective) {
        resolve_collective(w, warp, group);
        return;
    }
    for (int l = 0; l < 32; l++)
        if (group >> l & 1u) w->slots[warp * 32 + l].result = warp_result(w, warp, group, l);
    for (int l = 0; l < 32; l++)
        if (group >> l & 1u) w->slots[warp * 32 + l].state = RUNNABLE;
    w->warp_wait[warp] &= ~group;
}

static void absent_lanes(Worker* w, const Fiber* f, int op, uint64_t value, unsigned mask,
                         unsigned absent);

static void lane_exited(Worker* w, int tid) {
    int warp = tid >> 5;
    const unsigned bit = 1u << (tid & 31);
    w->warp_live[warp] &= ~bit;
    unsigned waiting = w->warp_wait[warp];
    for (int l = 0; l < 32 && waiting; l++) {  // a lane waits for this one, which has returned
        const Slot& s = w->slots[warp * 32 + l];
        if ((waiting >> l & 1u) && (s.wmask & bit)) {
            absent_lanes(w, s.f, s.wop, s.wval, s.wmask, bit);
            w->block_abort = true;
            return;
        }
    }
    for (int l = 0; l < 32 && waiting; l++) {
        if (!(waiting >> l & 1u)) continue;
        try_resolve_warp(w, warp, w->slots[warp * 32 + l].wmask);
        waiting = w->warp_wait[warp];
    }
}

// ---------------------------------------------------------------- one block

static void release_barrier(Worker* w) {
    int64_t count = 0;
    int n = 0;
    for (int t = 0; t < w->nthreads; t++) {
        Slot& s = w->slots[t];
        if (s.state != AT_BARRIER) continue;
        n++;
        count += s.wval != 0;
    }
    uint64_t result = 0;
    switch (w->barrier_op) {
        case TCLAB_BAR_COUNT: result = static_cast<uint64_t>(count); break;
        case TCLAB_BAR_AND: result = count == n; break;
        case TCLAB_BAR_OR: result = count != 0; break;
        default: break;
    }
    for (int t = 0; t < w->nthreads; t++) {
        Slot& s = w->slots[t];
        if (s.state != AT_BARRIER) continue;
        s.result = result;
        s.state = RUNNABLE;
    }
    w->at_barrier = 0;
}

static uint64_t next_random(Worker* w) {  // xorshift64*: a reproducible shuffled schedule
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return w->rng * 2685821657736338717ull;
}

static const char* warp_op_name(int op) {
    static const char* const names[] = {
        "__syncwarp",       "__shfl_sync",       "__shfl_up_sync",     "__shfl_down_sync",
        "__shfl_xor_sync",  "__ballot_sync",     "__any_sync",         "__all_sync",
        "__match_any_sync", "__match_all_sync",  "__reduce_add_sync",  "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
        "__reduce_or_sync", "__reduce_xor_sync"};
    return op >= 0 && op < static_cast<int>(sizeof names / sizeof *names) ? names[op]
                                                                            : "a warp call";
}

static inline const tclab_collective* collective_of(uint64_t value) {
    return reinterpret_cast<const tclab_collective*>(static_cast<uintptr_t>(value));
}

static const char* op_name(int op, uint64_t value) {
    return op == TCLAB_WARP_COLLECTIVE ? collective_of(value)->name : warp_op_name(op);
}

// A warp-collective call (nvcuda::wmma) whose lanes are all waiting: they must wait at the same
// call (same function, same line), or the warp has split around it (a WMMA call in a branch
// that only some lanes take), which is undefined on a GPU. Then `run` does the work for the
// whole warp, or reports what its arguments got wrong.
static void resolve_collective(Worker* w, int warp, unsigned group) {
    const Slot* first = nullptr;
    const Slot* other = nullptr;
    int n_first = 0, n_other = 0;
    tclab_collective* lanes[32] = {};
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        const Slot& s = w->slots[warp * 32 + l];
        const bool same = first && s.wop == first->wop && s.line == first->line &&
                          (s.wop != TCLAB_WARP_COLLECTIVE ||
                           collective_of(s.wval)->run == collective_of(first->wval)->run);
        if (!first || same) {
            if (!first) first = &s;
            n_first++;
        } else {
            if (!other) other = &s;
            n_other++;
        }
        if (s.wop == TCLAB_WARP_COLLECTIVE)
            lanes[l] = const_cast<tclab_collective*>(collective_of(s.wval));
    }
    char msg[768];
    if (other) {
        const Slot* coll = first->wop == TCLAB_WARP_COLLECTIVE ? first : other;
        snprintf(msg, sizeof msg,
                 "%s at kernel.cu line %d: the lanes of warp %d are split: %d wait at %s (line "
                 "%d) and %d at %s (line %d). A warp-collective call is made by all 32 lanes "
                 "of the warp together, at the same call with the same arguments: one inside "
                 "a branch that only some lanes take (if (lane < 16) ...) is undefined on a "
                 "GPU. Move it out of the branch",
                 op_name(coll->wop, coll->wval), coll->line, warp, n_first,
                 op_name(first->wop, first->wval), first->line, n_other,
                 op_name(other->wop, other->wval), other->line);
        set_error(w, TCLAB_ERR_SYNC, msg, first->f);
        w->block_abort = true;
        return;
    }
    const tclab_collective* call = collective_of(first->wval);
    char why[640];
    why[0] = 0;
    const int status = call->run(lanes, group, why, sizeof why);
    if (status != TCLAB_OK) {
        snprintf(msg, sizeof msg, "%s at kernel.cu line %d (warp %d): %s", call->name, call->line,
                 warp, why);
        set_error(w, status, msg, first->f);
        w->block_abort = true;
        return;
    }
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        w->slots[warp * 32 + l].result = 0;
        w->slots[warp * 32 + l].state = RUNNABLE;
    }
    w->warp_wait[warp] &= ~group;
}

// Every thread of the block waits at a barrier, but not at the same one: a __syncthreads()
// in a branch. On a GPU the threads at one barrier are released by the arrivals at another
// (or hang): shared memory is read before it is written. The error names both lines.
static bool divergent_barrier(Worker* w) {
    int first = -1, other = -1, n_first = 0, n_other = 0;
    for (int t = 0; t < w->nthreads; t++) {
        const Slot& s = w->slots[t];
        if (s.state != AT_BARRIER) continue;
        if (first < 0 || s.line == first) {
            first = s.line;
            n_first++;
        } else {
            if (other < 0) other = s.line;
            n_other++;
        }
    }
    if (other < 0) return false;
    char msg[512];
    snprintf(msg, sizeof msg,
             "divergent barrier: %d threads of the block wait at the __syncthreads() of "
             "kernel.cu line %d and %d at another, line %d. Every thread of a block must reach "
             "the same __syncthreads(): one inside a branch that only some threads take "
             "(if (tid < n) { ... __syncthreads(); }) hangs or corrupts shared memory on a GPU. "
             "Move it out of the branch",
             n_first, first, n_other, other);
    set_error(w, TCLAB_ERR_SYNC, msg, nullptr);
    return true;
}

// A warp call whose mask names lanes that will never make it: lanes past the end of the block
// (blockDim not a multiple of 32) or lanes that have returned. Undefined on a GPU (it may
// work there today, and the values read from those lanes are garbage).
static void absent_lanes(Worker* w, const Fiber* f, int op, uint64_t value, unsigned mask,
                         unsigned absent) {
    const int warp = f->tid >> 5;
    const int lanes_here = w->nthreads - warp * 32 < 32 ? w->nthreads - warp * 32 : 32;
    const unsigned exist = lanes_here == 32 ? 0xffffffffu : ((1u << lanes_here) - 1);
    char msg[512];
    if (op == TCLAB_WARP_COLLECTIVE && (absent & ~exist)) {
        snprintf(msg, sizeof msg,
                 "%s at kernel.cu line %d is a warp-collective call: all 32 lanes of a warp "
                 "make it together, and warp %d of this %d-thread block has only %d lanes. "
                 "Launch blocks whose thread count is a multiple of 32 (tensor-core work is "
                 "done by whole warps)",
                 op_name(op, value), f->line, warp, w->nthreads, lanes_here);
    } else if (op == TCLAB_WARP_COLLECTIVE) {
        char lanes[48];
        const int lo = __builtin_ctz(absent), hi = 31 - __builtin_clz(absent);
        if (lo == hi)
            snprintf(lanes, sizeof lanes, "lane %d has", lo);
        else if (absent == ((hi == 31 ? 0xffffffffu : (1u << (hi + 1)) - 1u) & ~((1u << lo) - 1u)))
            snprintf(lanes, sizeof lanes, "lanes %d-%d have", lo, hi);
        else
            snprintf(lanes, sizeof lanes, "lanes 0x%08x have", absent);
        snprintf(msg, sizeof msg,
                 "%s at kernel.cu line %d is a warp-collective call: all 32 lanes of warp %d "
                 "must make it, and %s already returned (an early return, or the call sits in "
                 "a branch those lanes skip). Keep every lane of the warp on the same WMMA "
                 "calls: guard the work around them, not the calls",
                 op_name(op, value), f->line, warp, lanes);
    } else if (absent & ~exist) {
        snprintf(msg, sizeof msg,
                 "%s at kernel.cu line %d: its mask 0x%08x names lanes %d-31 of warp %d, which "
                 "do not exist (the block has %d threads, so that warp has %d lanes). A warp "
                 "call may only name lanes that call it too: use a mask of the lanes that exist "
                 "((1u << %d) - 1), or a block size that is a multiple of 32",
                 warp_op_name(op), f->line, mask, lanes_here, warp, w->nthreads, lanes_here,
                 lanes_here);
    } else {
        snprintf(msg, sizeof msg,
                 "%s at kernel.cu line %d: its mask 0x%08x names lanes 0x%08x of warp %d, which "
                 "have already returned. A warp call may only name lanes that call it too: keep "
                 "every lane running to the shuffle (no early return; guard the loads instead), "
                 "or pass __activemask()",
                 warp_op_name(op), f->line, mask, absent, warp);
    }
    set_error(w, TCLAB_ERR_SYNC, msg, f);
}

static void report_deadlock(Worker* w) {
    int at_warp = 0;
    const Slot* waiting = nullptr;
    for (int t = 0; t < w->nthreads; t++) {
        if (w->slots[t].state != AT_WARP) continue;
        at_warp++;
        if (!waiting) waiting = &w->slots[t];
    }
    char which[160] = "__shfl*_sync, __syncwarp, __ballot_sync, ...";
    if (waiting)
        snprintf(which, sizeof which, "the first: %s at kernel.cu line %d",
                 op_name(waiting->wop, waiting->wval), waiting->line);
    char msg[640];
    snprintf(msg, sizeof msg,
             "deadlock: %d of the block's %d threads wait at __syncthreads() and %d at a "
             "warp-level sync (%s) whose lanes never all arrive; %d threads have exited. Every "
             "thread of a block must reach the same barriers (a __syncthreads() inside a branch "
             "that not all threads take hangs or is undefined on a GPU)",
             w->at_barrier, w->nthreads, at_warp, which, w->nthreads - w->live);
    set_error(w, TCLAB_ERR_DEADLOCK, msg, nullptr);
}

// Runs thread t until its next sync point (starting it if new); false if it was not runnable.
static inline bool step(Worker* w, int t) {
    Slot& s = w->slots[t];
    if (s.state == NEW) {
        const dim3 bd = w->blk.blockDim;
        Fiber* f = take_fiber(w);
        f->tid = t;
        f->pub.threadIdx.x = t % bd.x;
        f->pub.threadIdx.y = (t / bd.x) % bd.y;
        f->pub.threadIdx.z = t / (bd.x * bd.y);
        f->pub.block = &w->blk;
        f->line = 0;
        f->ncopies = 0;
        f->batches = 0;
        start_fiber(f);
        s.f = f;
        s.state = RUNNABLE;
    } else if (s.state != RUNNABLE) {
        return false;
    }
    w->cur = s.f;
    to_fiber(w, s.f);
    w->cur = nullptr;
    if (s.state == DONE && !w->block_abort) {
        w->free_fibers.push_back(s.f);
        s.f = nullptr;
        w->live--;
        lane_exited(w, t);
    }
    return true;
}

static void shuffle(Worker* w, int* a, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = static_cast<int>(next_random(w) % static_cast<uint64_t>(i + 1));
        int tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
}

// One block. Between two block barriers the scheduler goes warp by warp (in the schedule's
// order) and runs each warp until all its lanes wait at __syncthreads() or have exited: lane
// by lane, each to its next sync point, again after every completed warp operation. Any such
// order is one a GPU may produce; running a warp's 32 fibers together keeps them in cache.
static void run_block(Worker* w) {
    const int T = w->nthreads;
    const int nwarps = (T + 31) / 32;
    for (int t = 0; t < T; t++) {
        w->slots[t].state = NEW;
        w->slots[t].f = nullptr;
    }
    for (int k = 0; k < nwarps; k++) {
        int lanes = T - k * 32 < 32 ? T - k * 32 : 32;
        w->warp_live[k] = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1);
        w->warp_wait[k] = 0;
    }
    w->live = T;
    w->at_barrier = 0;
    const int schedule = w->L->d->schedule;
    int warp_order[kMaxThreads / 32], lane_order[32];
    for (int k = 0; k < nwarps; k++)
        warp_order[k] = schedule == TCLAB_SCHED_REVERSE ? nwarps - 1 - k : k;
    for (int l = 0; l < 32; l++) lane_order[l] = schedule == TCLAB_SCHED_REVERSE ? 31 - l : l;
    for (;;) {
        if (schedule == TCLAB_SCHED_RANDOM) shuffle(w, warp_order, nwarps);
        bool ran = false;
        for (int k = 0; k < nwarps; k++) {
            const int base = warp_order[k] * 32;
            for (;;) {
                if (schedule == TCLAB_SCHED_RANDOM) shuffle(w, lane_order, 32);
                bool ran_warp = false;
                for (int l = 0; l < 32; l++) {
                    int t = base + lane_order[l];
                    if (t >= T) continue;
                    ran_warp |= step(w, t);
                    if (w->block_abort) return;
                }
                if (!ran_warp) break;
                ran = true;
            }
        }
        if (w->live == 0) return;
        if (w->at_barrier > 0 && w->at_barrier == w->live) {
            if (divergent_barrier(w)) {
                w->block_abort = true;
                return;
            }
            release_barrier(w);
            continue;
        }
        if (!ran) {
            report_deadlock(w);
            w->block_abort = true;
            return;
        }
    }
}

// Puts every fiber of an abandoned block back on the free list (their stacks are simply
// reinitialised when reused: a kernel has nothing to unwind).
static void reclaim_fibers(Worker* w) {
    for (int t = 0; t < w->nthreads; t++) {
        if (w->slots[t].f) w->free_fibers.push_back(w->slots[t].f);
        w->slots[t].f = nullptr;
        w->slots[t].state = DONE;
    }
    w->cur = nullptr;
}

static bool in_guard_page(Fiber* f, uintptr_t addr) {
    uintptr_t g = reinterpret_cast<uintptr_t>(stack_base(f));
    return addr >= g && addr < g + page_size();
}

// A block gets the dynamic shared memory its launch asks for (shared=), no more: the whole
// pages of the module's buffer past that are inaccessible during the launch, so that a kernel
// launched without shared= (or too little) faults as it would on a GPU instead of quietly
// using the rest of the 227 KiB. (An overrun within the last page is not seen.)
static void guard_dyn(Worker* w, uint64_t asked) {
    const uintptr_t page = page_size();
    const uintptr_t lo = (reinterpret_cast<uintptr_t>(w->dyn) + asked + page - 1) & ~(page - 1);
    const uintptr_t hi = (reinterpret_cast<uintptr_t>(w->dyn) + TCLAB_MAX_DYN_SMEM) & ~(page - 1);
    w->dyn_asked = asked;
    if (asked < TCLAB_MAX_DYN_SMEM && hi > lo &&
        mprotect(reinterpret_cast<void*>(lo), hi - lo, PROT_NONE) == 0) {
        w->dyn_lo = reinterpret_cast<char*>(lo);
        w->dyn_hi = reinterpret_cast<char*>(hi);
    }
}

static void unguard_dyn(Worker* w) {
    if (w->dyn_lo) mprotect(w->dyn_lo, static_cast<size_t>(w->dyn_hi - w->dyn_lo),
                            PROT_READ | PROT_WRITE);
    w->dyn_lo = w->dyn_hi = nullptr;
}

static void handle_fault(Worker* w) {
    Fiber* f = w->cur;
    char msg[256];
    int status = TCLAB_ERR_FAULT;
    const char* addr = reinterpret_cast<const char*>(w->fault_addr);
    if (w->fault_sig == SIGFPE) {
        status = TCLAB_ERR_FPE;
        snprintf(msg, sizeof msg, "arithmetic exception (integer division by zero?)");
    } else if (w->dyn_lo && addr >= w->dyn_lo && addr < w->dyn_hi) {
        status = TCLAB_ERR_USAGE;
        snprintf(msg, sizeof msg,
                 "%s of dynamic shared memory at byte %llu, past the %llu bytes this launch asked "
                 "for: an extern __shared__ array has only what the launch passes as "
                 "shared=BYTES (fn(..., block=..., grid=..., shared=BYTES))",
                 w->fault_write == 1 ? "write" : w->fault_write == 0 ? "read" : "access",
                 static_cast<unsigned long long>(addr - w->dyn),
                 static_cast<unsigned long long>(w->dyn_asked));
    } else if (f && in_guard_page(f, w->fault_addr)) {
        status = TCLAB_ERR_STACK;
        snprintf(msg, sizeof msg, "stack overflow: a thread used more than its %u KiB stack",
                 (TCLAB_STACK_SIZE - TCLAB_STACK_HEADER) / 1024u);
    } else {
        snprintf(msg, sizeof msg, "illegal memory access");
    }
    set_error(w, status, msg, f);
}

static void run_launch(Worker* w, Launch* L) {
    tclab_launch* d = L->d;
    w->L = L;
    w->rng = d->seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(w->index) + 1;
    w->nthreads = static_cast<int>(d->block[0] * d->block[1] * d->block[2]);
    w->blk.blockDim = dim3(d->block[0], d->block[1], d->block[2]);
    w->blk.gridDim = dim3(d->grid[0], d->grid[1], d->grid[2]);
    w->block_abort = false;
    w->fault_sig = 0;
    w->fault_write = -1;
    w->fault_addr = 0;
    if (!reserve_arena(w)) {
        set_error(w, TCLAB_ERR_INTERNAL, "could not reserve fiber stacks (mmap failed)", nullptr);
        return;
    }
    w->dyn = static_cast<char*>(d->dynsmem());  // this OS thread's copy of the module's TLS
    guard_dyn(w, d->shared_bytes);
    const uint64_t gx = d->grid[0], gy = d->grid[1];
    w->in_kernel = 1;
    if (sigsetjmp(w->jmp, 1)) {  // a fault in kernel code lands here (see on_signal)
        w->in_kernel = 0;
        handle_fault(w);
        unguard_dyn(w);
        reclaim_fibers(w);
        return;
    }
    for (;;) {
        if (L->abort.load(std::memory_order_relaxed)) break;
        uint64_t b = L->next.fetch_add(1, std::memory_order_relaxed);
        if (b >= L->nblocks) break;
        w->blk.blockIdx.x = static_cast<unsigned>(b % gx);
        w->blk.blockIdx.y = static_cast<unsigned>((b / gx) % gy);
        w->blk.blockIdx.z = static_cast<unsigned>(b / (gx * gy));
        // Shared memory starts as garbage on a GPU; poison it (NaN / -1) so that reading it
        // before writing it gives visibly wrong results instead of the last block's values.
        if (d->shared_bytes) memset(w->dyn, 0xff, d->shared_bytes);
        for (int i = 0; i < d->npoison; i++)
            memset(w->dyn + d->poison[2 * i], 0xff, static_cast<size_t>(d->poison[2 * i + 1]));
        run_block(w);
        if (w->block_abort) {
            reclaim_fibers(w);
            break;
        }
    }
    w->in_kernel = 0;
    unguard_dyn(w);
}

// ---------------------------------------------------------------- pool

struct Pool {
    std::mutex mu;
    std::condition_variable wake, done;
    Worker* workers[kMaxWorkers] = {};
    std::atomic<int> nworkers{0};
    uint64_t generation = 0;
    Launch* job = nullptr;
    int job_workers = 0;
    int pending = 0;
};

static Pool* g_pool = nullptr;
static std::mutex* g_launch_mu = nullptr;

// Only the forking thread survives fork(): in the child the workers are gone and the pool's
// mutexes may be held by threads that no longer exist. Start afresh there (the old objects
// are leaked on purpose: destroying a mutex held by a vanished thread is undefined).
static void reset_after_fork() {
    g_pool = new Pool;
    g_launch_mu = new std::mutex;
}

static void init_globals() {
    static std::once_flag once;
    std::call_once(once, [] {
        reset_after_fork();
        pthread_atfork(nullptr, nullptr, reset_after_fork);
    });
}

static Pool& pool() {  // never destroyed: workers may outlive static destructors
    init_globals();
    return *g_pool;
}

static std::mutex& launch_mutex() {
    init_globals();
    return *g_launch_mu;
}

static void worker_loop(Worker* w) {
    // The fault handler runs on its own stack, so a stack overflow in a fiber is reportable.
    stack_t ss;
    ss.ss_size = 64 * 1024;
    ss.ss_sp = malloc(ss.ss_size);
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    Pool& P = pool();
    uint64_t seen = 0;
    for (;;) {
        Launch* L;
        {
            std::unique_lock<std::mutex> lock(P.mu);
            P.wake.wait(lock, [&] { return P.generation != seen && w->index < P.job_workers; });
            seen = P.generation;
            L = P.job;
        }
        run_launch(w, L);
        {
            std::lock_guard<std::mutex> lock(P.mu);
            if (--P.pending == 0) P.done.notify_all();
        }
    }
}

static void ensure_workers(int n) {
    Pool& P = pool();
    while (P.nworkers.load() < n) {
        Worker* w = new Worker;
        w->index = P.nworkers.load();
        P.workers[w->index] = w;
        std::thread t(worker_loop, w);
        w->thread = t.native_handle();
        t.detach();
        P.nworkers.store(w->index + 1);
    }
}

// ---------------------------------------------------------------- signals

static struct sigaction g_old_segv, g_old_bus, g_old_fpe;

static Worker* current_worker() {  // async-signal-safe: no TLS, no locks
    pthread_t me = pthread_self();
    Pool& P = pool();
    int n = P.nworkers.load();
    for (int i = 0; i < n; i++) {
        Worker* w = P.workers[i];
        if (w && pthread_equal(w->thread, me)) return w;
    }
    return nullptr;
}

static void on_signal(int sig, siginfo_t* info, void* uctx) {
    Worker* w = current_worker();
    if (!w || !w->in_kernel) {
        // Not ours: give it to whoever handled it before (Python's faulthandler, or the
        // default action) by restoring that handler and letting the instruction fault again.
        sigaction(sig, sig == SIGSEGV ? &g_old_segv : sig == SIGBUS ? &g_old_bus : &g_old_fpe,
                  nullptr);
        return;
    }
    w->fault_sig = sig;
    w->fault_addr = reinterpret_cast<uintptr_t>(info->si_addr);
    w->fault_write = -1;
#if defined(__x86_64__) && defined(REG_ERR)
    if (sig == SIGSEGV) {
        auto* uc = static_cast<ucontext_t*>(uctx);
        w->fault_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;  // page-fault W bit
    }
#else
    (void)uctx;
#endif
    // No page fault but a general-protection fault (si_addr 0): on x86-64 in a kernel, an
    // aligned vector instruction (a uint4 or float4 load or store) at a misaligned address.
    if (sig == SIGSEGV && info->si_code == SI_KERNEL) w->fault_write = TCLAB_FAULT_MISALIGNED;
    siglongjmp(w->jmp, 1);
}

static void install_handlers() {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    sigaction(SIGBUS, &sa, &g_old_bus);
    sigaction(SIGFPE, &sa, &g_old_fpe);
}

static void restore_handlers() {
    sigaction(SIGSEGV, &g_old_segv, nullptr);
    sigaction(SIGBUS, &g_old_bus, nullptr);
    sigaction(SIGFPE, &g_old_fpe, nullptr);
}

}  // namespace tclab_rt

// ---------------------------------------------------------------- called by kernel code

using namespace tclab_rt;

static inline void do_copy(const AsyncCopy& c) {
    memcpy(c.dst, c.src, c.bytes);
    memset(c.dst + c.bytes, 0, c.zeros);
}

// Does the thread's async copies of the batches before `limit`, oldest first.
static void complete_copies(Fiber* f, uint32_t limit) {
    int kept = 0;
    for (int i = 0; i < f->ncopies; i++) {
        const AsyncCopy& c = f->copies[i];
        if (c.batch < limit) {
            do_copy(c);
        } else {
            f->copies[kept++] = c;
        }
    }
    f->ncopies = kept;
}

extern "C" void tclab_fiber_main(Fiber* f) {
    Worker* w = f->w;
    tclab_launch* d = w->L->d;
    d->call(d->fn, d->args);
    complete_copies(f, UINT32_MAX);  // a GPU finishes a returned thread's copies too
    w->slots[f->tid].state = DONE;
    to_scheduler(f);
    __builtin_trap();  // a finished fiber is never resumed
}

TCLAB_EXPORT int tclab_rt_syncthreads_op(int op, int pred) {
    Fiber* f = self();
    Worker* w = f->w;
    Slot& s = w->slots[f->tid];
    s.state = AT_BARRIER;
    s.line = f->line;
    s.wval = pred != 0;
    w->barrier_op = op;
    w->at_barrier++;
    to_scheduler(f);
    return static_cast<int>(s.result);
}

TCLAB_EXPORT void tclab_rt_syncthreads(void) { tclab_rt_syncthreads_op(TCLAB_BAR_PLAIN, 0); }

TCLAB_EXPORT uint64_t tclab_rt_warp(int op, unsigned mask, uint64_t value, int arg, int width) {
    Fiber* f = self();
    Worker* w = f->w;
    int warp = f->tid >> 5, lane = f->tid & 31;
    Slot& s = w->slots[f->tid];
    if (op == TCLAB_WARP_COLLECTIVE) f->line = collective_of(value)->line;
    const unsigned absent = mask & ~w->warp_live[warp];
    if (absent) {
        absent_lanes(w, f, op, value, mask, absent);
        w->block_abort = true;
        to_scheduler(f);
        __builtin_trap();  // an aborted block's fibers are never resumed
    }
    s.wop = op;
    s.line = f->line;
    s.wmask = mask | (1u << lane);  // a lane always takes part in its own call
    s.wval = value;
    s.warg = arg;
    s.wwidth = width;
    s.state = AT_WARP;
    w->warp_wait[warp] |= 1u << lane;
    try_resolve_warp(w, warp, s.wmask);
    to_scheduler(f);  // even when resolved: the schedule decides who runs next
    return s.result;
}

TCLAB_EXPORT void tclab_rt_line(int line) { self()->line = line; }

// The pipeline primitives (<cuda_pipeline_primitives.h>). A copy is done as late as CUDA
// allows, at the wait that covers it (or when the thread returns), not when it is issued, so
// a kernel that reads a stage without waiting for it reads the poison of shared memory (NaN)
// here, as it may read stale data on a GPU.
TCLAB_EXPORT void tclab_rt_async_copy(void* dst, const void* src, uint32_t bytes,
                                      uint32_t zeros) {
    Fiber* f = self();
    if (f->ncopies == kMaxAsyncCopies) {  // done early: a GPU may finish a copy at any time
        do_copy(f->copies[0]);
        memmove(f->copies, f->copies + 1, sizeof(AsyncCopy) * (kMaxAsyncCopies - 1));
        f->ncopies--;
    }
    f->copies[f->ncopies++] = AsyncCopy{static_cast<char*>(dst), static_cast<const char*>(src),
                                        bytes, zeros, f->batches};
}

TCLAB_EXPORT void tclab_rt_async_commit(void) { self()->batches++; }

// Waits for every committed batch but the `prior` most recent ones.
TCLAB_EXPORT void tclab_rt_async_wait(uint32_t prior) {
    Fiber* f = self();
    if (prior < f->batches) complete_copies(f, f->batches - prior);
}

TCLAB_EXPORT unsigned tclab_rt_activemask(void) {
    Fiber* f = self();
    return f->w->warp_live[f->tid >> 5];
}

TCLAB_EXPORT void tclab_rt_trap(const char* message) {
    Fiber* f = self();
    Worker* w = f->w;
    set_error(w, TCLAB_ERR_TRAP, message, f);
    w->block_abort = true;
    to_scheduler(f);
    __builtin_trap();
}

TCLAB_EXPORT void tclab_rt_fail(int status, const char* message) {
    Fiber* f = self();
    Worker* w = f->w;
    set_error(w, status, message, f);
    w->block_abort = true;
    to_scheduler(f);
    __builtin_trap();
}

TCLAB_EXPORT void tclab_rt_assert_fail(const char* expr, const char* file, unsigned line,
                                       const char* func) {
    char msg[768];
    snprintf(msg, sizeof msg, "%s:%u: %s: Assertion `%s` failed.", file, line, func, expr);
    tclab_rt_trap(msg);
}

// ---------------------------------------------------------------- called from Python

TCLAB_EXPORT int tclab_rt_abi_version(void) { return TCLAB_ABI_VERSION; }

TCLAB_EXPORT int tclab_rt_launch(tclab_launch* d) {
    std::lock_guard<std::mutex> serial(launch_mutex());  // one grid at a time uses the pool
    d->status = TCLAB_OK;
    d->message[0] = 0;
    d->fault_addr = 0;
    d->fault_signal = 0;
    d->fault_write = -1;
    Launch L;
    L.d = d;
    L.nblocks = static_cast<uint64_t>(d->grid[0]) * d->grid[1] * d->grid[2];
    int n = d->workers < 1 ? 1 : d->workers > kMaxWorkers ? kMaxWorkers : d->workers;
    if (static_cast<uint64_t>(n) > L.nblocks) n = static_cast<int>(L.nblocks);
    ensure_workers(n);
    Pool& P = pool();
    install_handlers();
    {
        std::unique_lock<std::mutex> lock(P.mu);
        P.job = &L;
        P.job_workers = n;
        P.pending = n;
        P.generation++;
        P.wake.notify_all();
        P.done.wait(lock, [&] { return P.pending == 0; });
        P.job = nullptr;
        P.job_workers = 0;
    }
    restore_handlers();
    fflush(stdout);  // device printf output appears before Python prints what follows
    return d->status;
}

// Checked mode: a copy of an argument placed against an inaccessible page, so the first byte
// read past its end (at_end) or before its start (!at_end) faults.
TCLAB_EXPORT void* tclab_rt_map_guarded(uint64_t nbytes, int at_end, uint64_t align,
                                        uint64_t* map_base, uint64_t* map_len,
                                        uint64_t* guard) {
    size_t page = page_size();
    size_t data_pages = (static_cast<size_t>(nbytes) + page - 1) / page;
    if (data_pages == 0) data_pages = 1;
    size_t len = (data_pages + 1) * page;
    char* p = static_cast<char*>(
        mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (p == MAP_FAILED) return nullptr;
    memset(p, 0xff, len);  // the slack next to the data reads as NaN / -1
    char* data;
    if (at_end) {
        char* g = p + data_pages * page;
        mprotect(g, page, PROT_NONE);
        uintptr_t start = reinterpret_cast<uintptr_t>(g) - nbytes;
        if (align > 1) start &= ~static_cast<uintptr_t>(align - 1);
        data = reinterpret_cast<char*>(start);
        *guard = reinterpret_cast<uint64_t>(g);
    } else {
        mprotect(p, page, PROT_NONE);
        data = p + page;
        *guard = reinterpret_cast<uint64_t>(p);
    }
    *map_base = reinterpret_cast<uint64_t>(p);
    *map_len = len;
    return data;
}

TCLAB_EXPORT int tclab_rt_unmap(void* base, uint64_t len) {
    return munmap(base, static_cast<size_t>(len));
}

TCLAB_EXPORT uint64_t tclab_rt_page_size(void) { return page_size(); }
