#include "planner/plan_cache.hpp"

#include "core/overloaded.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "core/error.hpp"
#include "core/hash_mix.hpp"
#include "planner/planner.hpp"

namespace lightning::planner {

namespace {

// Calls chunk(ChunkId&), array(ArrayId&), tag(uint64_t&), launch(LaunchId&) and
// host(HostBufferId&) on every id a task holds: the one place that knows which fields are ids.
template <class Chunk, class Array, class Tag, class Launch, class Host>
void remap_ids(TaskKind& kind, Chunk&& chunk, Array&& array, Tag&& tag, Launch&& launch,
               Host&& host) {
  auto maybe_chunk = [&](ChunkId& c) {
    if (c.valid()) chunk(c);
  };
  std::visit(Overloaded{
                 [&](CreateChunkTask& t) {
                   chunk(t.chunk);
                   if (t.array.valid()) array(t.array);
                 },
                 [&](DeleteChunkTask& t) { chunk(t.chunk); },
                 [&](ExecuteTask& t) {
                   launch(t.launch);
                   for (auto& b : t.bindings) {
                     chunk(b.chunk);
                     array(b.array);
                   }
                   maybe_chunk(t.scalar_partial);
                   maybe_chunk(t.scan_prefix);
                 },
                 [&](CopyTask& t) {
                   chunk(t.src);
                   chunk(t.dst);
                 },
                 [&](SendTask& t) {
                   maybe_chunk(t.src);
                   if (!t.src.valid()) host(t.host_src);
                   tag(t.tag);
                 },
                 [&](RecvTask& t) {
                   maybe_chunk(t.dst);
                   if (!t.dst.valid()) host(t.host_dst);
                   tag(t.tag);
                 },
                 [&](FillTask& t) { chunk(t.chunk); },
                 [&](FoldTask& t) {
                   chunk(t.src);
                   chunk(t.dst);
                   launch(t.launch);
                 },
                 [&](HostWriteTask& t) {
                   host(t.buffer);
                   chunk(t.dst);
                 },
                 [&](HostReadTask& t) {
                   chunk(t.src);
                   host(t.buffer);
                   launch(t.launch);
                 },
                 [&](BarrierTask& t) { launch(t.fence); },
             },
             kind);
}

// Symbolic chunk ids in templates: parameter p's chunk i is ((p + 1) << kParamShift) | i;
// temporaries are their ordinal (< 1 << kParamShift).
constexpr int kParamShift = 40;

}  // namespace

void LaunchShape::assign(const LaunchRequest& request,
                         const std::vector<const ArrayState*>& arrays) {
  kernel = request.kernel;
  annotation = request.annotation;
  scalars.assign(request.scalars.begin(), request.scalars.end());
  domain = request.domain;
  block_size = request.block_size;
  work = request.work;
  layouts.assign(arrays.size(), nullptr);
  aliases.assign(arrays.size(), -1);
  for (size_t p = 0; p < arrays.size(); ++p) {
    if (!arrays[p]) continue;
    layouts[p] = arrays[p]->layout.get();
    for (size_t q = 0; q <= p; ++q)
      if (arrays[q] == arrays[p]) {
        aliases[p] = static_cast<int>(q);
        break;
      }
  }
  scalar_reduction.reset();
  scan.reset();
  scan_returns_total = false;
  if (request.scalar_reduction) scalar_reduction = request.scalar_reduction->reduction;
  if (request.scan) {
    scan = request.scan->reduction;
    scan_returns_total = request.scan->total.has_value();
  }
}

bool operator==(const LaunchShape& a, const LaunchShape& b) {
  return a.kernel == b.kernel && a.annotation == b.annotation && a.scalars == b.scalars &&
         a.domain == b.domain && a.block_size == b.block_size && a.layouts == b.layouts &&
         a.aliases == b.aliases && a.scalar_reduction == b.scalar_reduction && a.scan == b.scan &&
         a.scan_returns_total == b.scan_returns_total && a.work == b.work;
}

size_t LaunchShape::hash() const {
  size_t h = std::hash<uint64_t>{}(kernel.value());
  h = hash_mix(h, std::hash<const void*>{}(annotation));
  for (int64_t v : scalars) h = hash_mix(h, std::hash<int64_t>{}(v));
  for (int a = 0; a < domain.rank(); ++a) {
    h = hash_mix(h, std::hash<int64_t>{}(domain.lo()[a]));
    h = hash_mix(h, std::hash<int64_t>{}(domain.hi()[a]));
  }
  for (const DataLayout* l : layouts) h = hash_mix(h, std::hash<const void*>{}(l));
  return h;
}

PlanTemplate record_template(const Plan& plan, const PlanBuilder& builder,
                             const std::vector<const ArrayState*>& arrays,
                             const RecordedLaunch& recorded) {
  // Tasks in creation order (ids grow with creation).
  std::vector<const Task*> ordered;
  for (const auto& fragment : plan.fragments)
    for (const Task& t : fragment) ordered.push_back(&t);
  std::sort(ordered.begin(), ordered.end(),
            [](const Task* a, const Task* b) { return a->id < b->id; });
  std::unordered_map<uint64_t, uint32_t> position;
  for (size_t i = 0; i < ordered.size(); ++i)
    position[ordered[i]->id.value()] = static_cast<uint32_t>(i);

  std::unordered_map<uint64_t, const std::vector<TaskId>*> explicit_deps;
  for (const auto& [task, deps] : builder.explicit_deps()) explicit_deps[task.value()] = &deps;

  PlanTemplate tmpl;
  uint64_t max_temp = 0, max_tag = 0;
  bool any_temp = false, any_tag = false;
  auto symbolic_chunk = [&](ChunkId& c) {
    if (c.value() >= recorded.first_temporary) {
      const uint64_t ordinal = c.value() - recorded.first_temporary;
      max_temp = std::max(max_temp, ordinal);
      any_temp = true;
      c = ChunkId(ordinal);
      return;
    }
    for (size_t p = 0; p < arrays.size(); ++p) {
      if (!arrays[p] || arrays[p]->chunk_ids.empty()) continue;
      const uint64_t first = arrays[p]->chunk_ids.front().value();
      if (c.value() >= first && c.value() < first + arrays[p]->chunk_ids.size()) {
        c = ChunkId(((p + 1) << kParamShift) | (c.value() - first));
        return;
      }
    }
    throw Error(ErrorKind::kInternal, "plan template: chunk " + c.to_string() +
                                          " belongs to no argument and is no temporary");
  };
  // Arrays as the position of the first parameter passing them, plus one.
  auto symbolic_array = [&](ArrayId& a) {
    for (size_t p = 0; p < arrays.size(); ++p)
      if (arrays[p] && arrays[p]->id == a) {
        a = ArrayId(p + 1);
        return;
      }
    throw Error(ErrorKind::kInternal,
                "plan template: array " + a.to_string() + " is no argument of the launch");
  };
  for (const Task* t : ordered) {
    PlanTemplate::Entry e{t->worker, t->kind, {}};
    remap_ids(
        e.kind, symbolic_chunk, symbolic_array,
        [&](uint64_t& tag) {
          tag -= recorded.first_tag;
          max_tag = std::max(max_tag, tag);
          any_tag = true;
        },
        [&](LaunchId& l) { l = LaunchId(); }, [&](HostBufferId& h) { h = HostBufferId{}; });
    if (auto it = explicit_deps.find(t->id.value()); it != explicit_deps.end())
      for (TaskId d : *it->second) e.explicit_deps.push_back(position.at(d.value()));
    if (tmpl.tasks_per_worker.size() <= e.worker.value())
      tmpl.tasks_per_worker.resize(e.worker.value() + 1, 0);
    ++tmpl.tasks_per_worker[e.worker.value()];
    tmpl.tasks.push_back(std::move(e));
  }
  for (TaskId c : plan.completion) tmpl.completion.push_back(position.at(c.value()));
  tmpl.temporaries = any_temp ? max_temp + 1 : 0;
  tmpl.tags = any_tag ? max_tag + 1 : 0;
  return tmpl;
}

std::vector<TaskId> replay_template(const PlanTemplate& tmpl, PlanBuilder& builder,
                                    const std::vector<const ArrayState*>& arrays, LaunchId launch,
                                    HostBufferId result) {
  const uint64_t temp_base = builder.reserve_chunks(tmpl.temporaries);
  const uint64_t tag_base = builder.reserve_tags(tmpl.tags);
  auto real_chunk = [&](ChunkId& c) {
    const uint64_t param_plus_one = c.value() >> kParamShift;
    if (param_plus_one == 0) {
      c = ChunkId(temp_base + c.value());
      return;
    }
    const ArrayState& a = *arrays[param_plus_one - 1];
    c = a.chunk_ids[c.value() & ((uint64_t{1} << kParamShift) - 1)];
  };
  std::vector<std::vector<Task>>& fragments = builder.plan().fragments;
  for (size_t w = 0; w < tmpl.tasks_per_worker.size() && w < fragments.size(); ++w)
    fragments[w].reserve(fragments[w].size() + tmpl.tasks_per_worker[w]);
  std::vector<TaskId> ids;
  ids.reserve(tmpl.tasks.size());
  std::vector<TaskId> deps;
  for (const PlanTemplate::Entry& e : tmpl.tasks) {
    TaskKind kind = e.kind;
    remap_ids(
        kind, real_chunk, [&](ArrayId& a) { a = arrays[a.value() - 1]->id; },
        [&](uint64_t& tag) { tag += tag_base; }, [&](LaunchId& l) { l = launch; },
        [&](HostBufferId& h) { h = result; });
    deps.clear();
    for (uint32_t d : e.explicit_deps) deps.push_back(ids[d]);
    const auto* deleted = std::get_if<DeleteChunkTask>(&kind);
    const ChunkId deleted_chunk = deleted ? deleted->chunk : ChunkId();
    // A symbolic chunk of no parameter is a temporary (see kParamShift).
    const bool temporary =
        deleted && std::get<DeleteChunkTask>(e.kind).chunk.value() >> kParamShift == 0;
    ids.push_back(builder.add(e.worker, std::move(kind), deps));
    if (deleted_chunk.valid()) builder.forget(deleted_chunk);
    if (temporary) builder.plan().temporary_deletions.push_back(ids.back());
  }
  std::vector<TaskId> completion;
  for (uint32_t c : tmpl.completion) completion.push_back(ids[c]);
  return completion;
}

const PlanTemplate* PlanCache::find(const LaunchShape& shape) {
  const size_t h = shape.hash();
  for (const Item& item : items_)
    if (item.hash == h && item.shape == shape) {
      ++hits_;
      return &item.tmpl;
    }
  ++misses_;
  return nullptr;
}

void PlanCache::insert(LaunchShape shape, PlanTemplate tmpl) {
  if (items_.size() == kCapacity) items_.pop_front();
  const size_t h = shape.hash();
  items_.push_back({std::move(shape), h, std::move(tmpl)});
}

PlanCacheStats PlanCache::stats() const {
  return {hits_, misses_};
}

}  // namespace lightning::planner
