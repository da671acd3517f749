# impl: cuda
# exercise: rgb_to_gray
# status: fail
# reason: lab05_image_ops/rgb_to_gray [
# reason: elements differ
# (C computes 77 * r + ... in unsigned int, but the sum is kept in a byte-sized variable
# (the output's type, declared too early): it wraps around at 256, and the >> 8 of a byte
# is 0, so almost every pixel comes out black.)

# %% edit rgb_to_gray_cu
# <<<
#             unsigned sum = 77u * b[3 * p] + 150u * b[3 * p + 1] + 29u * b[3 * p + 2] + 128u;
# ===
#             unsigned char sum = 77u * b[3 * p] + 150u * b[3 * p + 1] + 29u * b[3 * p + 2] + 128u;
# >>>
# <<<
#         gray[tail] = (unsigned char)((77u * px[0] + 150u * px[1] + 29u * px[2] + 128u) >> 8);
# ===
#         unsigned char sum = 77u * px[0] + 150u * px[1] + 29u * px[2] + 128u;
#         gray[tail] = sum >> 8;
# >>>
