// The expected results: the test kernels run over whole arrays, one std::vector per array.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "test_kernels.hpp"

namespace lightning::planner::testing {

/// Whole arrays as doubles (the tests' values are small integers, exact in every type).
/// Order of threads is irrelevant: the test kernels never read what another thread writes.
class SequentialReference {
 public:
  void create(ArrayId id, DataType type, const Point& extent);
  void destroy(ArrayId id);
  bool has(ArrayId id) const { return arrays_.count(id) != 0; }
  DataType type(ArrayId id) const { return arrays_.at(id).type; }
  const Point& extent(ArrayId id) const { return arrays_.at(id).extent; }

  void fill(ArrayId id, const Rect& region, double value);
  /// `values` row-major over `region`.
  void write(ArrayId id, const Rect& region, const std::vector<double>& values);
  /// Row-major over `region`.
  std::vector<double> read(ArrayId id, const Rect& region) const;
  double at(ArrayId id, const Point& p) const;

  /// Runs `kernel` over `domain` with `arrays` (per signature parameter; invalid for scalars)
  /// and `scalars` (per parameter). Returns the scalar result for kernels that have one
  /// (starting from the identity 0).
  std::optional<double> launch(const TestKernel& kernel, const std::vector<ArrayId>& arrays,
                               const std::vector<int64_t>& scalars, const Rect& domain);

 private:
  struct Array {
    DataType type = DataType::kFloat64;
    Point extent;
    std::vector<double> values;
    size_t offset(const Point& p) const;
  };
  std::map<ArrayId, Array> arrays_;
};

}  // namespace lightning::planner::testing
