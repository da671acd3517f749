// cg::reduce lives in <cooperative_groups.h> on the CPU backend.
#pragma once
#include <cooperative_groups.h>
