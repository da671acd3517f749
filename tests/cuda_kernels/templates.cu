// tclab: no_extern_c
// Templates need C++ linkage, hence no_extern_c=True: extern "C" kernels get plain names,
// a template kernel is launchable once explicitly instantiated, under its mangled name.

template <typename T>
__device__ T cube(T v)
{
    return v * v * v;
}

template <int FACTOR>
__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= FACTOR;
}
template __global__ void scale<3>(float *x, int n);  // symbol _Z5scaleILi3EEvPfi

extern "C" __global__ void cube_all(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = cube(x[i]);
}

namespace ops {
extern "C" __global__ void add_index(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += i;
}
}  // namespace ops
