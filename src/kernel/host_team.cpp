#include "kernel/host_team.hpp"

#include <exception>

#include <thread>
#include "core/error.hpp"

namespace lightning::kernel {

namespace {
std::size_t lines_for(uint64_t bytes) {
  return static_cast<std::size_t>((bytes + 63) / 64);
}
}  // namespace

HostTeam::HostTeam(int size, uint64_t scratch0_bytes, uint64_t scratch1_bytes, Of of)
    : size_(size),
      of_(of),
      exchange_(lines_for(uint64_t{kExchangeBytes} * static_cast<uint64_t>(size + 1))),
      scratch_{std::vector<Line>(lines_for(scratch0_bytes)),
               std::vector<Line>(lines_for(scratch1_bytes))} {}

void HostTeam::barrier(Barrier kind) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (cancelled_) throw TeamCancelled{};
  if (arrived_ == 0) {
    waiting_at_ = kind;
  } else if (kind != waiting_at_) {
    cancelled_ = true;
    all_arrived_.notify_all();
    if (of_ == Of::kCudaBlock)
      throw Error(ErrorKind::kInvalidArgument,
                  "the threads of a block reached different barriers: some returned from the "
                  "kernel while others wait at a __syncthreads() (every thread of a block must "
                  "reach every __syncthreads(); on a GPU this kernel's behaviour is undefined)");
    throw Error(ErrorKind::kInvalidArgument,
                "the members of a team reached different barriers: some returned from the "
                "kernel while others wait at a team barrier or collective (every member must "
                "reach every team_barrier, team_reduce, team_broadcast, team_scan and nested "
                "reduction or scan of its team; on a GPU this kernel would hang)");
  }
  if (++arrived_ == size_) {
    arrived_ = 0;
    ++generation_;
    all_arrived_.notify_all();
    return;
  }
  const uint64_t generation = generation_;
  all_arrived_.wait(lock, [&] { return generation_ != generation || cancelled_; });
  if (generation_ == generation) throw TeamCancelled{};
}

void HostTeam::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
  all_arrived_.notify_all();
}

void run_host_team(int team_size, uint64_t scratch0_bytes, uint64_t scratch1_bytes,
                   const std::function<void(int rank, HostTeam& team)>& member, HostTeam::Of of) {
  HostTeam team(team_size, scratch0_bytes, scratch1_bytes, of);
  if (team_size == 1) {
    member(0, team);
    return;
  }
  std::mutex failure_mutex;
  // The first member's error, whatever the kernel threw, rethrown on the caller's thread
  // (where the device turns it into the task's failure); the others only see the cancel.
  std::exception_ptr failure;
  auto run = [&](int rank) {
    try {
      member(rank, team);
    } catch (const HostTeam::TeamCancelled&) {
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
      team.cancel();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(team_size - 1));
  try {
    for (int rank = 1; rank < team_size; ++rank) threads.emplace_back(run, rank);
  } catch (...) {  // no thread for a member: release the others, then fail
    team.cancel();
    for (std::thread& t : threads) t.join();
    throw;
  }
  run(0);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace lightning::kernel
