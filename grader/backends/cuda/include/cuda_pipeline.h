// <cuda_pipeline.h> on the CPU backend: the primitives of <cuda_pipeline_primitives.h>.
// CUDA's C++ pipeline class (nvcuda::experimental::pipeline, memcpy_async) is not here.
#pragma once
#include "cuda_pipeline_primitives.h"
