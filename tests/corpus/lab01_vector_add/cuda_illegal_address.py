# impl: cuda
# device: gpu
# status: exception
# reason: illegal memory access

# %% edit vector_add_cu
# <<<
#         reinterpret_cast<uint4 *>(out)[i] = c;
# ===
#         // 2^29 chunks of 16 bytes: 8 GiB past the output, where nothing is mapped.
#         reinterpret_cast<uint4 *>(out)[i + (1u << 29)] = c;
# >>>
