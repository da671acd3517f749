// Block-wide inclusive scans: out[i] = in[start of i's block] + ... + in[i].

// Shuffle scan within each warp, a scan of the warp totals by warp 0, then each warp adds
// the totals of the warps before it. blockDim.x a multiple of 32, at most 1024.
__global__ void block_scan_shfl(const int *__restrict__ in, int *__restrict__ out, int n)
{
    __shared__ int warp_totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int warp = threadIdx.x >> 5;
    int v = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += up;
    }
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        int nwarps = blockDim.x >> 5;
        int t = lane < nwarps ? warp_totals[lane] : 0;
        for (int d = 1; d < 32; d <<= 1) {
            int up = __shfl_up_sync(0xffffffffu, t, d);
            if (lane >= d) t += up;
        }
        if (lane < nwarps) warp_totals[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < n) out[i] = v;
}

// Hillis-Steele in dynamic shared memory, double-buffered (2 * blockDim.x ints): each step
// reads one buffer and writes the other, so no thread overwrites what another still reads.
__global__ void block_scan_smem(const int *__restrict__ in, int *__restrict__ out, int n)
{
    extern __shared__ int buf[];
    int tid = threadIdx.x;
    int i = blockIdx.x * blockDim.x + tid;
    int src = 0;
    buf[tid] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 1; d < blockDim.x; d <<= 1) {
        int dst = 1 - src;
        int v = buf[src * blockDim.x + tid];
        if (tid >= d) v += buf[src * blockDim.x + tid - d];
        buf[dst * blockDim.x + tid] = v;
        __syncthreads();
        src = dst;
    }
    if (i < n) out[i] = buf[src * blockDim.x + tid];
}
