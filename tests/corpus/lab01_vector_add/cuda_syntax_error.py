# impl: cuda
# status: compile_error
# reason: compile error in CUDA C vector_add_kernel
# (the ';' after `return v` is missing: g++ and nvcc name line 5, where it sits once the
#  two comment lines above it are dropped)
# reason-any: kernel.cu:5 | kernel.cu:6

# %% edit vector_add_cu
# <<<
# // The arithmetic is done in float whatever the storage type: to_float widens one element,
# // from_float<T> rounds a float back to T (to nearest even, as torch does).
# __device__ __forceinline__ float to_float(float v) { return v; }
# ===
# __device__ __forceinline__ float to_float(float v) { return v }  // line 5: no semicolon
# >>>
