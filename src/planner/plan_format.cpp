#include "planner/plan_format.hpp"

#include "core/overloaded.hpp"

#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace lightning::planner {

namespace {

using nlohmann::json;

json region_json(const Rect& r) {
  json lo = json::array(), hi = json::array();
  for (int a = 0; a < r.rank(); ++a) {
    lo.push_back(r.lo()[a]);
    hi.push_back(r.hi()[a]);
  }
  return {{"lo", lo}, {"hi", hi}};
}

const char* mode_name(ChunkAccessMode m) {
  switch (m) {
    case ChunkAccessMode::kRead:
      return "read";
    case ChunkAccessMode::kWrite:
      return "write";
    case ChunkAccessMode::kReadWrite:
      return "readwrite";
    case ChunkAccessMode::kOverwrite:
      return "overwrite";
  }
  return "?";
}

json id_json(ChunkId c) {
  return c.valid() ? json(c.value()) : json(nullptr);
}

void add_kind_fields(json& j, const TaskKind& kind) {
  std::visit(Overloaded{
                 [&](const CreateChunkTask& t) {
                   j["chunk"] = t.chunk.value();
                   j["array"] = t.array.valid() ? json(t.array.value()) : json(nullptr);
                   j["box"] = region_json(t.box);
                   j["device"] = t.device.valid() ? json(t.device.value()) : json(nullptr);
                   j["temporary"] = t.temporary;
                   j["bytes"] = t.bytes;
                 },
                 [&](const DeleteChunkTask& t) { j["chunk"] = t.chunk.value(); },
                 [&](const ExecuteTask& t) {
                   j["launch"] = t.launch.value();
                   j["kernel"] = t.kernel.value();
                   j["superblock"] = region_json(t.superblock);
                   j["device"] = t.device.value();
                   json b = json::array();
                   for (const auto& x : t.bindings)
                     b.push_back({{"param", x.param},
                                  {"chunk", x.chunk.value()},
                                  {"region", region_json(x.region)},
                                  {"mode", mode_name(x.mode)},
                                  {"array", x.array.value()}});
                   j["bindings"] = b;
                   j["scalar_partial"] = id_json(t.scalar_partial);
                   if (t.scan != ScanPass::kNone) {
                     j["scan"] = t.scan == ScanPass::kPartial ? "partial" : "final";
                     j["scan_prefix"] = id_json(t.scan_prefix);
                   }
                 },
                 [&](const CopyTask& t) {
                   j["src"] = t.src.value();
                   j["dst"] = t.dst.value();
                   j["region"] = region_json(t.region);
                 },
                 [&](const SendTask& t) {
                   j["src"] = id_json(t.src);
                   if (!t.src.valid()) j["host_buffer"] = t.host_src.value;
                   j["region"] = region_json(t.region);
                   j["to"] = t.to.value();
                   j["tag"] = t.tag;
                 },
                 [&](const RecvTask& t) {
                   j["dst"] = id_json(t.dst);
                   if (!t.dst.valid()) j["host_buffer"] = t.host_dst.value;
                   j["region"] = region_json(t.region);
                   j["from"] = t.from.value();
                   j["tag"] = t.tag;
                 },
                 [&](const FillTask& t) {
                   j["chunk"] = t.chunk.value();
                   j["region"] = region_json(t.region);
                   j["value_bytes"] = t.value.size();
                 },
                 [&](const FoldTask& t) {
                   j["src"] = t.src.value();
                   j["dst"] = t.dst.value();
                   j["region"] = region_json(t.region);
                   j["op"] = name_of(t.reduction.op);
                   j["type"] = name_of(t.reduction.type);
                   j["assign"] = t.assign;
                 },
                 [&](const HostWriteTask& t) {
                   j["host_buffer"] = t.buffer.value;
                   j["dst"] = t.dst.value();
                   j["region"] = region_json(t.region);
                 },
                 [&](const HostReadTask& t) {
                   j["src"] = t.src.value();
                   j["host_buffer"] = t.buffer.value;
                   j["region"] = region_json(t.region);
                   j["fold"] = t.fold;
                 },
                 [&](const BarrierTask& t) { j["fence"] = t.fence.value(); },
             },
             kind);
}

std::string dot_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string to_json(const Plan& plan, int indent) {
  json workers = json::array();
  for (size_t w = 0; w < plan.fragments.size(); ++w) {
    json tasks = json::array();
    for (const Task& t : plan.fragments[w]) {
      json j = {{"id", t.id.value()}, {"kind", name_of(t.kind)}};
      json deps = json::array();
      for (TaskId d : t.deps) deps.push_back(d.value());
      j["deps"] = deps;
      json acc = json::array();
      for (const ChunkAccess& a : t.accesses)
        acc.push_back({{"chunk", a.chunk.value()},
                       {"region", region_json(a.region)},
                       {"mode", mode_name(a.mode)}});
      j["accesses"] = acc;
      add_kind_fields(j, t.kind);
      tasks.push_back(std::move(j));
    }
    workers.push_back({{"worker", w}, {"tasks", tasks}});
  }
  json completion = json::array();
  for (TaskId c : plan.completion) completion.push_back(c.value());
  json temporary_deletions = json::array();
  for (TaskId d : plan.temporary_deletions) temporary_deletions.push_back(d.value());
  json doc = {{"request", plan.request.value()},
              {"completion", completion},
              {"temporary_deletions", temporary_deletions},
              {"workers", workers}};
  return doc.dump(indent);
}

std::string to_dot(const Plan& plan) {
  std::ostringstream os;
  os << "digraph plan_" << plan.request.value() << " {\n"
     << "  rankdir=TB;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  std::unordered_set<uint64_t> in_plan;
  for (const auto& fragment : plan.fragments)
    for (const Task& t : fragment) in_plan.insert(t.id.value());
  std::unordered_map<uint64_t, uint64_t> send_of_tag;
  for (size_t w = 0; w < plan.fragments.size(); ++w) {
    os << "  subgraph cluster_w" << w << " {\n    label=\"worker " << w << "\";\n";
    for (const Task& t : plan.fragments[w]) {
      std::string earlier;
      for (TaskId d : t.deps)
        if (!in_plan.count(d.value())) earlier += (earlier.empty() ? "" : " ") + d.to_string();
      os << "    t" << t.id.value() << " [label=\"" << dot_escape(describe(t)) << "\"";
      if (!earlier.empty()) os << ", tooltip=\"after earlier " << earlier << "\"";
      os << "];\n";
      if (const auto* s = std::get_if<SendTask>(&t.kind)) send_of_tag[s->tag] = t.id.value();
    }
    os << "  }\n";
  }
  for (const auto& fragment : plan.fragments)
    for (const Task& t : fragment) {
      for (TaskId d : t.deps)
        if (in_plan.count(d.value())) os << "  t" << d.value() << " -> t" << t.id.value() << ";\n";
      if (const auto* r = std::get_if<RecvTask>(&t.kind))
        if (auto it = send_of_tag.find(r->tag); it != send_of_tag.end())
          os << "  t" << it->second << " -> t" << t.id.value() << " [style=dashed];\n";
    }
  os << "}\n";
  return os.str();
}

}  // namespace lightning::planner
