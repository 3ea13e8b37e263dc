// The paper's stencil (Fig. 8), ported to lightning_kokkos. The original CUDA kernel was
//
//   __global__ void stencil(int n, float* output, const float* input) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i > 0 && i < n - 1) output[i] = (input[i - 1] + input[i] + input[i + 1]) / 3.0f;
//   }
//
// and changed in the three documented ways: __global__ -> __device__, the block index is
// the first parameter, and pointers are lightning::Vector (indexed with global indices).
__device__ void stencil(dim3 blockIdx, int n, lightning::Vector<float> output,
                        const lightning::Vector<float> input) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) output[i] = (input[i - 1] + input[i] + input[i + 1]) / 3.0f;
}
