#include "sequential_reference.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

#include <algorithm>

namespace lightning::planner::testing {

size_t SequentialReference::Array::offset(const Point& p) const {
  size_t off = 0;
  for (int a = 0; a < extent.rank(); ++a) {
    off = off * static_cast<size_t>(extent[a]) + static_cast<size_t>(p[a]);
  }
  return off;
}

void SequentialReference::create(ArrayId id, DataType type, const Point& extent) {
  Array a;
  a.type = type;
  a.extent = extent;
  a.values.assign(static_cast<size_t>(extent.product()), 0.0);
  arrays_[id] = std::move(a);
}

void SequentialReference::destroy(ArrayId id) {
  arrays_.erase(id);
}

void SequentialReference::fill(ArrayId id, const Rect& region, double value) {
  Array& a = arrays_.at(id);
  region.for_each_point([&](const Point& p) { a.values[a.offset(p)] = value; });
}

void SequentialReference::write(ArrayId id, const Rect& region, const std::vector<double>& values) {
  Array& a = arrays_.at(id);
  size_t i = 0;
  region.for_each_point([&](const Point& p) { a.values[a.offset(p)] = values.at(i++); });
}

std::vector<double> SequentialReference::read(ArrayId id, const Rect& region) const {
  const Array& a = arrays_.at(id);
  std::vector<double> out;
  out.reserve(static_cast<size_t>(region.volume()));
  region.for_each_point([&](const Point& p) { out.push_back(a.values[a.offset(p)]); });
  return out;
}

double SequentialReference::at(ArrayId id, const Point& p) const {
  const Array& a = arrays_.at(id);
  return a.values[a.offset(p)];
}

namespace {

class WholeArrayAccess final : public KernelAccess {
 public:
  WholeArrayAccess(std::vector<std::vector<double>*> values, std::vector<const Point*> extents,
                   const TestKernel& kernel, const std::vector<int64_t>& scalars)
      : values_(std::move(values)),
        extents_(std::move(extents)),
        kernel_(kernel),
        scalars_(scalars) {}

  double get(int param, const Point& p) override { return *slot(param, p); }
  void set(int param, const Point& p, double v) override { *slot(param, p) = v; }
  void reduce(int param, const Point& p, double v) override {
    double* d = slot(param, p);
    switch (kernel_.reduce_ops[static_cast<size_t>(param)]) {
      case ReduceOp::kSum:
        *d += v;
        break;
      case ReduceOp::kProd:
        *d *= v;
        break;
      case ReduceOp::kMin:
        *d = std::min(*d, v);
        break;
      case ReduceOp::kMax:
        *d = std::max(*d, v);
        break;
      case ReduceOp::kCustom:  // the language has no custom operator
        throw std::logic_error("a reduce rule with a custom operator");
    }
  }
  int64_t scalar(int param) override { return scalars_.at(static_cast<size_t>(param)); }
  void add_partial(double v) override { result += v; }

  double result = 0;

 private:
  double* slot(int param, const Point& p) {
    std::vector<double>* v = values_.at(static_cast<size_t>(param));
    const Point& e = *extents_.at(static_cast<size_t>(param));
    size_t off = 0;
    for (int a = 0; a < e.rank(); ++a) {
      if (p[a] < 0 || p[a] >= e[a]) {
        ADD_FAILURE() << "reference: kernel " << kernel_.name << " param " << param << " touches "
                      << p.to_string() << " outside the array (test bug)";
        static double dummy;
        return &dummy;
      }
      off = off * static_cast<size_t>(e[a]) + static_cast<size_t>(p[a]);
    }
    return &v->at(off);
  }

  std::vector<std::vector<double>*> values_;
  std::vector<const Point*> extents_;
  const TestKernel& kernel_;
  const std::vector<int64_t>& scalars_;
};

}  // namespace

std::optional<double> SequentialReference::launch(const TestKernel& kernel,
                                                  const std::vector<ArrayId>& arrays,
                                                  const std::vector<int64_t>& scalars,
                                                  const Rect& domain) {
  std::vector<std::vector<double>*> values(arrays.size(), nullptr);
  std::vector<const Point*> extents(arrays.size(), nullptr);
  // In place: the test never passes an array it writes as another parameter too.
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].valid()) continue;
    Array& a = arrays_.at(arrays[i]);
    values[i] = &a.values;
    extents[i] = &a.extent;
  }
  WholeArrayAccess access(values, extents, kernel, scalars);
  domain.for_each_point([&](const Point& p) { kernel.body(p, access); });
  // Stored values take the array's type (all exact for the tests' values).
  for (size_t i = 0; i < arrays.size(); ++i) {
    if (!arrays[i].valid()) continue;
    Array& a = arrays_.at(arrays[i]);
    for (double& x : a.values) {
      uint8_t buf[8];
      store_value(a.type, buf, x);
      x = load_value(a.type, buf);
    }
  }
  if (kernel.scans) access.result = access.scan_value;  // the scan's total
  if (kernel.has_scalar_result || kernel.scans) {
    uint8_t buf[8];
    store_value(kernel.scalar_type, buf, access.result);
    return load_value(kernel.scalar_type, buf);
  }
  return std::nullopt;
}

}  // namespace lightning::planner::testing
