// The assignment step of k-means (as in Rodinia's kmeans): each thread finds the nearest
// centroid of one point. The original CUDA kernel was
//
//   __global__ void kmeans_assign(int n, int k, int d, const float* points,
//                                 const float* centroids, int* labels) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i >= n) return;
//     int best = 0;
//     float best_distance = 3.4e38f;
//     for (int c = 0; c < k; ++c) {
//       float distance = 0;
//       for (int j = 0; j < d; ++j) {
//         float diff = points[i * d + j] - centroids[c * d + j];
//         distance += diff * diff;
//       }
//       if (distance < best_distance) { best_distance = distance; best = c; }
//     }
//     labels[i] = best;
//   }
//
// Ported: __device__, the block index first, pointers as lightning::Matrix / Vector (the
// flattened `points[i * d + j]` becomes `points(i, j)`).
__device__ void kmeans_assign(dim3 blockIdx, int n, int k, int d,
                              const lightning::Matrix<float> points,
                              const lightning::Matrix<float> centroids,
                              lightning::Vector<int> labels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int best = 0;
  float best_distance = 3.4e38f;
  for (int c = 0; c < k; ++c) {
    float distance = 0;
    for (int j = 0; j < d; ++j) {
      float diff = points(i, j) - centroids(c, j);
      distance += diff * diff;
    }
    if (distance < best_distance) {
      best_distance = distance;
      best = c;
    }
  }
  labels[i] = best;
}
