// CUDA's built-in vector types (vector_types.h), with CUDA's sizes and alignments, so that
// reinterpret_cast<float4*>(p) loads and struct layouts match what a GPU sees.
#pragma once

#define TCLAB_VEC_TYPES(T, N, A2, A4)                                                    \
    struct N##1 { T x; };                                                                \
    struct __attribute__((aligned(A2))) N##2 { T x, y; };                                \
    struct N##3 { T x, y, z; };                                                          \
    struct __attribute__((aligned(A4))) N##4 { T x, y, z, w; };                          \
    static inline N##1 make_##N##1(T x) { return N##1{x}; }                              \
    static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }                      \
    static inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }              \
    static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }

TCLAB_VEC_TYPES(signed char, char, 2, 4)
TCLAB_VEC_TYPES(unsigned char, uchar, 2, 4)
TCLAB_VEC_TYPES(short, short, 4, 8)
TCLAB_VEC_TYPES(unsigned short, ushort, 4, 8)
TCLAB_VEC_TYPES(int, int, 8, 16)
TCLAB_VEC_TYPES(unsigned int, uint, 8, 16)
TCLAB_VEC_TYPES(long, long, 16, 16)
TCLAB_VEC_TYPES(unsigned long, ulong, 16, 16)
TCLAB_VEC_TYPES(long long, longlong, 16, 16)
TCLAB_VEC_TYPES(unsigned long long, ulonglong, 16, 16)
TCLAB_VEC_TYPES(float, float, 8, 16)
TCLAB_VEC_TYPES(double, double, 16, 16)
#undef TCLAB_VEC_TYPES

// dim3 is uint3 with constructors that default missing sizes to 1, as in CUDA.
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};
