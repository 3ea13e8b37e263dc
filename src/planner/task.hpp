// The tasks of a plan: what a worker does, and which data each task touches.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/rect.hpp"
#include "core/reduction.hpp"

namespace lightning::planner {

/// How a task touches a region of a chunk.
enum class ChunkAccessMode : uint8_t {
  kRead,
  kWrite,  ///< writes (part of) the region: elements it leaves alone keep their values
  kReadWrite,
  /// Writes every element of the region and reads none: the region's old contents need not
  /// be brought to where the task runs (data tasks into their region; kernels whose
  /// `overwrite` rule is dense there).
  kOverwrite,
};

/// Whether a task in `mode` needs the region's contents as they were before it.
inline bool reads(ChunkAccessMode mode) {
  return mode == ChunkAccessMode::kRead || mode == ChunkAccessMode::kReadWrite;
}
/// Whether a task in `mode` changes the region.
inline bool writes(ChunkAccessMode mode) {
  return mode != ChunkAccessMode::kRead;
}

/// One region of one chunk that a task reads and/or writes. Regions are in the array's global
/// coordinates (a chunk's box is too), so the same Rect means the same elements everywhere.
struct ChunkAccess {
  ChunkId chunk;
  Rect region;
  ChunkAccessMode mode = ChunkAccessMode::kRead;
};

/// Where a transfer's bytes come from or go to on the driver: a host buffer the application
/// passed to deep_copy (or a scalar result), named by the driver.
struct HostBufferId {
  uint64_t value = 0;
  friend bool operator==(HostBufferId a, HostBufferId b) { return a.value == b.value; }
};

/// Make a chunk exist on its worker (memory is the worker's business, allocated on first use).
struct CreateChunkTask {
  ChunkId chunk;
  ArrayId array;    ///< the array it belongs to (for temporaries too: element type, name)
  Rect box;         ///< what it holds, in array coordinates
  DeviceId device;  ///< where it prefers to live
  bool temporary = false;
  uint64_t bytes = 0;                ///< box volume times element size (rank 0: value size)
  DataType type = DataType::kUInt8;  ///< element type (scalar reduction values: bytes)
  uint32_t element_size = 1;         ///< bytes per element (rank 0: the whole value)
};

/// Free a chunk's memory and spill files.
struct DeleteChunkTask {
  ChunkId chunk;
  Rect box;  ///< the chunk's box, as created
};

/// Which pass of a parallel_scan an Execute task runs (Kokkos' `final` flag).
enum class ScanPass : uint8_t {
  kNone,     ///< not a scan
  kPartial,  ///< every thread with final = false from the identity: the superblock's total
  kFinal,    ///< every thread with final = true from the superblock's prefix (`scan_prefix`)
};

/// Run a kernel over one superblock on one device. `bindings[i]` is the chunk that kernel
/// parameter `params[i]` reads or writes (one per array parameter the annotation mentions).
struct ExecuteTask {
  LaunchId launch;
  KernelId kernel;
  Rect superblock;  ///< thread indices
  DeviceId device;
  struct Binding {
    int param = 0;  ///< index of the kernel parameter
    ChunkId chunk;  ///< the chunk the parameter's handle is pointed at
    Rect region;    ///< the annotation's access region (inside the chunk's box)
    ChunkAccessMode mode = ChunkAccessMode::kReadWrite;  ///< reduce partials are read-write
    /// The launch's array behind the parameter (the chunk may be a temporary holding part of
    /// it): what a failed run leaves invalid is named by it.
    ArrayId array = {};

    friend bool operator==(const Binding& a, const Binding& b) {
      return a.param == b.param && a.chunk == b.chunk && a.region == b.region && a.mode == b.mode &&
             a.array == b.array;
    }
    friend bool operator!=(const Binding& a, const Binding& b) { return !(a == b); }
  };
  std::vector<Binding> bindings;
  /// For scalar reductions and a scan's partial pass: the rank-0 chunk receiving this
  /// superblock's partial result. For a scan's final pass: where it leaves the value after
  /// its last index (its prefix joined with all of its values), the scan's total when this
  /// is the last superblock and the launch asks for one; invalid otherwise.
  ChunkId scalar_partial;
  ScanPass scan = ScanPass::kNone;
  /// A scan's final pass: the rank-0 chunk holding the fold of every earlier superblock's
  /// partial (the value its first thread starts from); invalid for the first superblock,
  /// which starts from the identity.
  ChunkId scan_prefix = {};
};

/// Copy a region between two chunks of one worker (any memories).
struct CopyTask {
  ChunkId src;
  ChunkId dst;
  Rect region;
};

/// Send a region of a chunk (or of a driver host buffer) to another worker.
struct SendTask {
  ChunkId src;            ///< invalid when the source is a host buffer
  HostBufferId host_src;  ///< the source when `src` is invalid
  Rect host_box;          ///< the box the host buffer holds (row-major), when it is the source
  Rect region;
  WorkerId to;
  uint64_t tag = 0;  ///< unique per plan stream; matches exactly one RecvTask
};

/// Receive a region into a chunk (or into a driver host buffer) from another worker.
struct RecvTask {
  ChunkId dst;  ///< invalid when the destination is a host buffer
  HostBufferId host_dst;
  Rect host_box;  ///< the box the host buffer holds (row-major), when it is the target
  Rect region;
  WorkerId from;
  uint64_t tag = 0;
};

/// Set a region of a chunk to one value (element bytes, e.g. a reduction's identity).
struct FillTask {
  ChunkId chunk;
  Rect region;
  std::vector<uint8_t> value;  ///< one element
};

/// dst[region] = dst[region] op src[region], element by element with `reduction` (rank-0
/// chunks hold one reduction value; a custom reduction's functions are those of `launch`'s
/// kernel). `assign` overwrites instead (the first partial).
struct FoldTask {
  ChunkId src;
  ChunkId dst;
  Rect region;
  Reduction reduction;
  LaunchId launch;  ///< for a custom reduction: whose kernel joins
  bool assign = false;
};

/// Copy a host buffer (on the driver, worker 0) into a chunk region.
struct HostWriteTask {
  HostBufferId buffer;
  Rect host_box;  ///< the box the buffer holds, row-major
  ChunkId dst;
  Rect region;
};

/// Copy a chunk region into a host buffer on the driver (worker 0).
struct HostReadTask {
  ChunkId src;
  HostBufferId buffer;
  Rect host_box;  ///< the box the buffer holds, row-major
  Rect region;
  /// For scalar reductions: fold into the buffer (the result) with `reduction` instead of
  /// copying (a custom reduction joins with the functions of `launch`'s kernel).
  bool fold = false;
  Reduction reduction;
  LaunchId launch;
};

/// Completes when everything before it on its worker has: what a fence waits for.
struct BarrierTask {
  LaunchId fence;
};

using TaskKind =
    std::variant<CreateChunkTask, DeleteChunkTask, ExecuteTask, CopyTask, SendTask, RecvTask,
                 FillTask, FoldTask, HostWriteTask, HostReadTask, BarrierTask>;

/// A task of one worker's DAG. `deps` are earlier tasks of the same worker: workers are
/// ordered against each other only through matching Send/Recv pairs.
struct Task {
  TaskId id;
  WorkerId worker;
  TaskKind kind;
  std::vector<TaskId> deps;
  /// Every chunk region the task reads or writes (derived from `kind`, kept for the
  /// scheduler, the memory manager and the checkers).
  std::vector<ChunkAccess> accesses;
};

/// The chunk regions a task of this kind reads and writes. Creating and deleting a chunk count
/// as writes of its whole box, so that every use of a chunk is ordered between the two.
std::vector<ChunkAccess> accesses_of(const TaskKind& kind);

/// "Execute", "Copy", ...: the kind's name.
const char* name_of(const TaskKind& kind);

/// One line for logs and graphs: "T12 Copy C3 -> C7 [0, 64)".
std::string describe(const Task& task);

}  // namespace lightning::planner
