// Which staging token holds each staged task's chunks: a launch issued behind one that holds
// exactly the chunks it needs shares that launch's staging instead of asking for its own.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ids.hpp"
#include "core/reused_nodes.hpp"
#include "worker/memory_manager.hpp"

namespace lightning::worker {

/// The staging of a worker's tasks as tokens shared between tasks, on the scheduler thread.
///
/// A task staged by the memory manager holds its chunks under its own token. A launch issued
/// behind others on an in-order device (Scheduler) usually needs the very chunks the launch
/// before it holds: the same chunks, in the same memories, written or not alike (a loop of
/// one kernel, which asks for them in the same order). It then *shares* that launch's token: its
/// data pointers are the holder's, and no message goes to the staging thread and back, neither to
/// stage nor to unstage it. The token is released (unstaged) when the last task sharing it is done.
/// Sharing only identical request lists keeps the memory manager's view exact: the token holds what
/// each sharer would hold, locked as each would lock it (a written chunk stays the only copy; see
/// MemoryManager).
///
/// A launch may share with one whose staging is still under way: it is staged when that one
/// is, and is not in place when that one is not (or fails to stage), as if it had asked the
/// memory manager to stage it in place behind it.
///
/// Single-threaded: its owner (the worker's scheduler thread) serialises calls.
class StagingLeases {
 public:
  /// Tasks whose staging was settled by another's (staged or not staged with it), in the order
  /// they shared.
  using Settled = std::vector<TaskId>;

  /// `task` asked the memory manager for `requests` (one per access, in access order) under
  /// its own token; its pointers come with staged().
  void requested(TaskId task, const std::vector<StageRequest>& requests);
  /// How share() went.
  enum class Share {
    kNo,       ///< no holder has exactly these chunks: stage the task as usual
    kShared,   ///< staged: pointers() holds the data per request
    kPending,  ///< the holder is being staged: settled with it (staged() or not_staged())
  };
  /// When one of `holders` (tasks requested or staged here) asked for exactly `requests`
  /// (chunk, memory and written, request by request), `task` shares its token.
  Share share(TaskId task, const std::vector<StageRequest>& requests,
              const std::vector<TaskId>& holders);
  /// The memory manager staged `task` (requested() before): `pointers` per request. Returns
  /// the tasks that shared with it meanwhile, now staged with the same pointers. Nothing
  /// changes for a task staged already (a sharer).
  Settled staged(TaskId task, const std::vector<void*>& pointers);
  /// `task` was not staged after all (staging failed, or was not in place): returns the tasks
  /// that shared with it meanwhile, not staged either (with no pointers).
  Settled not_staged(TaskId task);
  /// `task` is done with its chunks: returns the token to unstage when it was the token's last
  /// holder (nothing when others still share it). Throws Error(kInternal) for a task that
  /// holds nothing.
  std::optional<TaskId> release(TaskId task);

  /// The data of `task`'s chunks per request while it is staged; empty for a task not staged
  /// here (one that needs no chunks).
  const std::vector<void*>& pointers(TaskId task) const;
  /// The token `task`'s chunks are staged under (its own unless it shares one).
  TaskId token(TaskId task) const;
  /// Tasks that hold `token` (for tests).
  int holders(TaskId token) const;
  /// Tasks known (requested, staged or sharing).
  size_t size() const { return tasks_.size(); }

 private:
  struct Entry {
    TaskId token;                        // whose staging holds the chunks
    std::vector<StageRequest> requests;  // as asked, one per access
    std::vector<void*> pointers;         // per request, once staged
    bool staged = false;
    std::vector<TaskId> sharers;  // waiting for this task's staging
  };

  /// The entry of `task`, made from a released one when there is one (its vectors keep their
  /// storage: a chain of launches allocates nothing here).
  Entry& entry(TaskId task);
  /// Marks `task` staged with `pointers` and settles its sharers, into `settled`.
  void settle(TaskId task, const std::vector<void*>& pointers, Settled& settled);
  /// Forgets `task` and its sharers (not staged), into `settled`.
  void drop(TaskId task, Settled& settled);

  std::unordered_map<TaskId, Entry> tasks_;
  std::unordered_map<TaskId, int> holders_;  // per token
  ReusedNodes<std::unordered_map<TaskId, Entry>> reused_;
};

}  // namespace lightning::worker
