// Shim: the real header is nvcc's; on the CPU backend tclab_cuda.h already defines it all.
#pragma once
#include "tclab_cuda.h"
