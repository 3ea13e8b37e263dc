// A HotSpot-style thermal step (after Rodinia's HotSpot, written for this project): each
// 16x16 block loads a window of the temperature and power grids into shared memory and runs
// `steps` Jacobi steps there (the "pyramid": every step the valid part shrinks by one cell
// on each side), then writes its inner (16 - 2 steps)^2 tile. Cells at the grid's edge take
// their own temperature for a missing neighbour.
//
// Ported from the CUDA form in the three documented ways: __global__ -> __device__, the
// block index is the first parameter, and float* become lightning::Matrix<float> indexed
// (row, column) instead of [row * cols + column].
#define HOTSPOT_BLOCK 16

__device__ void __launch_bounds__(HOTSPOT_BLOCK* HOTSPOT_BLOCK)
    hotspot(dim3 blockIdx, int steps, int rows, int cols, const lightning::Matrix<float> power,
            const lightning::Matrix<float> src, lightning::Matrix<float> dst, float cap, float rx,
            float ry, float rz, float step, float ambient) {
  __shared__ float temp[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
  __shared__ float heat[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
  __shared__ float next[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
  const int tile = HOTSPOT_BLOCK - 2 * steps;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * tile - steps + ty;
  const int col = blockIdx.x * tile - steps + tx;
  const bool inside = row >= 0 && row < rows && col >= 0 && col < cols;
  if (inside) {
    temp[ty][tx] = src(row, col);
    heat[ty][tx] = power(row, col);
  }
  __syncthreads();
  bool computed = false;
  for (int s = 0; s < steps; ++s) {
    // Cells s + 1 or more from the window's edge have valid neighbours for step s.
    const int lo = s + 1, hi = HOTSPOT_BLOCK - 2 - s;
    computed = inside && tx >= lo && tx <= hi && ty >= lo && ty <= hi;
    if (computed) {
      const float c = temp[ty][tx];
      const float north = row > 0 ? temp[ty - 1][tx] : c;
      const float south = row < rows - 1 ? temp[ty + 1][tx] : c;
      const float west = col > 0 ? temp[ty][tx - 1] : c;
      const float east = col < cols - 1 ? temp[ty][tx + 1] : c;
      next[ty][tx] = c + step / cap *
                             (heat[ty][tx] + (north + south - 2.0f * c) * ry +
                              (east + west - 2.0f * c) * rx + (ambient - c) * rz);
    }
    __syncthreads();
    if (s + 1 == steps) break;
    if (computed) temp[ty][tx] = next[ty][tx];
    __syncthreads();
  }
  const bool mine =
      tx >= steps && tx < HOTSPOT_BLOCK - steps && ty >= steps && ty < HOTSPOT_BLOCK - steps;
  if (computed && mine) dst(row, col) = next[ty][tx];
}
