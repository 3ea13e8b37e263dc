#include "kernel/host_team.hpp"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <thread>

#include "core/error.hpp"
#include "kernel/kernel_thread.hpp"

namespace lightning::kernel {

namespace {
std::size_t lines_for(uint64_t bytes) {
  return static_cast<std::size_t>((bytes + 63) / 64);
}
// Where a lane is that its warp waits for.
std::string lane_at(int lane, HostTeam::Barrier kind) {
  return "lane " + std::to_string(lane) +
         (kind == HostTeam::Barrier::kTeamEnd ? " returned from the kernel"
                                              : " waits at a __syncthreads()");
}
}  // namespace

HostTeam::HostTeam(int size, uint64_t scratch0_bytes, uint64_t scratch1_bytes, Of of)
    : size_(size),
      of_(of),
      at_team_barrier_(static_cast<std::size_t>(size), 0),
      warps_(static_cast<std::size_t>((size + 31) / 32)),
      exchange_(lines_for(uint64_t{kExchangeBytes} * static_cast<uint64_t>(size + 1))),
      scratch_{std::vector<Line>(lines_for(scratch0_bytes)),
               std::vector<Line>(lines_for(scratch1_bytes))} {}

void HostTeam::barrier_of_several(Barrier kind, int rank) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (cancelled_) throw TeamCancelled{};
  if (rank >= 0) {
    const WarpSync& w = warps_[static_cast<std::size_t>(rank / 32)];
    const uint32_t lane = 1u << (rank % 32);
    if (w.arrived != 0 && (w.mask & lane) && !(w.arrived & lane))
      fail_warp(rank / 32, lane_at(rank % 32, kind));
  }
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
    at_team_barrier_.assign(at_team_barrier_.size(), 0);
    all_arrived_.notify_all();
    return;
  }
  if (rank >= 0) at_team_barrier_[static_cast<std::size_t>(rank)] = 1 + static_cast<uint8_t>(kind);
  const uint64_t generation = generation_;
  all_arrived_.wait(lock, [&] { return generation_ != generation || cancelled_; });
  if (generation_ == generation) throw TeamCancelled{};
}

void HostTeam::warp_barrier(int rank, uint32_t mask, WarpOp op) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (cancelled_) throw TeamCancelled{};
  const int warp = rank / 32;
  const int lanes = std::min(32, size_ - 32 * warp);
  const uint32_t lane = 1u << (rank % 32);
  const uint32_t expected = mask & warp_lanes(rank);
  const auto hex = [](uint32_t v) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", v);
    return std::string(text);
  };
  if (!(expected & lane))
    fail_warp(warp, "lane " + std::to_string(rank % 32) + " gave mask " + hex(mask) +
                        ", which does not name it");
  WarpSync& w = warps_[static_cast<std::size_t>(warp)];
  const auto kind = [](WarpOp o) {
    return o == WarpOp::kShuffle ? "a shuffle" : o == WarpOp::kVote ? "a vote" : "a __syncwarp()";
  };
  if (w.arrived == 0) {
    w.mask = expected;
    w.op = op;
  } else if (w.mask != expected) {
    fail_warp(warp, "lane " + std::to_string(rank % 32) + " gave mask " + hex(mask) +
                        " while others wait with mask " + hex(w.mask));
  } else if (w.op != op) {
    fail_warp(warp, "lane " + std::to_string(rank % 32) + " is at " + kind(op) +
                        " while others wait at " + kind(w.op));
  }
  for (int l = 0; l < lanes; ++l) {
    const uint8_t at = at_team_barrier_[static_cast<std::size_t>(32 * warp + l)];
    if ((expected >> l & 1u) && at != 0) fail_warp(warp, lane_at(l, static_cast<Barrier>(at - 1)));
  }
  w.arrived |= lane;
  if (w.arrived == w.mask) {
    w.arrived = 0;
    ++w.generation;
    all_arrived_.notify_all();
    return;
  }
  const uint64_t generation = w.generation;
  all_arrived_.wait(lock, [&] { return w.generation != generation || cancelled_; });
  if (w.generation == generation) throw TeamCancelled{};
}

void HostTeam::fail_warp(int warp, const std::string& what) {
  cancelled_ = true;
  all_arrived_.notify_all();
  throw Error(ErrorKind::kInvalidArgument,
              "the threads of warp " + std::to_string(warp) +
                  " of a block cannot meet at a warp intrinsic or __syncwarp(): " + what +
                  " (every lane a mask names must reach the same warp intrinsic with that mask; "
                  "on a GPU this kernel's behaviour is undefined)");
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
  const KernelBytes kernel = current_kernel();
  auto run = [&](int rank) {
    const KernelThreadScope in_kernel(kernel);  // member threads run the kernel's body too
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
