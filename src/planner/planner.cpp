#include "planner/planner.hpp"

#include "core/byte_size.hpp"
#include "core/error.hpp"
#include "planner/launch_planner.hpp"
#include "planner/plan_builder.hpp"
#include "planner/plan_cache.hpp"
#include "planner/region_mover.hpp"

namespace lightning::planner {

namespace {

std::string array_label(const ArrayState& a) {
  return "array '" + a.name + "' (" + a.id.to_string() + ")";
}

void require_inside(const ArrayState& a, const Rect& region, const char* what) {
  if (region.rank() != a.extent.rank() || !Rect::from_extent(a.extent).contains(region))
    throw Error(ErrorKind::kInvalidArgument, std::string(what) + " region " + region.to_string() +
                                                 " is not inside " + array_label(a) +
                                                 " of extent " + a.extent.to_string());
}

}  // namespace

Planner::Planner(DeviceSet devices)
    : devices_(std::move(devices)),
      frontier_(devices_.num_workers()),
      cache_(std::make_unique<PlanCache>()) {
  if (devices_.num_workers() == 0)
    throw Error(ErrorKind::kInvalidArgument, "a planner needs at least one worker");
}

Planner::~Planner() = default;

PlanBuilder Planner::builder_for(Plan& plan) {
  return PlanBuilder(plan, tracker_, frontier_, next_task_, next_chunk_, next_tag_);
}

const ArrayState& Planner::array(ArrayId id) const {
  auto it = arrays_.find(id);
  if (it == arrays_.end())
    throw Error(ErrorKind::kInvalidArgument, "unknown array " + id.to_string());
  return it->second;
}

const Planner::InternedLayout& Planner::intern_layout(DataLayout layout) {
  for (const InternedLayout& known : layouts_)
    if (known.layout->extent() == layout.extent() && known.layout->chunks() == layout.chunks())
      return known;
  auto interned = std::make_shared<const DataLayout>(std::move(layout));
  WorkDistribution like_work = work::like(*interned);
  layouts_.push_back({std::move(interned), std::move(like_work)});
  return layouts_.back();
}

std::pair<ArrayId, Plan> Planner::create_array(const ArrayDesc& desc) {
  if (desc.extent.rank() < 1)
    throw Error(ErrorKind::kInvalidArgument,
                "array '" + desc.name + "' has rank 0; arrays have 1 to 3 axes");
  std::shared_ptr<const DataLayout> layout;
  WorkDistribution like_work;
  try {
    const InternedLayout& interned = intern_layout(desc.distribution.layout(desc.extent, devices_));
    layout = interned.layout;
    like_work = interned.like_work;
  } catch (Error& e) {
    throw e.with_context("while creating array '" + desc.name + "' of extent " +
                         desc.extent.to_string() + " with " + desc.distribution.to_string());
  }
  // The layout checked the element count; the bytes are checked here, once for the array, so
  // that no chunk's or region's byte size computed from it later can wrap.
  byte_size(Rect::from_extent(desc.extent).volume(), size_of(desc.type),
            "array '" + desc.name + "' of extent " + desc.extent.to_string() + " and type " +
                std::string(name_of(desc.type)));
  ArrayState state;
  state.id = ArrayId(next_array_++);
  state.name = desc.name;
  state.type = desc.type;
  state.extent = desc.extent;
  state.layout = layout;
  state.like_work = std::move(like_work);

  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  for (size_t i = 0; i < layout->size(); ++i) {
    const Chunk& c = (*layout)[i];
    const WorkerId worker = devices_.worker_of(c.device);
    state.chunk_ids.push_back(b.next_chunk());
    state.chunk_worker.push_back(worker);
    b.add(worker, CreateChunkTask{state.chunk_ids.back(), state.id, c.box, c.device, false,
                                  byte_size(c.box.volume(), size_of(desc.type), "a chunk"),
                                  desc.type, static_cast<uint32_t>(size_of(desc.type))});
  }
  const ArrayId id = state.id;
  arrays_.emplace(id, std::move(state));
  return {id, std::move(plan)};
}

Plan Planner::delete_array(ArrayId id) {
  const ArrayState& a = array(id);
  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  for (size_t i = 0; i < a.chunk_ids.size(); ++i) {
    b.add(a.chunk_worker[i], DeleteChunkTask{a.chunk_ids[i], (*a.layout)[i].box});
    tracker_.forget(a.chunk_ids[i]);
  }
  arrays_.erase(id);
  return plan;
}

Plan Planner::fill(ArrayId id, const Rect& region, std::vector<uint8_t> value) {
  const ArrayState& a = array(id);
  require_inside(a, region, "fill");
  if (value.size() != a.element_size())
    throw Error(ErrorKind::kInvalidArgument, "fill value of " + std::to_string(value.size()) +
                                                 " bytes for " + array_label(a) + " of " +
                                                 std::string(name_of(a.type)) + " (" +
                                                 std::to_string(a.element_size()) + " bytes)");
  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  std::vector<size_t> copies;
  a.layout->copies_of(region, copies);
  for (size_t i : copies)  // every copy: nothing to propagate afterwards
    b.add(a.chunk_worker[i],
          FillTask{a.chunk_ids[i], (*a.layout)[i].box.intersection(region), value});
  return plan;
}

Plan Planner::write_from_host(ArrayId id, const Rect& region, HostBufferId buffer) {
  const ArrayState& a = array(id);
  require_inside(a, region, "host write");
  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  const WorkerId driver(0);
  std::vector<size_t> copies;
  a.layout->copies_of(region, copies);
  for (size_t i : copies) {
    const Rect piece = (*a.layout)[i].box.intersection(region);
    const WorkerId w = a.chunk_worker[i];
    if (w == driver) {
      plan.completion.push_back(
          b.add(driver, HostWriteTask{buffer, region, a.chunk_ids[i], piece}));
    } else {
      const uint64_t tag = b.next_tag();
      plan.completion.push_back(b.add(driver, SendTask{{}, buffer, region, piece, w, tag}));
      b.add(w, RecvTask{a.chunk_ids[i], {}, {}, piece, driver, tag});
    }
  }
  return plan;
}

Plan Planner::read_to_host(ArrayId id, const Rect& region, HostBufferId buffer) {
  const ArrayState& a = array(id);
  require_inside(a, region, "host read");
  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  const WorkerId driver(0);
  std::vector<size_t> homes;
  a.layout->homes_of(region, homes);
  for (size_t home : homes) {
    const Rect piece = (*a.layout)[home].owned.intersection(region);
    if (piece.empty()) continue;
    // A copy on the driver saves a message.
    size_t source = home;
    if (a.chunk_worker[home] != driver) {
      const auto local = a.layout->find_containing(piece, driver);
      if (local && a.chunk_worker[*local] == driver) source = *local;
    }
    const WorkerId w = a.chunk_worker[source];
    if (w == driver) {
      plan.completion.push_back(
          b.add(driver, HostReadTask{a.chunk_ids[source], buffer, region, piece, false, {}, {}}));
    } else {
      const uint64_t tag = b.next_tag();
      b.add(w, SendTask{a.chunk_ids[source], {}, {}, piece, driver, tag});
      plan.completion.push_back(b.add(driver, RecvTask{{}, buffer, region, piece, w, tag}));
    }
  }
  return plan;
}

Plan Planner::launch(const LaunchRequest& request) {
  if (!request.annotation)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + request.name + "' is launched without an annotation");
  const annotation::BoundAnnotation& bound = *request.annotation;
  const auto& params = bound.signature().params;
  auto context = [&] { return "while planning kernel '" + request.name + "'"; };
  if (request.arrays.size() != params.size() || request.scalars.size() != params.size())
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + request.name + "' has " + std::to_string(params.size()) +
                    " parameters, but the launch passes " + std::to_string(request.arrays.size()) +
                    " array slots and " + std::to_string(request.scalars.size()) + " scalar slots");
  if (request.domain.rank() != bound.launch_rank())
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + request.name + "' is launched over a rank-" +
                    std::to_string(request.domain.rank()) + " domain " +
                    request.domain.to_string() + ", but its annotation was bound for rank " +
                    std::to_string(bound.launch_rank()));

  std::vector<const ArrayState*>& arrays = launch_arrays_;
  arrays.assign(params.size(), nullptr);
  for (size_t p = 0; p < params.size(); ++p) {
    if (!params[p].is_array) continue;
    const ArrayId id = request.arrays[p];
    auto it = arrays_.find(id);
    if (it == arrays_.end())
      throw Error(ErrorKind::kInvalidArgument, "parameter '" + params[p].name + "' of kernel '" +
                                                   request.name + "' names no live array (" +
                                                   id.to_string() + ")");
    const ArrayState& a = it->second;
    if (a.extent.rank() != params[p].rank || a.type != params[p].type)
      throw Error(ErrorKind::kInvalidArgument,
                  "parameter '" + params[p].name + "' of kernel '" + request.name +
                      "' expects a rank-" + std::to_string(params[p].rank) + " array of " +
                      std::string(name_of(params[p].type)) + ", but " + array_label(a) +
                      " is rank " + std::to_string(a.extent.rank()) + " of " +
                      std::string(name_of(a.type)));
    arrays[p] = &a;
  }

  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  HostBufferId result;
  if (request.scalar_reduction) result = request.scalar_reduction->result;
  if (request.scan && request.scan->total) result = *request.scan->total;
  if (cache_enabled_) {
    probe_.assign(request, arrays);
    if (const PlanTemplate* tmpl = cache_->find(probe_)) {
      plan.completion = replay_template(*tmpl, b, arrays, plan.request, result);
      return plan;
    }
  }
  const RecordedLaunch recorded{plan.request, result, next_chunk_, next_tag_, next_task_};
  try {
    LaunchPlanner lp(b, devices_, request, plan.request, arrays);
    plan.completion = lp.plan();
    b.finish();
  } catch (Error& e) {
    throw e.with_context(context());
  }
  if (cache_enabled_) cache_->insert(probe_, record_template(plan, b, arrays, recorded));
  return plan;
}

Plan Planner::fence() {
  Plan plan = begin_plan();
  PlanBuilder b = builder_for(plan);
  for (size_t w = 0; w < frontier_.size(); ++w) {
    const std::vector<TaskId> all = frontier_[w].tasks();
    plan.completion.push_back(b.add(WorkerId(w), BarrierTask{plan.request}, all));
  }
  return plan;
}

void Planner::retire_before(TaskId first_live) {
  tracker_.retire_before(first_live);
  for (TaskFrontier& f : frontier_) f.retire_before(first_live);
}

PlanCacheStats Planner::cache_stats() const {
  return cache_->stats();
}

}  // namespace lightning::planner
