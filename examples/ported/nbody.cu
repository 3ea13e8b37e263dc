// All-pairs N-body accelerations with shared-memory tiles (in the manner of GPU Gems 3,
// ch. 31, written for this project): each block walks the bodies a tile at a time, every
// thread loading one body of the tile into shared memory, then each thread adds the pull of
// the whole tile on its own body. Bodies are float4 (x, y, z, mass); a body of mass 0 pulls
// nothing, so the last tile is padded with them.
//
// Ported from the CUDA form in the three documented ways (__device__, the block index first,
// float4* as lightning::Vector<float4>) and one more for host devices: `extern __shared__
// float4 tile[];` is spelt LIGHTNING_DYNAMIC_SHARED(float4, tile).
__device__ void nbody_accelerations(dim3 blockIdx, int n, float softening2,
                                    const lightning::Vector<float4> bodies,
                                    lightning::Vector<float4> accelerations) {
  LIGHTNING_DYNAMIC_SHARED(float4, tile);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = i < n ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    const int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (unsigned k = 0; k < blockDim.x; ++k) {
      const float4 other = tile[k];
      const float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
      const float inverse = rsqrtf(dx * dx + dy * dy + dz * dz + softening2);
      const float s = other.w * inverse * inverse * inverse;
      ax += dx * s;
      ay += dy * s;
      az += dz * s;
    }
    __syncthreads();
  }
  if (i < n) accelerations[i] = make_float4(ax, ay, az, 0.0f);
}
