# impl: cuda
# status: pass
# (honest work: the release's `// YOUR CODE HERE` left above a complete body is not a stub)

# %% edit vector_add_cu
# <<<
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
# ===
#     constexpr int PACK = sizeof(uint4) / sizeof(T);  // elements per 16 bytes: 4 or 8
#     // YOUR CODE HERE
# >>>
