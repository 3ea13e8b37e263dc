// Plans for people: Graphviz DOT and JSON.
#pragma once

#include <string>

#include "planner/plan.hpp"

namespace lightning::planner {

/// A Graphviz digraph: one cluster per worker, a node per task (labelled as describe()
/// does), solid edges for dependencies inside the plan, dashed edges from each Send to its
/// Recv. Dependencies on tasks of earlier plans are listed in the node's tooltip.
std::string to_dot(const Plan& plan);

/// JSON: {"request": N, "completion": [...], "temporary_deletions": [...], "workers":
/// [{"worker": W, "tasks": [{"id", "kind",
/// "deps", "accesses": [{"chunk", "region", "mode"}], ...kind fields}]}]}. Regions are
/// {"lo": [...], "hi": [...]} (half-open).
std::string to_json(const Plan& plan, int indent = 1);

}  // namespace lightning::planner
