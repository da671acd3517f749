// out (cols x rows) = transpose of in (rows x cols), through a TILE x (TILE + 1) shared tile:
// reads and writes of global memory are both along rows, and the extra column puts the 32
// elements of a tile column in 32 different banks. Block (TILE, ROWS), each thread moves
// TILE / ROWS elements; grid (ceil(cols / TILE), ceil(rows / TILE)).
#define TILE 32
#define ROWS 8

__global__ void transpose_tiled(const float *__restrict__ in, float *__restrict__ out,
                                int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;  // column of in
    int y = blockIdx.y * TILE + threadIdx.y;  // row of in
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;  // column of out
    y = blockIdx.x * TILE + threadIdx.y;  // row of out
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
        if (x < rows && y + j < cols)
            out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
    }
}
