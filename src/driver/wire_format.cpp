#include "driver/wire_format.hpp"

#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/utility.hpp>
#include <cereal/types/variant.hpp>
#include <cereal/types/vector.hpp>

#include "core/error.hpp"
#include "driver/byte_archive.hpp"
#include "kernel/kernel_registry.hpp"

// Serialisation of the project's types, in cereal's namespace (where cereal looks for
// non-member functions). Field order is the wire order: change it only with kFormatVersion.
namespace cereal {

template <class Archive, class Tag>
void save(Archive& a, const lightning::StrongId<Tag>& id) {
  a(id.value());
}
template <class Archive, class Tag>
void load(Archive& a, lightning::StrongId<Tag>& id) {
  uint64_t v = 0;
  a(v);
  id = lightning::StrongId<Tag>(v);
}

// The operator, type, size and registered reducer; never a custom reduction's functions (see
// LaunchData).
template <class Archive>
void save(Archive& a, const lightning::Reduction& r) {
  a(r.op, r.type, r.value_size, r.reducer);
}
template <class Archive>
void load(Archive& a, lightning::Reduction& r) {
  r = lightning::Reduction();
  a(r.op, r.type, r.value_size, r.reducer);
}

template <class Archive>
void save(Archive& a, const lightning::Point& p) {
  const int8_t rank = static_cast<int8_t>(p.rank());
  a(rank);
  for (int axis = 0; axis < rank; ++axis) a(p[axis]);
}
template <class Archive>
void load(Archive& a, lightning::Point& p) {
  int8_t rank = 0;
  a(rank);
  if (rank < 0 || rank > lightning::kMaxRank)
    throw lightning::Error(lightning::ErrorKind::kCommunication,
                           "a point of rank " + std::to_string(rank));
  p = lightning::Point::filled(rank, 0);
  for (int axis = 0; axis < rank; ++axis) a(p[axis]);
}

template <class Archive>
void save(Archive& a, const lightning::Rect& r) {
  a(r.lo(), r.hi());
}
template <class Archive>
void load(Archive& a, lightning::Rect& r) {
  lightning::Point lo, hi;
  a(lo, hi);
  if (lo.rank() != hi.rank())
    throw lightning::Error(lightning::ErrorKind::kCommunication,
                           "a box whose corners have ranks " + std::to_string(lo.rank()) + " and " +
                               std::to_string(hi.rank()));
  r = lightning::Rect(lo, hi);
}

template <class Archive>
void serialize(Archive& a, lightning::DeviceSelection& s) {
  a(s.kind, s.host_count, s.cuda_ordinals);
}
template <class Archive>
void serialize(Archive& a, lightning::Config& c) {
  int64_t gpu_poll_us = c.gpu_poll.count();  // out as a count; in, then set
  a(c.devices, c.device_memory, c.host_memory, c.spill_dir, c.staging_limit, c.trace, c.log,
    c.jit_cache, c.check_access, gpu_poll_us);
  c.gpu_poll = std::chrono::microseconds(gpu_poll_us);
}

}  // namespace cereal

namespace lightning::planner {

template <class Archive>
void serialize(Archive& a, HostBufferId& b) {
  a(b.value);
}
template <class Archive>
void serialize(Archive& a, ChunkAccess& x) {
  a(x.chunk, x.region, x.mode);
}
template <class Archive>
void serialize(Archive& a, CreateChunkTask& t) {
  a(t.chunk, t.array, t.box, t.device, t.temporary, t.bytes, t.type, t.element_size);
}
template <class Archive>
void serialize(Archive& a, DeleteChunkTask& t) {
  a(t.chunk, t.box);
}
template <class Archive>
void serialize(Archive& a, ExecuteTask::Binding& b) {
  a(b.param, b.chunk, b.region, b.mode, b.array);
}
template <class Archive>
void serialize(Archive& a, ExecuteTask& t) {
  a(t.launch, t.kernel, t.superblock, t.device, t.bindings, t.scalar_partial, t.scan,
    t.scan_prefix);
}
template <class Archive>
void serialize(Archive& a, CopyTask& t) {
  a(t.src, t.dst, t.region);
}
template <class Archive>
void serialize(Archive& a, SendTask& t) {
  a(t.src, t.host_src, t.host_box, t.region, t.to, t.tag);
}
template <class Archive>
void serialize(Archive& a, RecvTask& t) {
  a(t.dst, t.host_dst, t.host_box, t.region, t.from, t.tag);
}
template <class Archive>
void serialize(Archive& a, FillTask& t) {
  a(t.chunk, t.region, t.value);
}
template <class Archive>
void serialize(Archive& a, FoldTask& t) {
  a(t.src, t.dst, t.region, t.reduction, t.launch, t.assign);
}
template <class Archive>
void serialize(Archive& a, HostWriteTask& t) {
  a(t.buffer, t.host_box, t.dst, t.region);
}
template <class Archive>
void serialize(Archive& a, HostReadTask& t) {
  a(t.src, t.buffer, t.host_box, t.region, t.fold, t.reduction, t.launch);
}
template <class Archive>
void serialize(Archive& a, BarrierTask& t) {
  a(t.fence);
}
template <class Archive>
void serialize(Archive& a, Task& t) {
  a(t.id, t.worker, t.kind, t.deps, t.accesses);
}
template <class Archive>
void serialize(Archive& a, TaskFailure::Kernel& k) {
  a(k.name, k.label, k.launch, k.superblock, k.device, k.bindings);
}
template <class Archive>
void serialize(Archive& a, AccessViolation& v) {
  a(v.param, v.index, v.region, v.mode, v.kind);
}
template <class Archive>
void serialize(Archive& a, TaskFailure& f) {
  a(f.task, f.kind, f.detail, f.worker, f.rank, f.kernel, f.error, f.caused_by, f.what,
    f.violation);
}

}  // namespace lightning::planner

namespace lightning::kernel {

template <class Archive>
void serialize(Archive& a, ArraySlot& s) {
  a(s.param, s.byte_offset, s.rank);
}

}  // namespace lightning::kernel

namespace lightning::worker {

template <class Archive>
void save(Archive& a, const LaunchData& d) {
  a(d.kernel, d.name, d.functor, d.extents, d.arrays, d.reduction);
}
// A custom reduction's functions are addresses of this process: taken from its registry.
template <class Archive>
void load(Archive& a, LaunchData& d) {
  a(d.kernel, d.name, d.functor, d.extents, d.arrays, d.reduction);
  if (d.reduction.is_custom())
    d.reduction = kernel::KernelRegistry::get(d.kernel).resolve(d.reduction, d.functor);
}
template <class Archive>
void serialize(Archive& a, MemoryCounters& c) {
  a(c.device_evictions, c.host_evictions, c.write_backs_to_host, c.disk_writes, c.disk_reads,
    c.bytes_copied, c.bytes_written_to_disk, c.bytes_read_from_disk, c.zero_fills, c.invalidations);
}

}  // namespace lightning::worker

namespace lightning::driver::rpc {

template <class Archive>
void serialize(Archive& a, OpenSession& m) {
  a(m.session, m.config);
}
template <class Archive>
void serialize(Archive& a, DevicesOffered& m) {
  a(m.session, m.count, m.gpus, m.error);
}
template <class Archive>
void serialize(Archive& a, StartWorker& m) {
  a(m.session, m.devices, m.device_bytes);
}
template <class Archive>
void serialize(Archive& a, WorkerStarted& m) {
  a(m.error);
}
// The launches as a vector of (id, data) pairs: a size, then each pair's fields.
template <class Archive>
void save(Archive& a, const SubmitFragment& m) {
  a(m.tasks, cereal::make_size_tag(static_cast<cereal::size_type>(m.launches.size())));
  for (const auto& [id, data] : m.launches) a(id, *data);
  a(m.repeated);
}
template <class Archive>
void load(Archive& a, SubmitFragment& m) {
  cereal::size_type launches = 0;
  a(m.tasks, cereal::make_size_tag(launches));
  m.launches.clear();
  for (cereal::size_type i = 0; i < launches; ++i) {
    LaunchId id;
    auto data = std::make_shared<worker::LaunchData>();
    a(id, *data);
    m.launches.emplace_back(id, std::move(data));
  }
  a(m.repeated);
}
template <class Archive>
void serialize(Archive& a, TaskCompleted& m) {
  a(m.task, m.failure);
}
template <class Archive>
void serialize(Archive& a, TasksCompleted& m) {
  a(m.tasks);
}
template <class Archive>
void serialize(Archive&, ReportMemory&) {}
template <class Archive>
void serialize(Archive& a, MemoryReported& m) {
  a(m.device_bytes, m.host_bytes, m.spill_files, m.chunks, m.counters);
}
template <class Archive>
void serialize(Archive&, CloseSession&) {}
template <class Archive>
void serialize(Archive& a, SessionClosed& m) {
  a(m.error);
}
template <class Archive>
void serialize(Archive&, EndRun&) {}

namespace {

// Bumped whenever a message's fields change.
constexpr uint32_t kFormatVersion = 5;

}  // namespace

std::vector<uint8_t> encode(const Message& message) {
  std::vector<uint8_t> bytes;
  ByteOutputArchive archive(bytes);
  archive(kFormatVersion, message);
  archive.finish();
  return bytes;
}

Message decode(const std::vector<uint8_t>& bytes, int from_rank) {
  ByteInputArchive archive(bytes.data(), bytes.size());
  Message message;
  uint32_t version = 0;
  try {
    archive(version);
    if (version != kFormatVersion)
      throw Error(ErrorKind::kCommunication,
                  "wire format version " + std::to_string(version) + ", this build speaks " +
                      std::to_string(kFormatVersion) + " (are all ranks the same binary?)");
    archive(message);
  } catch (const std::exception& e) {
    throw Error(ErrorKind::kCommunication, "undecodable control message of " +
                                               std::to_string(bytes.size()) + " bytes from rank " +
                                               std::to_string(from_rank) + ": " + e.what());
  }
  if (archive.left() != 0)
    throw Error(ErrorKind::kCommunication, "control message from rank " +
                                               std::to_string(from_rank) + " has " +
                                               std::to_string(archive.left()) + " trailing bytes");
  return message;
}

const char* name_of(const Message& message) {
  static const char* const kNames[] = {"OpenSession",   "DevicesOffered", "StartWorker",
                                       "WorkerStarted", "SubmitFragment", "TasksCompleted",
                                       "ReportMemory",  "MemoryReported", "CloseSession",
                                       "SessionClosed", "EndRun"};
  static_assert(std::size(kNames) == std::variant_size_v<Message>);
  return kNames[message.index()];
}

}  // namespace lightning::driver::rpc
