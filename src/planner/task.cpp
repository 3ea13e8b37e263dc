#include "planner/task.hpp"

#include "core/overloaded.hpp"

#include <sstream>

namespace lightning::planner {

std::vector<ChunkAccess> accesses_of(const TaskKind& kind) {
  using M = ChunkAccessMode;
  return std::visit(
      Overloaded{
          // Data tasks write every element of their region (a new chunk has no old contents).
          [](const CreateChunkTask& t) {
            return std::vector<ChunkAccess>{{t.chunk, t.box, M::kOverwrite}};
          },
          // Deleting reads nothing, but must follow every use: a write of "everything" does.
          [](const DeleteChunkTask& t) {
            return std::vector<ChunkAccess>{{t.chunk, t.box, M::kWrite}};
          },
          [](const ExecuteTask& t) {
            std::vector<ChunkAccess> a;
            a.reserve(t.bindings.size() + 2);
            for (const auto& b : t.bindings) a.push_back({b.chunk, b.region, b.mode});
            if (t.scalar_partial.valid()) a.push_back({t.scalar_partial, Rect(), M::kWrite});
            if (t.scan_prefix.valid()) a.push_back({t.scan_prefix, Rect(), M::kRead});
            return a;
          },
          [](const CopyTask& t) {
            return std::vector<ChunkAccess>{{t.src, t.region, M::kRead},
                                            {t.dst, t.region, M::kOverwrite}};
          },
          [](const SendTask& t) {
            if (!t.src.valid()) return std::vector<ChunkAccess>{};
            return std::vector<ChunkAccess>{{t.src, t.region, M::kRead}};
          },
          [](const RecvTask& t) {
            if (!t.dst.valid()) return std::vector<ChunkAccess>{};
            return std::vector<ChunkAccess>{{t.dst, t.region, M::kOverwrite}};
          },
          [](const FillTask& t) {
            return std::vector<ChunkAccess>{{t.chunk, t.region, M::kOverwrite}};
          },
          [](const FoldTask& t) {
            return std::vector<ChunkAccess>{
                {t.src, t.region, M::kRead},
                {t.dst, t.region, t.assign ? M::kOverwrite : M::kReadWrite}};
          },
          [](const HostWriteTask& t) {
            return std::vector<ChunkAccess>{{t.dst, t.region, M::kOverwrite}};
          },
          [](const HostReadTask& t) {
            return std::vector<ChunkAccess>{{t.src, t.region, M::kRead}};
          },
          [](const BarrierTask&) { return std::vector<ChunkAccess>{}; },
      },
      kind);
}

const char* name_of(const TaskKind& kind) {
  static constexpr const char* kNames[] = {"CreateChunk", "DeleteChunk", "Execute", "Copy",
                                           "Send",        "Recv",        "Fill",    "Fold",
                                           "HostWrite",   "HostRead",    "Barrier"};
  static_assert(std::size(kNames) == std::variant_size_v<TaskKind>);
  return kNames[kind.index()];
}

std::string describe(const Task& task) {
  std::ostringstream os;
  os << task.id << " " << name_of(task.kind);
  std::visit(Overloaded{
                 [&](const CreateChunkTask& t) {
                   os << " " << t.chunk << (t.temporary ? " (temporary)" : "") << " of " << t.array
                      << " " << t.box.to_string() << " on " << t.device;
                 },
                 [&](const DeleteChunkTask& t) { os << " " << t.chunk; },
                 [&](const ExecuteTask& t) {
                   os << " " << t.kernel << " " << t.superblock.to_string() << " on " << t.device;
                   for (const auto& b : t.bindings) os << " p" << b.param << "=" << b.chunk;
                   if (t.scan == ScanPass::kPartial) os << " scan-partial";
                   if (t.scan == ScanPass::kFinal) os << " scan-final";
                   if (t.scalar_partial.valid()) os << " partial=" << t.scalar_partial;
                   if (t.scan_prefix.valid()) os << " prefix=" << t.scan_prefix;
                 },
                 [&](const CopyTask& t) {
                   os << " " << t.src << " -> " << t.dst << " " << t.region.to_string();
                 },
                 [&](const SendTask& t) {
                   if (t.src.valid())
                     os << " " << t.src;
                   else
                     os << " host buffer " << t.host_src.value;
                   os << " " << t.region.to_string() << " to " << t.to << " tag " << t.tag;
                 },
                 [&](const RecvTask& t) {
                   if (t.dst.valid())
                     os << " " << t.dst;
                   else
                     os << " host buffer " << t.host_dst.value;
                   os << " " << t.region.to_string() << " from " << t.from << " tag " << t.tag;
                 },
                 [&](const FillTask& t) { os << " " << t.chunk << " " << t.region.to_string(); },
                 [&](const FoldTask& t) {
                   os << " " << t.src
                      << (t.assign ? " => " : " " + std::string(name_of(t.reduction.op)) + "=> ")
                      << t.dst << " " << t.region.to_string();
                 },
                 [&](const HostWriteTask& t) {
                   os << " host buffer " << t.buffer.value << " -> " << t.dst << " "
                      << t.region.to_string();
                 },
                 [&](const HostReadTask& t) {
                   os << " " << t.src << (t.fold ? " fold-> " : " -> ") << "host buffer "
                      << t.buffer.value << " " << t.region.to_string();
                 },
                 [&](const BarrierTask& t) { os << " " << t.fence; },
             },
             task.kind);
  return os.str();
}

}  // namespace lightning::planner
