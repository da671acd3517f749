// <cuda_pipeline_primitives.h> on the CPU backend: the asynchronous global-to-shared copy
// primitives (cp.async on sm_80+) that double-buffering kernels use without inline PTX:
//
//   void __pipeline_memcpy_async(void* dst_shared, const void* src_global, size_t size_and_align,
//                                size_t zfill = 0);   // copy size_and_align - zfill bytes, zero
//                                                     // the last zfill; size 4, 8 or 16
//   void __pipeline_commit();                         // close the batch of copies issued so far
//   void __pipeline_wait_prior(size_t N);             // wait for all but the N latest batches
//
// A GPU may finish a copy at any moment between the call and the wait that covers it, so a
// synchronous copy at the call would be a correct implementation (CUDA's own fallback before
// sm_80 is one). The runtime does the copy at the other end instead: at the
// __pipeline_wait_prior() that covers it (or when the thread returns). Correct code gets the
// same results either way; code that reads a stage it has not waited for (or forgot to
// commit) reads shared memory's poison (NaN) here, where a GPU gives stale data now and then.
// Arguments are checked as CUDA's header asserts them in debug builds: a size other than 4, 8
// or 16, zfill over the size, or a pointer not aligned to the size fails the launch with the
// call's kernel.cu line (a GPU traps, faults or copies garbage). That dst is shared memory and
// src global memory is not checked.
#pragma once
#include "tclab_cuda.h"
#include "tclab/call_site.h"

// nvcc refuses this header inside pycuda's default extern "C" { } (its templates cannot have C
// linkage); so do we, with compiler.py's sentence: pass no_extern_c=True.
void tclab_cuda_pipeline_h_inside_extern_C(int);
void tclab_cuda_pipeline_h_inside_extern_C(long);

inline void __pipeline_memcpy_async(void* __restrict__ dst_shared,
                                    const void* __restrict__ src_global, size_t size_and_align,
                                    size_t zfill = 0, ::tclab::CallSite site = TCLAB_HERE) {
    char msg[512];
    const uintptr_t dst = reinterpret_cast<uintptr_t>(dst_shared);
    const uintptr_t src = reinterpret_cast<uintptr_t>(src_global);
    if (size_and_align != 4 && size_and_align != 8 && size_and_align != 16) {
        snprintf(msg, sizeof msg,
                 "__pipeline_memcpy_async at kernel.cu line %d: size_and_align = %zu; it must be "
                 "4, 8 or 16 bytes (a GPU traps). Copy larger pieces as several 16-byte copies",
                 site.line, size_and_align);
        tclab_rt_fail(TCLAB_ERR_USAGE, msg);
    }
    if (zfill > size_and_align) {
        snprintf(msg, sizeof msg,
                 "__pipeline_memcpy_async at kernel.cu line %d: zfill = %zu is larger than "
                 "size_and_align = %zu (a GPU traps)",
                 site.line, zfill, size_and_align);
        tclab_rt_fail(TCLAB_ERR_USAGE, msg);
    }
    if ((dst | src) % size_and_align) {
        snprintf(msg, sizeof msg,
                 "__pipeline_memcpy_async at kernel.cu line %d: %s %p is not aligned to "
                 "size_and_align = %zu bytes; both pointers must be (undefined on a GPU: a "
                 "misaligned-address fault or wrong data)",
                 site.line, dst % size_and_align ? "dst_shared" : "src_global",
                 dst % size_and_align ? dst_shared : src_global, size_and_align);
        tclab_rt_fail(TCLAB_ERR_USAGE, msg);
    }
    tclab_rt_async_copy(dst_shared, src_global, static_cast<uint32_t>(size_and_align - zfill),
                        static_cast<uint32_t>(zfill));
}

inline void __pipeline_commit() { tclab_rt_async_commit(); }

// CUDA waits as for 8 when asked for more.
inline void __pipeline_wait_prior(size_t prior) {
    tclab_rt_async_wait(static_cast<uint32_t>(prior < 8 ? prior : 8));
}
