// C (M x N) = A (M x K) @ B (K x N), row-major fp32, with TILE x TILE tiles of A and B staged
// in shared memory. Block (TILE, TILE); grid (ceil(N / TILE), ceil(M / TILE)). Out-of-range
// tile elements load as 0, so any M, N, K work.
#define TILE 16

__global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                             float *__restrict__ C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ka = k0 + threadIdx.x;
        int kb = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();  // the next tiles overwrite As and Bs
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}
