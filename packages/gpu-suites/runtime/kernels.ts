// Handwritten CUDA kernels for the GPU smoke suite. `Tensor<T, N>` mirrors nvFuser's runtime
// struct (data pointer, logical sizes, allocation strides), so the argument packing that
// generated kernels will rely on is exercised by real launches.

export const POINTWISE_SOURCE = String.raw`
typedef long long int nvfuser_index_t;

template <typename T, int N>
struct Tensor {
  T* data;
  nvfuser_index_t logical_size[N];
  nvfuser_index_t alloc_stride[N];
};

// y = x * a + b over a rank-2 tensor with arbitrary strides (grid-stride loop).
extern "C" __global__ void pointwise_affine(Tensor<float, 2> x, Tensor<float, 2> y, float a, float b) {
  const nvfuser_index_t inner = x.logical_size[1];
  const nvfuser_index_t n = x.logical_size[0] * inner;
  for (nvfuser_index_t i = blockIdx.x * (nvfuser_index_t)blockDim.x + threadIdx.x; i < n; i += (nvfuser_index_t)gridDim.x * blockDim.x) {
    const nvfuser_index_t i0 = i / inner;
    const nvfuser_index_t i1 = i - i0 * inner;
    y.data[i0 * y.alloc_stride[0] + i1 * y.alloc_stride[1]] =
        x.data[i0 * x.alloc_stride[0] + i1 * x.alloc_stride[1]] * a + b;
  }
}

// Reverses each block's indices through dynamic shared memory: out[i] = block start + (blockDim.x - 1 - lane).
// The launch may ask for more than 48 KiB of dynamic shared memory once the attribute is raised.
extern "C" __global__ void shared_roundtrip(float* out, int n) {
  extern __shared__ float buffer[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buffer[threadIdx.x] = (float)i;
  __syncthreads();
  if (i < n) out[i] = buffer[blockDim.x - 1 - threadIdx.x];
}
`;

export const BROKEN_SOURCE = String.raw`
extern "C" __global__ void broken(float* out) {
  out[threadIdx.x] = undeclared_identifier * 2.0f;
}
`;
