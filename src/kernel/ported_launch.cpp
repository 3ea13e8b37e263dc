#include "kernel/ported_launch.hpp"

#include "core/error.hpp"
#include "core/size_text.hpp"
#include "kernel/block_limits.hpp"

namespace lightning::kernel {

namespace {
std::string tuple(const uint32_t* v, uint32_t rank) {
  std::string s = "(";
  for (uint32_t a = 0; a < rank; ++a) s += (a ? ", " : "") + std::to_string(v[a]);
  return s + ")";
}
}  // namespace

Rect domain_of(const jit::PortedLaunch& launch) {
  const int rank = static_cast<int>(launch.rank);
  Point hi = Point::filled(rank, 0);
  for (int a = 0; a < rank; ++a) hi[a] = int64_t{launch.grid[a]} * int64_t{launch.block[a]};
  return Rect(Point::filled(rank, 0), hi);
}

Point block_size_of(const jit::PortedLaunch& launch) {
  const int rank = static_cast<int>(launch.rank);
  Point b = Point::filled(rank, 1);
  for (int a = 0; a < rank; ++a) b[a] = launch.block[a];
  return b;
}

std::string limit_violation(const jit::PortedLaunch& launch, int64_t max_threads) {
  if (launch.rank < 1 || launch.rank > 3)
    return "a launch of " + std::to_string(launch.rank) + " axes (1 to 3)";
  static const char* const kAxis[3] = {"x", "y", "z"};
  int64_t threads = 1;
  for (int a = 0; a < 3; ++a) {
    const bool used = a < static_cast<int>(launch.rank);
    if (launch.grid[a] < 1 || launch.block[a] < 1 ||
        (!used && (launch.grid[a] != 1 || launch.block[a] != 1)))
      return "grid " + tuple(launch.grid, 3) + " of blocks " + tuple(launch.block, 3) +
             ": every extent must be at least 1 (and 1 beyond the launch's axes)";
    if (launch.block[a] > BlockLimits::kMaxBlock[a])
      return std::string("a block of ") + std::to_string(launch.block[a]) + " threads along " +
             kAxis[a] + " is more than " + std::to_string(BlockLimits::kMaxBlock[a]);
    if (launch.grid[a] > BlockLimits::kMaxGrid[a])
      return std::string("a grid of ") + std::to_string(launch.grid[a]) + " blocks along " +
             kAxis[a] + " is more than " + std::to_string(BlockLimits::kMaxGrid[a]);
    threads *= launch.block[a];
  }
  if (threads > BlockLimits::kMaxThreads)
    return "a block " + tuple(launch.block, launch.rank) + " of " + std::to_string(threads) +
           " threads is more than " + std::to_string(BlockLimits::kMaxThreads);
  if (launch.shared_bytes > BlockLimits::kMaxSharedOptIn)
    return std::to_string(launch.shared_bytes) +
           " bytes of dynamic shared memory per block are more than the " +
           std::to_string(BlockLimits::kMaxSharedOptIn) + " (" +
           format_size(BlockLimits::kMaxSharedOptIn) + ") a block may have on any GPU";
  if (max_threads > 0 && threads > max_threads)
    return "a block " + tuple(launch.block, launch.rank) + " of " + std::to_string(threads) +
           " threads is more than the kernel's __launch_bounds__ allow (" +
           std::to_string(max_threads) + ")";
  return {};
}

std::array<uint32_t, 3> superblock_grid(const jit::PortedLaunch& launch, const Rect& superblock) {
  std::array<uint32_t, 3> blocks{1, 1, 1};
  if (superblock.rank() != static_cast<int>(launch.rank))
    throw Error(ErrorKind::kInternal, "superblock " + superblock.to_string() + " of a launch of " +
                                          std::to_string(launch.rank) + " axes");
  for (int a = 0; a < superblock.rank(); ++a) {
    const int64_t b = launch.block[a];
    const int64_t lo = superblock.lo()[a], hi = superblock.hi()[a];
    if (lo % b != 0 || hi % b != 0)
      throw Error(ErrorKind::kInternal, "superblock " + superblock.to_string() +
                                            " is not whole blocks of " + to_string(launch));
    blocks[static_cast<size_t>(a)] = static_cast<uint32_t>((hi - lo) / b);
  }
  return blocks;
}

std::array<uint32_t, 3> superblock_first_block(const jit::PortedLaunch& launch,
                                               const Rect& superblock) {
  std::array<uint32_t, 3> first{0, 0, 0};
  for (int a = 0; a < superblock.rank() && a < 3; ++a)
    first[static_cast<size_t>(a)] = static_cast<uint32_t>(superblock.lo()[a] / launch.block[a]);
  return first;
}

std::string to_string(const jit::PortedLaunch& launch) {
  const uint32_t rank = launch.rank >= 1 && launch.rank <= 3 ? launch.rank : 3;
  return "grid " + tuple(launch.grid, rank) + " of blocks " + tuple(launch.block, rank);
}

}  // namespace lightning::kernel
