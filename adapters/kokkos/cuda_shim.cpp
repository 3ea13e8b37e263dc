// The CUDA shim's block loop: the blocks of a superblock, each run by a team of host threads.
#include "lightning_kokkos/cuda_shim.hpp"

#include <mutex>

#include "kernel/ported_launch.hpp"

namespace lightning::shim {

namespace {
// __shared__ variables are function statics under the shim, shared by every block of the
// process: blocks must not overlap, whichever device or kernel they belong to.
std::mutex& block_lock() {
  static std::mutex lock;
  return lock;
}
}  // namespace

void run_blocks(const jit::PortedLaunch& launch, const Rect& superblock,
                const std::function<void(int rank, kernel::HostTeam& team)>& enter,
                const std::function<void(const dim3& index)>& block) {
  const std::array<uint32_t, 3> blocks = kernel::superblock_grid(launch, superblock);
  const std::array<uint32_t, 3> first = kernel::superblock_first_block(launch, superblock);
  const int threads = static_cast<int>(launch.block[0] * launch.block[1] * launch.block[2]);
  std::lock_guard<std::mutex> hold(block_lock());
  kernel::run_host_team(
      threads, launch.shared_bytes, 0,
      [&](int rank, kernel::HostTeam& team) {
        enter(rank, team);
        for (unsigned z = 0; z < blocks[2]; ++z)
          for (unsigned y = 0; y < blocks[1]; ++y)
            for (unsigned x = 0; x < blocks[0]; ++x) {
              block(dim3(first[0] + x, first[1] + y, first[2] + z));
              // Every thread is done with the block (and its shared memory).
              team.barrier(kernel::HostTeam::Barrier::kTeamEnd, rank);
            }
      },
      kernel::HostTeam::Of::kCudaBlock);
}

}  // namespace lightning::shim
