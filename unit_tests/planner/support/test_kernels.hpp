// A small kernel interpreter for the planner's test oracle: kernels with a name, a signature,
// an annotation and a per-thread function that reaches its data through a KernelAccess, so the
// same kernel runs over whole arrays (sequential_reference) and over the chunks a plan binds
// (plan_simulator).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "annotation/access_mode.hpp"
#include "annotation/annotation_cache.hpp"
#include "annotation/bound_annotation.hpp"
#include "annotation/kernel_signature.hpp"
#include "core/data_type.hpp"
#include "core/ids.hpp"
#include "core/point.hpp"
#include "core/reduction.hpp"
#include "planner/task.hpp"

namespace lightning::planner::testing {

/// Values written by the test kernels stay below this (they compute modulo it), and values the
/// test writes are small too, so every sum, product and reduction of the tests is an exact
/// integer in every element type used (int32, int64, float32, float64), whatever the order.
inline constexpr int64_t kValueModulus = 64;

/// v mod kValueModulus for a non-negative integral value held in a double.
double wrap_value(double v);

/// Reads one element of type `t` at `p` as a double (exact for the tests' values).
double load_value(DataType t, const uint8_t* p);
/// Writes `v` as one element of type `t` (integers saturate instead of overflowing).
void store_value(DataType t, uint8_t* p, double v);
/// The bytes of one element of type `t` holding `v`.
std::vector<uint8_t> value_bytes(DataType t, double v);
/// *dst = *dst op *src on elements of type `t`, computed in `t` (so identities such as the
/// largest int64 survive). kCustom is the tests' reducer: a sum.
void fold_element(DataType t, ReduceOp op, uint8_t* dst, const uint8_t* src);
/// The identity of `op` for type `t`, as bytes.
std::vector<uint8_t> identity_bytes(DataType t, ReduceOp op);

/// What one thread of a test kernel sees: elements of its array parameters at global points,
/// its integer scalar parameters, and its scalar-reduction partial.
class KernelAccess {
 public:
  virtual ~KernelAccess() = default;
  /// Element `p` of array parameter `param`.
  virtual double get(int param, const Point& p) = 0;
  virtual void set(int param, const Point& p, double v) = 0;
  /// Element `p` of `param` = element op v, with the op of the parameter's reduce rule.
  virtual void reduce(int param, const Point& p, double v) = 0;
  /// Value of integer scalar parameter `param`.
  virtual int64_t scalar(int param) = 0;
  /// Adds `v` to the thread's scalar-reduction result (the kernel must have one).
  virtual void add_partial(double v) = 0;

  /// A scan kernel's running value (Kokkos' `update`), threaded through the threads of one
  /// pass in ascending order, and whether this is the final pass.
  double scan_value = 0;
  bool scan_final = true;
};

/// The kernels of the tests.
enum class KernelKind {
  kStencil1D,     ///< global i => read in[i-1:i+1], write out[i]          (domain [1, n-1))
  kStencil2D,     ///< 5-point over [1, n-1) x [1, m-1)
  kCopy,          ///< read a[i..], overwrite b[i..], rank 1-3: b = 2a + 1
  kSaxpy,         ///< read x[i..], readwrite y[i..], rank 1-2: y = y + 3x
  kShift,         ///< read a[i + k], write b[i] with an int64 scalar k
  kMatmul,        ///< global [i, j] => read A[i, :], read B[:, j], write C[i, j] (scalar p:
                  ///< the inner extent, parameter 3)
  kRowReduce,     ///< global [i, j] => read A[i, j], reduce(op) s[i]  (op: +, min, max)
  kScalarSum,     ///< parallel_reduce of a[i..] (rank 1-2) into a scalar
  kStridedWrite,  ///< read a[i], overwrite b[2 * i]: an overwrite that is not dense
  kPrefixSum,     ///< parallel_scan: global i => read a[i], write b[i], b = exclusive sums
};

const char* name_of(KernelKind kind);

/// One test kernel: identity, signature, annotation text and the body of a thread.
struct TestKernel {
  KernelId id;
  KernelKind kind = KernelKind::kCopy;
  std::string name;
  annotation::KernelSignature signature;
  std::string annotation;
  int launch_rank = 1;
  /// Per signature parameter: the op of its reduce rule (meaningful for reduced params).
  std::vector<ReduceOp> reduce_ops;
  /// Type of the scalar reduction result; only for kernels with `has_scalar_result`.
  bool has_scalar_result = false;
  DataType scalar_type = DataType::kFloat64;
  /// A parallel_scan kernel: its value (of scalar_type) is KernelAccess::scan_value, its
  /// total the launch's optional result.
  bool scans = false;
  std::function<void(const Point& thread, KernelAccess& access)> body;
};

/// Parameters of a kernel variant. `types` gives the element type of every array parameter in
/// signature order (scalar parameters are int64 and are not listed).
struct KernelVariant {
  KernelKind kind = KernelKind::kCopy;
  int rank = 1;                  ///< kCopy, kSaxpy, kScalarSum
  ReduceOp op = ReduceOp::kSum;  ///< kRowReduce
  std::vector<DataType> types;
  DataType scalar_type = DataType::kFloat64;  ///< kScalarSum, kPrefixSum
};

/// Builds test kernels on demand, each once, with stable ids, and binds their annotations
/// through an AnnotationCache (which must outlive every planner that saw the annotations).
class KernelRegistry {
 public:
  explicit KernelRegistry(annotation::AnnotationCache& cache) : cache_(&cache) {}
  /// The kernel for `variant` (built on first use; the reference stays valid).
  const TestKernel& get(const KernelVariant& variant);
  /// The bound annotation of `kernel` (for LaunchRequest::annotation).
  const annotation::BoundAnnotation& bound(const TestKernel& kernel);
  const TestKernel* find(KernelId id) const;

 private:
  annotation::AnnotationCache* cache_;
  std::map<std::string, std::unique_ptr<TestKernel>> by_key_;
  std::vector<const TestKernel*> by_id_;
};

/// Number of array parameters of a kind (the scalar k of kShift not counted).
int array_param_count(KernelKind kind);

}  // namespace lightning::planner::testing
