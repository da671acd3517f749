// Shim for nvcc's <cuda_fp16.h>: tclab_cuda.h already defines the types and conversions.
//
// nvcc refuses <cuda_fp16.h> inside pycuda's default extern "C" { } wrapper (its operators are
// overloaded, which C linkage forbids). So must we, or a kernel would pass on the CPU and fail
// to compile on the GPU: two overloads of one function are legal only with C++ linkage.
// compiler.py turns the resulting error into a sentence (pass no_extern_c=True).
#pragma once
#include "tclab_cuda.h"
void tclab_cuda_fp16_h_inside_extern_C(int);
void tclab_cuda_fp16_h_inside_extern_C(long);
