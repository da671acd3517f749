// Where a CUDA API call is written, for its error messages. A function declared with a last
// parameter `::tclab::CallSite site = TCLAB_HERE` learns its caller's kernel.cu line without a
// macro around the call (a macro would break `wmma::mma_sync(...)`): GCC evaluates
// __builtin_LINE() in a default argument at the call (for a call written over several lines,
// the line of the function's name), and the source's `#line 1 "kernel.cu"` makes that the
// student's line. Not convertible from an int or an enum, so an extra argument
// by mistake fails to compile here as it does with nvcc.
#pragma once

namespace tclab {
struct CallSite {
    int line;
    // GCC takes the caller's line only for __builtin_LINE() as a default argument in its own
    // right: `CallSite{__builtin_LINE()}` as the default would give this header's line.
    static constexpr CallSite here(int line = __builtin_LINE()) { return CallSite{line}; }
};
}  // namespace tclab

#define TCLAB_HERE ::tclab::CallSite::here()
