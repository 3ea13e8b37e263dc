// C = A B with 16x16 shared-memory tiles (the textbook tiled GEMM, written for this project):
// each block computes a 16x16 tile of C, walking the shared dimension a tile of A and a tile
// of B at a time through shared memory. Any sizes: tiles past the edges are padded with 0.
//
// Ported from the CUDA form (`float* C, const float* A, const float* B`, indexed
// `A[row * k + i]`) in the three documented ways.
#define GEMM_TILE 16

__device__ void __launch_bounds__(GEMM_TILE* GEMM_TILE)
    gemm_tiled(dim3 blockIdx, int m, int n, int k, const lightning::Matrix<float> A,
               const lightning::Matrix<float> B, lightning::Matrix<float> C) {
  __shared__ float a[GEMM_TILE][GEMM_TILE];
  __shared__ float b[GEMM_TILE][GEMM_TILE];
  const int row = blockIdx.y * GEMM_TILE + threadIdx.y;
  const int col = blockIdx.x * GEMM_TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < k; t += GEMM_TILE) {
    a[threadIdx.y][threadIdx.x] = row < m && t + threadIdx.x < k ? A(row, t + threadIdx.x) : 0.0f;
    b[threadIdx.y][threadIdx.x] = t + threadIdx.y < k && col < n ? B(t + threadIdx.y, col) : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < GEMM_TILE; ++i) sum += a[threadIdx.y][i] * b[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) C(row, col) = sum;
}
