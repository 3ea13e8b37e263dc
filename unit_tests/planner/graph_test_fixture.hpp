// A fixture for hand-written planner graph tests: a cluster, arrays, annotated launches, and
// every plan kept for queries (plan_query.hpp).
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "annotation/annotation_cache.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/work_distribution.hpp"
#include "plan_query.hpp"
#include "planner/planner.hpp"

namespace lightning::planner::testing {

/// A planner with arrays, annotations and every plan it made.
class PlanningSession {
 public:
  void use_cluster(int workers, int devices_per_worker) {
    planner = std::make_unique<Planner>(DeviceSet::uniform(workers, devices_per_worker));
  }

  ArrayId array(const std::string& name, const Point& extent, const DataDistribution& d,
                DataType type = DataType::kFloat64) {
    auto [id, plan] = planner->create_array({name, type, extent, d});
    plans.push_back(std::move(plan));
    return id;
  }

  /// A launch of a kernel whose parameters are all arrays of `type`, named in the annotation
  /// order given by `params`.
  LaunchRequest launch(const std::string& annotation_text, const std::vector<std::string>& params,
                       const std::vector<ArrayId>& arrays, const Rect& domain,
                       const Point& block_size, const WorkDistribution& work,
                       DataType type = DataType::kFloat64) {
    annotation::KernelSignature sig;
    for (size_t p = 0; p < params.size(); ++p)
      sig.add_array(params[p], type, planner->array(arrays[p]).extent.rank());
    LaunchRequest r;
    r.kernel = KernelId(next_kernel++);
    r.name = "kernel" + std::to_string(r.kernel.value());
    r.annotation = &annotations.bind(annotation_text, sig, domain.rank());
    r.arrays = arrays;
    r.scalars.assign(arrays.size(), 0);
    r.domain = domain;
    r.block_size = block_size;
    r.work = work;
    return r;
  }

  const Plan& submit(const LaunchRequest& r) {
    plans.push_back(planner->launch(r));
    return plans.back();
  }
  const Plan& keep(Plan p) {
    plans.push_back(std::move(p));
    return plans.back();
  }

  /// A query over every plan so far.
  PlanQuery query() const {
    std::vector<const Plan*> all;
    for (const Plan& p : plans) all.push_back(&p);
    return PlanQuery(all);
  }

  ChunkId chunk(ArrayId a, size_t i) const { return planner->array(a).chunk_ids[i]; }

  annotation::AnnotationCache annotations;  // outlives the planner: plans refer to it
  std::unique_ptr<Planner> planner;
  std::deque<Plan> plans;  // a deque: references returned by submit() stay valid
  uint64_t next_kernel = 1;
};

/// The fixture of graph tests: one PlanningSession.
class GraphTest : public ::testing::Test, public PlanningSession {};

}  // namespace lightning::planner::testing
