// <mma.h> on the CPU backend: nvcuda::wmma, CUDA's warp-level matrix multiply-accumulate (the
// tensor cores' C++ interface), for g++. Only sources that include it pay for compiling it.
//
// Supported, with the overloads nvcc has (a combination nvcc refuses fails to compile here too):
//   fragment<Use, M, N, K, T, Layout> for the shapes 16x16x16, 32x8x16 and 8x32x16:
//     matrix_a / matrix_b of __half or __nv_bfloat16, Layout row_major or col_major;
//     accumulator of float or __half (bfloat16 products accumulate in float only);
//     matrix_a / matrix_b of signed char or unsigned char (8-bit integers, both the same),
//     with an int accumulator;
//   fill_fragment, load_matrix_sync (an accumulator's takes a layout_t), mma_sync (satf for
//   integers: the result clamped to int's range instead of wrapping), store_matrix_sync;
//   num_elements, element_type and the per-lane element array x[].
// Not here: 4-bit / 1-bit, tf32 (precision::tf32, 16x16x8) and double (8x8x4) fragments, and
// mma.sync inline PTX (compiler.py refuses inline PTX with a message).
//
// Fragments. Each lane holds num_elements values in x[], as many as CUDA's fragment has, so
// element-wise code over x[i] (scaling an accumulator, converting float to half) runs as on a
// GPU. Which tile element a lane's x[i] holds is unspecified in CUDA; here lane L's x[i] is
// element (L * num_elements + i) mod (rows * cols) of the fragment's tile in row-major order
// (matrix_a is M x K, matrix_b K x N, an accumulator M x N). Where 32 * num_elements exceeds
// the tile (a 16x16 matrix_a of halves has 16 per lane), the lanes hold copies: lanes 16-31
// repeat lanes 0-15, and mma_sync reads the first copy.
// Compiled with -DTCLAB_WMMA_MMA_LAYOUT, the 16x16 fragments of 8 elements a lane (float
// accumulators, bfloat16 matrix_a and matrix_b) take the map the course GPUs' WMMA uses instead,
// PTX's mma.m16n8k16 fragments twice across: lane 4g + t's x[i] is (g + 8 (i/2 % 2), 2t + i%2 +
// 8 (i/4)) of an accumulator or matrix_a, (k, n) = (2t + i%2 + 8 (i/2 % 2), g + 8 (i/4)) of a
// matrix_b. Code that tests the map at run time and takes another path where it is that one
// (a reference's row reductions through shuffles) runs that path on the CPU this way.
//
// Warp-collective calls. Each *_sync call is one TCLAB_WARP_COLLECTIVE operation of the
// runtime: the lane waits until all 32 lanes of its warp have arrived at the same call, and the
// last to arrive does the work for the whole warp (the schedules still order the warps and
// lanes, so a missing __syncthreads() before a load is a race as usual). CUDA requires all 32
// lanes, the same mptr, ldm and layout in each, ldm a multiple of 16 bytes and mptr 256-bit
// aligned; breaking a rule is undefined on a GPU and a LaunchError here, naming the call, its
// kernel.cu line and what differed.
//
// Numerics. A product of two halves (or two bfloat16s) is exact in float. mma_sync adds the K
// products of each element to the accumulator in float, k = 0 .. K-1 in order, and rounds once
// to half for a half result. Tensor cores add groups of products together with their own
// internal rounding, so results agree with a GPU to float (or half) rounding, not bit for bit.
// Integer fragments are exact, as on a GPU: the sum wraps modulo 2^32 (satf: clamps).
#pragma once
#include "tclab_cuda.h"
#include "tclab/call_site.h"

// nvcc refuses <mma.h> inside pycuda's default extern "C" { } (templates cannot have C
// linkage); two overloads of one function make g++ refuse it too, and compiler.py turns the
// error into one sentence: pass no_extern_c=True.
void tclab_mma_h_inside_extern_C(int);
void tclab_mma_h_inside_extern_C(long);

namespace nvcuda {
namespace wmma {

// Tags, declared only (as in CUDA): they name template arguments, nothing more.
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;

enum layout_t { mem_row_major, mem_col_major };

// Only the specialisations below exist: any other combination is an incomplete type.
template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment;

}  // namespace wmma
}  // namespace nvcuda

namespace tclab {
namespace wmma {

namespace cw = ::nvcuda::wmma;

template <class T>
struct same {  // a parameter type that takes no part in deduction: arguments convert to it
    typedef T type;
};

template <class T, int E>
struct __align__(8) frag_base {
    enum { num_elements = E };
    enum { num_storage_elements = E };
    typedef T element_type;
    typedef T storage_element_type;
    T x[E];
};

// The tile a fragment holds, by its role.
template <class Use, int M, int N, int K>
struct tile;
template <int M, int N, int K>
struct tile<cw::matrix_a, M, N, K> {
    static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct tile<cw::matrix_b, M, N, K> {
    static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct tile<cw::accumulator, M, N, K> {
    static constexpr int rows = M, cols = N;
};

template <class Frag>
struct info;
template <class Use, int M, int N, int K, class T, class Layout>
struct info<cw::fragment<Use, M, N, K, T, Layout>> {
    typedef T element;
    static constexpr int rows = tile<Use, M, N, K>::rows, cols = tile<Use, M, N, K>::cols;
    static constexpr int count = rows * cols;
    static constexpr int per_lane = cw::fragment<Use, M, N, K, T, Layout>::num_elements;
    static_assert(32 * per_lane % count == 0, "a fragment holds whole copies of its tile");
    // The tile element (row-major index) that lane's x[i] holds; a copy other than the first
    // when slot >= count.
    static int slot(int lane, int i) {
#ifdef TCLAB_WMMA_MMA_LAYOUT
        if (rows == 16 && cols == 16 && per_lane == 8) {
            const int g = lane / 4, t = lane % 4;
            if (std::is_same<Use, cw::matrix_b>::value)
                return (2 * t + i % 2 + 8 * (i / 2 % 2)) * cols + g + 8 * (i / 4);
            return (g + 8 * (i / 2 % 2)) * cols + 2 * t + i % 2 + 8 * (i / 4);
        }
#endif
        return lane * per_lane + i;
    }
};

template <class T>
inline const char* type_name() {
    if (std::is_same<T, __half>::value) return "__half";
    if (std::is_same<T, __nv_bfloat16>::value) return "__nv_bfloat16";
    if (std::is_same<T, signed char>::value) return "signed char";
    if (std::is_same<T, unsigned char>::value) return "unsigned char";
    if (std::is_same<T, int>::value) return "int";
    return "float";
}

// What mma_sync sums in: exact 64-bit integers for integer fragments, float otherwise.
template <class T>
struct sum_type {
    typedef float type;
};
template <>
struct sum_type<signed char> {
    typedef long long type;
};
template <>
struct sum_type<unsigned char> {
    typedef long long type;
};
template <>
struct sum_type<int> {
    typedef long long type;
};

// One lane's part of a load or a store; the runtime sees the leading tclab_collective.
struct MemCall {
    tclab_collective head;
    void* frag;       // this lane's fragment
    const void* ptr;  // mptr
    unsigned ldm;
    int layout;  // cw::mem_row_major or cw::mem_col_major
};

struct MmaCall {
    tclab_collective head;
    void* d;
    const void* a;
    const void* b;
    const void* c;
    bool satf;
};

inline const char* layout_name(int layout) {
    return layout == cw::mem_col_major ? "mem_col_major (col_major)" : "mem_row_major (row_major)";
}

// The arguments CUDA requires to be the same in all 32 lanes, then ldm and alignment.
template <class T>
int check_memory_call(tclab_collective* const* lanes, unsigned group, char* msg, size_t size) {
    const MemCall* ref = nullptr;
    int ref_lane = -1;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        const MemCall* c = reinterpret_cast<const MemCall*>(lanes[l]);
        if (!ref) {
            ref = c;
            ref_lane = l;
            continue;
        }
        const char* rule = "The arguments of a WMMA call must be the same in all 32 lanes (the "
                           "lanes hold parts of one tile): compute the tile's address from the "
                           "warp's index (threadIdx.x / 32), not from the lane's";
        if (c->ptr != ref->ptr) {
            const long long delta = static_cast<long long>(reinterpret_cast<uintptr_t>(c->ptr) -
                                                           reinterpret_cast<uintptr_t>(ref->ptr));
            snprintf(msg, size,
                     "the lanes passed different pointers: lane %d %p, lane %d %p (%+lld bytes). "
                     "%s",
                     ref_lane, ref->ptr, l, c->ptr, delta, rule);
            return TCLAB_ERR_SYNC;
        }
        if (c->ldm != ref->ldm) {
            snprintf(msg, size, "the lanes passed different ldm: lane %d %u, lane %d %u. %s",
                     ref_lane, ref->ldm, l, c->ldm, rule);
            return TCLAB_ERR_SYNC;
        }
        if (c->layout != ref->layout) {
            snprintf(msg, size, "the lanes passed different layouts: lane %d %s, lane %d %s. %s",
                     ref_lane, layout_name(ref->layout), l, layout_name(c->layout), rule);
            return TCLAB_ERR_SYNC;
        }
    }
    constexpr unsigned step = 16 / sizeof(T);
    if (ref->ldm % step != 0) {
        snprintf(msg, size,
                 "ldm = %u is not a multiple of %u. CUDA requires ldm, the distance in elements "
                 "between consecutive rows (row-major) or columns (column-major) in memory, to "
                 "be a multiple of 16 bytes: %u %s elements (anything else is undefined on a "
                 "GPU); pad a shared-memory tile's rows by a multiple of %u",
                 ref->ldm, step, step, type_name<T>(), step);
        return TCLAB_ERR_USAGE;
    }
    const unsigned misaligned = static_cast<unsigned>(reinterpret_cast<uintptr_t>(ref->ptr) % 32);
    if (misaligned) {
        snprintf(msg, size,
                 "the pointer %p (%s*) is %u bytes past a 32-byte boundary. CUDA requires mptr "
                 "to be 256-bit (32-byte) aligned (anything else is undefined on a GPU: a "
                 "misaligned-address fault or wrong values); tiles that start at multiples of "
                 "16 rows and columns of an aligned array, with a valid ldm, are aligned",
                 ref->ptr, type_name<T>(), misaligned);
        return TCLAB_ERR_USAGE;
    }
    return TCLAB_OK;
}

inline const MemCall* first_call(tclab_collective* const* lanes, unsigned group) {
    return reinterpret_cast<const MemCall*>(lanes[__builtin_ctz(group)]);
}

template <class Frag>
int run_load(tclab_collective* const* lanes, unsigned group, char* msg, size_t size) {
    typedef info<Frag> I;
    typedef typename I::element T;
    const int status = check_memory_call<T>(lanes, group, msg, size);
    if (status != TCLAB_OK) return status;
    const MemCall* call = first_call(lanes, group);
    const T* p = static_cast<const T*>(call->ptr);
    const size_t ldm = call->ldm;
    const bool col = call->layout == cw::mem_col_major;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        Frag& f = *static_cast<Frag*>(reinterpret_cast<const MemCall*>(lanes[l])->frag);
        for (int i = 0; i < I::per_lane; i++) {
            const int e = I::slot(l, i) % I::count;
            const size_t r = e / I::cols, c = e % I::cols;
            f.x[i] = col ? p[c * ldm + r] : p[r * ldm + c];
        }
    }
    return TCLAB_OK;
}

template <class Frag>
int run_store(tclab_collective* const* lanes, unsigned group, char* msg, size_t size) {
    typedef info<Frag> I;
    typedef typename I::element T;
    const int status = check_memory_call<T>(lanes, group, msg, size);
    if (status != TCLAB_OK) return status;
    const MemCall* call = first_call(lanes, group);
    T* p = static_cast<T*>(const_cast<void*>(call->ptr));
    const size_t ldm = call->ldm;
    const bool col = call->layout == cw::mem_col_major;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        const Frag& f = *static_cast<const Frag*>(reinterpret_cast<const MemCall*>(lanes[l])->frag);
        for (int i = 0; i < I::per_lane; i++) {
            const int e = I::slot(l, i);
            if (e >= I::count) continue;  // a copy: the first one is stored
            const size_t r = e / I::cols, c = e % I::cols;
            (col ? p[c * ldm + r] : p[r * ldm + c]) = f.x[i];
        }
    }
    return TCLAB_OK;
}

// The tile of `Frag` as S (float, or long long for integers), from the first copy in the
// lanes' fragments (`member` picks the fragment out of a lane's MmaCall).
template <class Frag, class S>
void gather(tclab_collective* const* lanes, unsigned group, const void* MmaCall::*member,
            S* out) {
    typedef info<Frag> I;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        const Frag& f =
            *static_cast<const Frag*>(reinterpret_cast<const MmaCall*>(lanes[l])->*member);
        for (int i = 0; i < I::per_lane; i++) {
            const int e = I::slot(l, i);
            if (e < I::count) out[e] = static_cast<S>(f.x[i]);
        }
    }
}

// An integer sum as the int the tensor cores write: modulo 2^32, or clamped (satf).
inline int to_result(long long v, bool satf, int*) {
    if (satf) return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : static_cast<int>(v);
    return static_cast<int>(static_cast<unsigned>(static_cast<unsigned long long>(v)));
}
template <class TD>
inline TD to_result(float v, bool, TD*) {
    return TD(v);
}

template <class FD, class FA, class FB, class FC, int M, int N, int K>
int run_mma(tclab_collective* const* lanes, unsigned group, char*, size_t) {
    typedef typename info<FD>::element TD;
    typedef typename sum_type<TD>::type S;
    S a[M * K], b[K * N], c[M * N];
    gather<FA>(lanes, group, &MmaCall::a, a);
    gather<FB>(lanes, group, &MmaCall::b, b);
    gather<FC>(lanes, group, &MmaCall::c, c);  // before any d is written: d may be c
    for (int m = 0; m < M; m++) {
        for (int n = 0; n < N; n++) {
            S acc = c[m * N + n];
            for (int k = 0; k < K; k++) acc += a[m * K + k] * b[k * N + n];  // products exact
            c[m * N + n] = acc;
        }
    }
    const bool satf = reinterpret_cast<const MmaCall*>(lanes[__builtin_ctz(group)])->satf;
    for (int l = 0; l < 32; l++) {
        if (!(group >> l & 1u)) continue;
        FD& d = *static_cast<FD*>(reinterpret_cast<const MmaCall*>(lanes[l])->d);
        for (int i = 0; i < info<FD>::per_lane; i++)
            d.x[i] = to_result(c[info<FD>::slot(l, i) % info<FD>::count], satf,
                               static_cast<TD*>(nullptr));
    }
    return TCLAB_OK;
}

inline void warp_collective(tclab_collective* call) {
    tclab_rt_warp(TCLAB_WARP_COLLECTIVE, 0xffffffffu,
                  static_cast<uint64_t>(reinterpret_cast<uintptr_t>(call)), 0, 32);
}

}  // namespace wmma
}  // namespace tclab

namespace nvcuda {
namespace wmma {

#define TCLAB_WMMA_FRAGMENT(Use, M, N, K, T, Layout, E) \
    template <>                                         \
    class fragment<Use, M, N, K, T, Layout> : public ::tclab::wmma::frag_base<T, E> {};
#define TCLAB_WMMA_MULTIPLICANDS(M, N, K, T, EA, EB)             \
    TCLAB_WMMA_FRAGMENT(matrix_a, M, N, K, T, row_major, EA)     \
    TCLAB_WMMA_FRAGMENT(matrix_a, M, N, K, T, col_major, EA)     \
    TCLAB_WMMA_FRAGMENT(matrix_b, M, N, K, T, row_major, EB)     \
    TCLAB_WMMA_FRAGMENT(matrix_b, M, N, K, T, col_major, EB)
// Elements per lane as CUDA declares them (so sizeof and num_elements match).
TCLAB_WMMA_MULTIPLICANDS(16, 16, 16, __half, 16, 16)
TCLAB_WMMA_MULTIPLICANDS(16, 16, 16, __nv_bfloat16, 8, 8)
TCLAB_WMMA_MULTIPLICANDS(32, 8, 16, __half, 16, 16)
TCLAB_WMMA_MULTIPLICANDS(32, 8, 16, __nv_bfloat16, 16, 4)
TCLAB_WMMA_MULTIPLICANDS(8, 32, 16, __half, 16, 16)
TCLAB_WMMA_MULTIPLICANDS(8, 32, 16, __nv_bfloat16, 4, 16)
TCLAB_WMMA_FRAGMENT(accumulator, 16, 16, 16, float, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 16, 16, 16, __half, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 32, 8, 16, float, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 32, 8, 16, __half, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 8, 32, 16, float, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 8, 32, 16, __half, void, 8)
TCLAB_WMMA_MULTIPLICANDS(16, 16, 16, signed char, 8, 8)
TCLAB_WMMA_MULTIPLICANDS(16, 16, 16, unsigned char, 8, 8)
TCLAB_WMMA_MULTIPLICANDS(32, 8, 16, signed char, 16, 4)
TCLAB_WMMA_MULTIPLICANDS(32, 8, 16, unsigned char, 16, 4)
TCLAB_WMMA_MULTIPLICANDS(8, 32, 16, signed char, 4, 16)
TCLAB_WMMA_MULTIPLICANDS(8, 32, 16, unsigned char, 4, 16)
TCLAB_WMMA_FRAGMENT(accumulator, 16, 16, 16, int, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 32, 8, 16, int, void, 8)
TCLAB_WMMA_FRAGMENT(accumulator, 8, 32, 16, int, void, 8)
#undef TCLAB_WMMA_MULTIPLICANDS
#undef TCLAB_WMMA_FRAGMENT

// Per lane, no synchronisation (as in CUDA: each lane fills its own elements).
template <class Use, int M, int N, int K, class T, class Layout>
inline void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                          const typename ::tclab::wmma::same<T>::type& v) {
    for (int i = 0; i < f.num_elements; i++) f.x[i] = v;
}

template <class Use, int M, int N, int K, class T, class Layout>
inline void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& a,
                             const typename ::tclab::wmma::same<T>::type* mptr, unsigned ldm,
                             ::tclab::CallSite site = TCLAB_HERE) {
    static_assert(!std::is_same<Use, accumulator>::value,
                  "load_matrix_sync of an accumulator takes the memory layout too: "
                  "load_matrix_sync(c, ptr, ldm, wmma::mem_row_major)");
    ::tclab::wmma::MemCall call = {
        {"nvcuda::wmma::load_matrix_sync", site.line,
         &::tclab::wmma::run_load<fragment<Use, M, N, K, T, Layout>>},
        &a, mptr, ldm, std::is_same<Layout, col_major>::value ? mem_col_major : mem_row_major};
    ::tclab::wmma::warp_collective(&call.head);
}

template <int M, int N, int K, class T>
inline void load_matrix_sync(fragment<accumulator, M, N, K, T>& a,
                             const typename ::tclab::wmma::same<T>::type* mptr, unsigned ldm,
                             layout_t layout, ::tclab::CallSite site = TCLAB_HERE) {
    ::tclab::wmma::MemCall call = {
        {"nvcuda::wmma::load_matrix_sync", site.line,
         &::tclab::wmma::run_load<fragment<accumulator, M, N, K, T>>},
        &a, mptr, ldm, layout};
    ::tclab::wmma::warp_collective(&call.head);
}

template <int M, int N, int K, class T>
inline void store_matrix_sync(typename ::tclab::wmma::same<T>::type* mptr,
                              const fragment<accumulator, M, N, K, T>& a, unsigned ldm,
                              layout_t layout, ::tclab::CallSite site = TCLAB_HERE) {
    ::tclab::wmma::MemCall call = {
        {"nvcuda::wmma::store_matrix_sync", site.line,
         &::tclab::wmma::run_store<fragment<accumulator, M, N, K, T>>},
        const_cast<fragment<accumulator, M, N, K, T>*>(&a), mptr, ldm, layout};
    ::tclab::wmma::warp_collective(&call.head);
}

template <int M, int N, int K, class TD, class TA, class LA, class TB, class LB, class TC>
inline void mma_sync(fragment<accumulator, M, N, K, TD>& d,
                     const fragment<matrix_a, M, N, K, TA, LA>& a,
                     const fragment<matrix_b, M, N, K, TB, LB>& b,
                     const fragment<accumulator, M, N, K, TC>& c, bool satf = false,
                     ::tclab::CallSite site = TCLAB_HERE) {
    static_assert(std::is_same<TA, TB>::value,
                  "mma_sync multiplies a matrix_a and a matrix_b of the same element type");
    static_assert(!std::is_same<TA, __nv_bfloat16>::value ||
                      (std::is_same<TC, float>::value && std::is_same<TD, float>::value),
                  "__nv_bfloat16 fragments accumulate in float only (as with nvcc)");
    constexpr bool integer = std::is_same<TA, signed char>::value ||
                             std::is_same<TA, unsigned char>::value;
    static_assert(integer == (std::is_same<TC, int>::value && std::is_same<TD, int>::value),
                  "8-bit integer fragments accumulate in int, and only they do (as with nvcc)");
    ::tclab::wmma::MmaCall call = {
        {"nvcuda::wmma::mma_sync", site.line,
         &::tclab::wmma::run_mma<fragment<accumulator, M, N, K, TD>,
                                 fragment<matrix_a, M, N, K, TA, LA>,
                                 fragment<matrix_b, M, N, K, TB, LB>,
                                 fragment<accumulator, M, N, K, TC>, M, N, K>},
        &d, &a, &b, &c, satf};
    ::tclab::wmma::warp_collective(&call.head);
}

}  // namespace wmma
}  // namespace nvcuda
