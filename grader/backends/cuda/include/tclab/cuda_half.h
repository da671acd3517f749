// __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h): 16-bit storage types with
// round-to-nearest-even conversions bit-identical to CUDA's, and arithmetic done in float
// then rounded, which is what the GPU's half instructions give for + - * /.
#pragma once

namespace tclab {

inline unsigned short float_to_half_bits(float f) {
    uint32_t x = from_bits<uint32_t>(to_bits(f));
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u)  // inf or NaN (NaN stays a quiet NaN)
        return static_cast<unsigned short>(sign | (mag > 0x7f800000u ? 0x7fffu : 0x7c00u));
    if (mag >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00u);  // rounds to inf
    if (mag < 0x38800000u) {  // subnormal half (or zero): round the shifted mantissa
        if (mag < 0x33000000u) return static_cast<unsigned short>(sign);
        uint32_t e = mag >> 23;
        uint32_t m = (mag & 0x7fffffu) | 0x800000u;
        uint32_t shift = 126u - e;  // 14 + (127 - 15 + 1 - 1) - e
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return static_cast<unsigned short>(sign | q);
    }
    uint32_t r = mag - 0x38000000u;  // rebias exponent 127 -> 15
    uint32_t q = r >> 13;
    uint32_t rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++;
    return static_cast<unsigned short>(sign | q);
}

inline float half_bits_to_float(unsigned short h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t e = (h >> 10) & 0x1fu;
    uint32_t m = h & 0x3ffu;
    uint32_t x;
    if (e == 0x1fu) {
        x = sign | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        x = sign | ((e + 112u) << 23) | (m << 13);
    } else if (m == 0) {
        x = sign;
    } else {  // subnormal: normalise
        int shift = 0;
        while (!(m & 0x400u)) {
            m <<= 1;
            shift++;
        }
        x = sign | (static_cast<uint32_t>(113 - shift) << 23) | ((m & 0x3ffu) << 13);
    }
    return from_bits<float>(x);
}

inline unsigned short float_to_bf16_bits(float f) {
    uint32_t x = from_bits<uint32_t>(to_bits(f));
    if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return static_cast<unsigned short>(x >> 16);
}

inline float bf16_bits_to_float(unsigned short b) {
    return from_bits<float>(static_cast<uint32_t>(b) << 16);
}

}  // namespace tclab

struct __half_raw { unsigned short x; };
struct __nv_bfloat16_raw { unsigned short x; };

#define TCLAB_16BIT_TYPE(T, TO, FROM)                                                          \
    struct __attribute__((aligned(2))) T {                                                     \
        unsigned short __x;                                                                    \
        T() = default;                                                                         \
        T(float f) : __x(::tclab::TO(f)) {}                                                    \
        T(double f) : __x(::tclab::TO(static_cast<float>(f))) {}                               \
        T(int i) : __x(::tclab::TO(static_cast<float>(i))) {}                                  \
        T(unsigned i) : __x(::tclab::TO(static_cast<float>(i))) {}                             \
        T(long long i) : __x(::tclab::TO(static_cast<float>(i))) {}                            \
        T(T##_raw r) : __x(r.x) {}                                                             \
        operator float() const { return ::tclab::FROM(__x); }                                  \
        operator T##_raw() const { return T##_raw{__x}; }                                      \
        T& operator+=(T o) { return *this = T(float(*this) + float(o)); }                      \
        T& operator-=(T o) { return *this = T(float(*this) - float(o)); }                      \
        T& operator*=(T o) { return *this = T(float(*this) * float(o)); }                      \
        T& operator/=(T o) { return *this = T(float(*this) / float(o)); }                      \
    };                                                                                         \
    inline T operator+(T a, T b) { return T(float(a) + float(b)); }                            \
    inline T operator-(T a, T b) { return T(float(a) - float(b)); }                            \
    inline T operator*(T a, T b) { return T(float(a) * float(b)); }                            \
    inline T operator/(T a, T b) { return T(float(a) / float(b)); }                            \
    inline T operator-(T a) { T r; r.__x = static_cast<unsigned short>(a.__x ^ 0x8000u); return r; } \
    inline bool operator==(T a, T b) { return float(a) == float(b); }                          \
    inline bool operator!=(T a, T b) { return float(a) != float(b); }                          \
    inline bool operator<(T a, T b) { return float(a) < float(b); }                            \
    inline bool operator>(T a, T b) { return float(a) > float(b); }                            \
    inline bool operator<=(T a, T b) { return float(a) <= float(b); }                          \
    inline bool operator>=(T a, T b) { return float(a) >= float(b); }

TCLAB_16BIT_TYPE(__half, float_to_half_bits, half_bits_to_float)
TCLAB_16BIT_TYPE(__nv_bfloat16, float_to_bf16_bits, bf16_bits_to_float)
#undef TCLAB_16BIT_TYPE

typedef __half half;
typedef __nv_bfloat16 nv_bfloat16;

struct __attribute__((aligned(4))) __half2 { __half x, y; };
struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __half2 half2;
typedef __nv_bfloat162 nv_bfloat162;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half(static_cast<float>(i)); }
inline int __half2int_rn(__half h) { return static_cast<int>(nearbyintf(float(h))); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __ushort_as_half(unsigned short s) { __half h; h.__x = s; return h; }
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(float(a), float(b), float(c))); }
inline __half __hmax(__half a, __half b) { return __half(fmaxf(float(a), float(b))); }
inline __half __hmin(__half a, __half b) { return __half(fminf(float(a), float(b))); }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __heq(__half a, __half b) { return a == b; }
inline bool __hisnan(__half a) { return float(a) != float(a); }
inline __half hexp(__half a) { return __half(expf(float(a))); }
inline __half hsqrt(__half a) { return __half(sqrtf(float(a))); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
inline float2 __half22float2(__half2 h) { return make_float2(float(h.x), float(h.y)); }
inline __half2 __float22half2_rn(float2 f) { return __half2{__half(f.x), __half(f.y)}; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
inline __half2 __hmax2(__half2 a, __half2 b) { return __half2{__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
inline __half2 __hmin2(__half2 a, __half2 b) { return __half2{__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
inline __half __habs(__half a) { return __half(fabsf(float(a))); }
inline bool __hge(__half a, __half b) { return a >= b; }
inline bool __hle(__half a, __half b) { return a <= b; }
inline bool __hne(__half a, __half b) { return a != b; }
inline int __hisinf(__half a) { float f = float(a); return isinf(f) ? (f > 0 ? 1 : -1) : 0; }
inline __half hrcp(__half a) { return __half(1.0f / float(a)); }
inline __half hlog(__half a) { return __half(logf(float(a))); }
inline __half hrsqrt(__half a) { return __half(1.0f / sqrtf(float(a))); }
inline __half htanh(__half a) { return __half(tanhf(float(a))); }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { __nv_bfloat16 b; b.__x = s; return b; }
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    return __nv_bfloat16(fmaf(float(a), float(b), float(c)));
}
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(fmaxf(float(a), float(b))); }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16(fminf(float(a), float(b))); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)}; }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(float(h.x), float(h.y)); }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162{__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return __nv_bfloat16(fabsf(float(a))); }

// 16-bit atomics that students reach for: CAS on the containing aligned 32-bit word.
inline __half atomicAdd(__half* a, __half v) {
    uintptr_t addr = reinterpret_cast<uintptr_t>(a);
    uint32_t* word = reinterpret_cast<uint32_t*>(addr & ~static_cast<uintptr_t>(3));
    unsigned shift = (addr & 2u) ? 16u : 0u;
    uint32_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    for (;;) {
        __half cur = __ushort_as_half(static_cast<unsigned short>(old >> shift));
        uint32_t next = (old & ~(0xffffu << shift)) | (static_cast<uint32_t>((cur + v).__x) << shift);
        if (__atomic_compare_exchange_n(word, &old, next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return cur;
    }
}

// Half-precision shuffles move the 16-bit pattern, like any other value.
