#include "interpreted_kernels.hpp"

#include <cstddef>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "core/rect.hpp"
#include "kernel/kernel_registry.hpp"
#include "kernel/native_kernel.hpp"

namespace lightning::runtime_test {

namespace {

using planner::testing::KernelAccess;
using planner::testing::TestKernel;

// What one thread of an interpreted kernel sees: the patched handles of the functor, addressed
// with global indices exactly as ArrayHandle::operator() does, with the element size and type
// of the signature.
class HandleAccess final : public KernelAccess {
 public:
  HandleAccess(const TestKernel& kernel, const InterpretedFunctor& f, void* partial)
      : kernel_(kernel), f_(f), partial_(partial) {}

  double get(int param, const Point& p) override {
    return planner::testing::load_value(type(param), element(param, p));
  }
  void set(int param, const Point& p, double v) override {
    planner::testing::store_value(type(param), element(param, p), v);
  }
  void reduce(int param, const Point& p, double v) override {
    const DataType t = type(param);
    const std::vector<uint8_t> bytes = planner::testing::value_bytes(t, v);
    planner::testing::fold_element(t, kernel_.reduce_ops.at(static_cast<size_t>(param)),
                                   element(param, p), bytes.data());
  }
  int64_t scalar(int param) override {
    if (param < 0 || param >= InterpretedFunctor::kMaxParams)
      throw std::logic_error("interpreted kernel: no scalar parameter " + std::to_string(param));
    return f_.scalars[param];
  }
  void add_partial(double v) override {
    if (!partial_)
      throw std::logic_error("interpreted kernel '" + kernel_.name +
                             "': the runtime gave no scalar partial");
    const DataType t = kernel_.scalar_type;
    const std::vector<uint8_t> bytes = planner::testing::value_bytes(t, v);
    planner::testing::fold_element(t, ReduceOp::kSum, static_cast<uint8_t*>(partial_),
                                   bytes.data());
  }

 private:
  DataType type(int param) const {
    return kernel_.signature.params.at(static_cast<size_t>(param)).type;
  }
  uint8_t* element(int param, const Point& p) const {
    const auto& sig = kernel_.signature.params.at(static_cast<size_t>(param));
    if (!sig.is_array || param >= InterpretedFunctor::kMaxArrays)
      throw std::logic_error("interpreted kernel: parameter " + std::to_string(param) +
                             " is not an array");
    const RawArrayHandle& h = f_.arrays[param];
    if (!h.data)
      throw std::logic_error("interpreted kernel '" + kernel_.name + "': array parameter " +
                             sig.name + " was not bound, but thread accesses " + p.to_string());
    const int rank = sig.rank;
    if (p.rank() != rank)
      throw std::logic_error("interpreted kernel: rank mismatch on " + sig.name);
    int64_t index = -h.offset;
    for (int a = 0; a < rank; ++a) {
      const int64_t extent = h.stride_and_extent[rank + a];
      if (p[a] < 0 || p[a] >= extent)
        throw std::logic_error("interpreted kernel '" + kernel_.name + "': " + sig.name +
                               p.to_string() + " is outside the array");
      index += p[a] * h.stride_and_extent[a];
    }
    // The handle does not say where its chunk ends, but an element before its start is
    // certainly outside it (a planner or runtime binding bug).
    if (index < 0)
      throw std::logic_error("interpreted kernel '" + kernel_.name + "': " + sig.name +
                             p.to_string() + " lies before the bound chunk");
    return static_cast<uint8_t*>(h.data) + index * static_cast<int64_t>(size_of(sig.type));
  }

  const TestKernel& kernel_;
  const InterpretedFunctor& f_;
  void* partial_;
};

// The test kernels registered in this process, by runtime kernel id. Functors name their
// kernel by id, not by address: under MPI they run in other processes too.
struct Registered {
  std::mutex mutex;
  std::unordered_map<uint64_t, const TestKernel*> by_id;
};
Registered& registered() {
  static Registered r;
  return r;
}

const TestKernel& registered_kernel(uint64_t id) {
  Registered& r = registered();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_id.find(id);
  if (it == r.by_id.end())
    throw std::logic_error("interpreted kernel " + KernelId(id).to_string() +
                           " is not registered in this process");
  return *it->second;
}

void run_interpreted(const void* functor, const Rect& threads, void* partial) {
  InterpretedFunctor f;
  std::memcpy(static_cast<void*>(&f), functor, sizeof f);
  const TestKernel& kernel = registered_kernel(f.kernel);
  HandleAccess access(kernel, f, partial);
  threads.for_each_point([&](const Point& p) { kernel.body(p, access); });
}

// One pass of a scan kernel: the test kernel's body with KernelAccess::scan_value threaded
// through the threads (`value` holds one element of the kernel's scalar type).
void run_interpreted_scan(const void* functor, const Rect& threads, void* value, bool final) {
  InterpretedFunctor f;
  std::memcpy(static_cast<void*>(&f), functor, sizeof f);
  const TestKernel& kernel = registered_kernel(f.kernel);
  HandleAccess access(kernel, f, nullptr);
  auto* bytes = static_cast<uint8_t*>(value);
  access.scan_final = final;
  access.scan_value = planner::testing::load_value(kernel.scalar_type, bytes);
  threads.for_each_point([&](const Point& p) { kernel.body(p, access); });
  planner::testing::store_value(kernel.scalar_type, bytes, access.scan_value);
}

}  // namespace

KernelId interpreted_kernel(const TestKernel& kernel) {
  const std::string name = "random_test::" + kernel.name;
  const KernelId id = kernel::KernelRegistry::id_of(name);
  {
    // The latest instance: the caller keeps it alive while it launches it (see the header).
    Registered& r = registered();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.by_id[id.value()] = &kernel;
  }
  if (kernel::KernelRegistry::contains(id)) return id;
  std::vector<kernel::ArraySlot> arrays;
  std::vector<kernel::ScalarSlot> scalars;
  const auto& params = kernel.signature.params;
  if (params.size() > static_cast<size_t>(InterpretedFunctor::kMaxParams))
    throw std::logic_error("interpreted kernel '" + kernel.name + "': too many parameters");
  for (size_t p = 0; p < params.size(); ++p) {
    const int param = static_cast<int>(p);
    if (params[p].is_array) {
      if (param >= InterpretedFunctor::kMaxArrays)
        throw std::logic_error("interpreted kernel '" + kernel.name + "': array parameter " +
                               std::to_string(p) + " has no slot");
      arrays.push_back({param, offsetof(InterpretedFunctor, arrays) + p * sizeof(RawArrayHandle),
                        params[p].rank});
    } else {
      scalars.push_back(
          {param, offsetof(InterpretedFunctor, scalars) + p * sizeof(int64_t), DataType::kInt64});
    }
  }
  kernel::KernelInfo info = kernel::native_kernel_info<InterpretedFunctor>(
      name, kernel.annotation, kernel.signature, std::move(arrays), std::move(scalars));
  info.run_host = &run_interpreted;
  if (kernel.scans) {
    info.run_host = nullptr;
    info.run_host_scan = &run_interpreted_scan;
  }
  if (kernel.has_scalar_result || kernel.scans)
    info.reduction = Reduction::builtin(ReduceOp::kSum, kernel.scalar_type == DataType::kInt64
                                                            ? DataType::kInt64
                                                            : DataType::kFloat64);
  return kernel::KernelRegistry::add(std::move(info));
}

InterpretedFunctor interpreted_functor(const TestKernel& kernel,
                                       const std::vector<int64_t>& scalars) {
  InterpretedFunctor f;
  f.kernel = kernel::KernelRegistry::id_of("random_test::" + kernel.name).value();
  for (size_t p = 0; p < scalars.size() && p < static_cast<size_t>(InterpretedFunctor::kMaxParams);
       ++p)
    f.scalars[p] = scalars[p];
  return f;
}

void register_every_interpreted_kernel() {
  using planner::testing::KernelKind;
  using planner::testing::KernelVariant;
  static annotation::AnnotationCache cache;
  static planner::testing::KernelRegistry kernels(cache);
  const DataType types[] = {DataType::kInt64, DataType::kFloat64, DataType::kInt32,
                            DataType::kFloat32};
  // Every variant the random case generator launches (random_case.cpp, launch_step).
  for (int k = 0; k <= static_cast<int>(KernelKind::kPrefixSum); ++k) {
    const auto kind = static_cast<KernelKind>(k);
    const int max_rank = kind == KernelKind::kCopy                                      ? 3
                         : kind == KernelKind::kSaxpy || kind == KernelKind::kScalarSum ? 2
                                                                                        : 1;
    const int ops = kind == KernelKind::kRowReduce ? 3 : 1;
    const bool typed = kind == KernelKind::kScalarSum || kind == KernelKind::kPrefixSum;
    const int scalar_types = typed ? 2 : 1;
    const int params = planner::testing::array_param_count(kind);
    int combinations = 1;
    for (int p = 0; p < params; ++p) combinations *= 4;
    for (int rank = 1; rank <= max_rank; ++rank)
      for (int op = 0; op < ops; ++op)
        for (int s = 0; s < scalar_types; ++s)
          for (int c = 0; c < combinations; ++c) {
            KernelVariant v;
            v.kind = kind;
            v.rank = rank;
            v.op = op == 0 ? ReduceOp::kSum : op == 1 ? ReduceOp::kMin : ReduceOp::kMax;
            if (typed) v.scalar_type = s == 0 ? DataType::kInt64 : DataType::kFloat64;
            for (int p = 0, code = c; p < params; ++p, code /= 4)
              v.types.push_back(types[code % 4]);
            interpreted_kernel(kernels.get(v));
          }
  }
}

}  // namespace lightning::runtime_test
