// Runtime helper: the Tensor argument struct (data pointer, logical sizes, allocation strides).
export const TENSOR_RUNTIME = `// ---- Tensor argument ----
template <typename T, int N, int NAlloc = N>
struct Tensor {
  __device__ T& operator[](nvfuser_index_t ind) { return data[ind]; }
  T* data;
  nvfuser_index_t logical_size[N];
  nvfuser_index_t alloc_stride[NAlloc];
};

// A rank-0 tensor carries only its pointer.
template <typename T>
struct Tensor<T, 0, 0> {
  __device__ T& operator[](nvfuser_index_t ind) { return data[ind]; }
  T* data;
};
`;
