#include "backend/cuda/launch_grid.hpp"

#include <algorithm>

namespace lightning::cuda {

int64_t grid_blocks(int64_t volume, bool reduction, int multiprocessors, int64_t block_threads) {
  const int64_t needed = (volume + block_threads - 1) / block_threads;
  const int64_t sms = std::max(1, multiprocessors);
  if (reduction) return std::max<int64_t>(1, std::min(needed, sms * 8));
  const int64_t four_waves = std::min(needed, sms * 32);
  const int64_t blocks = std::max((needed + kIndicesPerThread - 1) / kIndicesPerThread, four_waves);
  return std::max<int64_t>(1, std::min(blocks, int64_t{1} << 24));
}

int64_t array_reduction_threads(uint64_t value_bytes, int64_t shared_bytes) {
  if (value_bytes == 0 || shared_bytes <= 0) return 0;
  const int64_t fit = static_cast<int64_t>(static_cast<uint64_t>(shared_bytes) / value_bytes);
  const int64_t threads = std::min<int64_t>(fit, kBlockThreads);
  return threads >= 32 ? threads / 32 * 32 : threads;
}

}  // namespace lightning::cuda
