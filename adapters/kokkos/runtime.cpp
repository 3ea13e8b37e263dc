// The process's runtime instance and the out-of-line parts of lightning::View and dispatch.
#include "lightning_kokkos/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "closure_check.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "driver/compile_check.hpp"
#include "driver/driver.hpp"
#include "driver/join.hpp"
#include "driver/task_error.hpp"
#include "kernel/kernel_registry.hpp"
#include "kernel/kernel_thread.hpp"
#include "kokkos_tool_hooks.hpp"
#include "lightning_kokkos/annotate.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/parallel.hpp"
#include "lightning_kokkos/view.hpp"
#include "worker/access_check.hpp"

namespace lightning {
namespace {

// The only global mutable state of the binding: the runtime, its configuration (for
// print_configuration), a generation number, so that Views outliving a runtime never touch
// the next one, and the live control blocks, so that an element-access error raised in a
// kernel (on a worker thread, from a functor copy whose Views may be gone) names a View only
// while it exists; and the Kokkos Tools callbacks (labels, Kokkos allocations).
struct Runtime {
  Config config;
  std::unique_ptr<driver::Driver> driver;
  uint64_t generation = 0;
  std::mutex controls_mutex;
  std::unordered_set<const detail::ArrayControl*> controls;
  std::unique_ptr<detail::KokkosToolHooks> tool_hooks;  ///< while the driver exists
};

Runtime& state() {
  static Runtime r;
  return r;
}

Point point_of(int rank, const int64_t* extent) {
  Point p = Point::filled(rank, 0);
  for (int a = 0; a < rank; ++a) p[a] = extent[a];
  return p;
}

driver::Driver& driver_of(const detail::ArrayControl* control, const char* what) {
  if (control == nullptr)
    throw Error(ErrorKind::kInvalidArgument,
                std::string(what) + ": the lightning::View is empty (default-constructed)");
  Runtime& r = state();
  if (!r.driver || r.generation != control->generation)
    throw Error(ErrorKind::kInvalidArgument, std::string(what) + ": lightning::View '" +
                                                 control->label +
                                                 "' belongs to a runtime that was finalized");
  return *r.driver;
}

}  // namespace

void initialize(int& argc, char* argv[]) {
  Runtime& r = state();
  if (r.driver)
    throw Error(ErrorKind::kInvalidArgument, "lightning::initialize: the runtime already exists");
  Config config = Config::load_from_process(&argc, argv);
  if (!config.compile_check.empty()) {
    // Kernels register during static initialisation: all are known now.
    const int status = driver::run_compile_check(config.compile_check, stdout, stderr);
    std::fflush(stdout);
    if (Kokkos::is_initialized()) Kokkos::finalize();
    std::exit(status);
  }
  // Under mpirun, ranks other than 0 serve as workers here until rank 0 finalizes, then
  // finalise Kokkos and MPI and exit: they never return into the application.
  r.driver = driver::join(config, [] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
  r.config = std::move(config);
  r.tool_hooks = std::make_unique<detail::KokkosToolHooks>();
  ++r.generation;
}

void finalize() {
  Runtime& r = state();
  if (!r.driver) return;
  std::unique_ptr<driver::Driver> d = std::move(r.driver);  // gone even if the fence throws
  r.tool_hooks.reset();
  d->fence();
}

bool is_initialized() {
  return state().driver != nullptr;
}

void fence() {
  if (state().driver) state().driver->fence();
}

ScopeGuard::ScopeGuard(int& argc, char* argv[]) {
  initialize(argc, argv);
}

ScopeGuard::~ScopeGuard() {
  try {
    finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning: error at finalize: %s\n", e.what());
  }
}

bool checks_accesses() {
  return state().driver && state().config.check_access;
}

std::size_t device_count() {
  return detail::runtime().devices().size();
}

namespace detail {

namespace {
// "lightning::View 'label'" for a live array of this process, else "a lightning::View" (a
// kernel's bytes on another rank carry the launching process's control block).
std::string view_name(const ArrayControl* control) {
  std::lock_guard<std::mutex> lock(state().controls_mutex);
  if (control && state().controls.count(control)) return "lightning::View '" + control->label + "'";
  return "a lightning::View";
}
}  // namespace

driver::Driver& runtime() {
  if (!state().driver)
    throw Error(ErrorKind::kInvalidArgument,
                "the lightning runtime does not exist: create a lightning::ScopeGuard(argc, argv) "
                "after Kokkos::ScopeGuard");
  return *state().driver;
}

int recommended_team_size(const kernel::TeamShape& shape) {
  return kernel::recommended_team_size(shape, state().driver && state().driver->gpus_only());
}

ArrayControl* create_array(const std::string& label, DataType type, int rank, const int64_t* extent,
                           const DataDistribution* distribution, bool axes_reversed) {
  driver::Driver& d = runtime();
  const Point e = point_of(rank, extent);
  ArrayId id;
  if (distribution) {
    id = d.create_array(label, type, e, *distribution, axes_reversed);
  } else {
    // One chunk per device along axis 0.
    const int64_t devices = static_cast<int64_t>(d.devices().size());
    const int64_t chunk = std::max<int64_t>(1, (extent[0] + devices - 1) / devices);
    id = d.create_array(label, type, e, dist::block(chunk), axes_reversed);
  }
  auto control = std::make_unique<ArrayControl>();
  control->array = id;
  control->generation = state().generation;
  control->label = label;
  control->type = type;
  control->rank = rank;
  control->axes_reversed = axes_reversed;
  if (distribution) control->distribution = std::make_shared<DataDistribution>(*distribution);
  for (int a = 0; a < rank; ++a) control->extent[a] = extent[a];
  {
    std::lock_guard<std::mutex> lock(state().controls_mutex);
    state().controls.insert(control.get());
  }
  return control.release();
}

ArrayControl* create_array_like(const ArrayControl* like, const int64_t* extent) {
  return create_array(like->label, like->type, like->rank, extent, like->distribution.get(),
                      like->axes_reversed);
}

void destroy_array(ArrayControl* control) noexcept {
  std::unique_ptr<ArrayControl> owned(control);
  {
    std::lock_guard<std::mutex> lock(state().controls_mutex);
    state().controls.erase(control);
  }
  Runtime& r = state();
  if (!r.driver || r.generation != control->generation) return;  // its runtime is gone
  try {
    r.driver->delete_array(control->array);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning: deleting array '%s': %s\n", control->label.c_str(), e.what());
  }
}

namespace {
Rect box_of(int rank, const int64_t* lo, const int64_t* hi) {
  return Rect(point_of(rank, lo), point_of(rank, hi));
}
}  // namespace

void read_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                void* host) {
  driver_of(control, "deep_copy").read(control->array, box_of(rank, lo, hi), host);
}

void write_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                 const void* host) {
  driver_of(control, "deep_copy").write(control->array, box_of(rank, lo, hi), host);
}

void fill_array(const ArrayControl* control, int rank, const int64_t* lo, const int64_t* hi,
                const void* value) {
  driver_of(control, "deep_copy").fill(control->array, box_of(rank, lo, hi), value);
}

void check_same_extents(const std::string& what, const std::string& label, int rank,
                        const int64_t* lo, const int64_t* hi, const std::size_t* other_extent) {
  int64_t extent[3] = {}, other[3] = {};
  bool same = true;
  for (int a = 0; a < rank; ++a) {
    extent[a] = hi[a] - lo[a];
    other[a] = static_cast<int64_t>(other_extent[a]);
    same = same && extent[a] == other[a];
  }
  if (!same)
    throw Error(ErrorKind::kInvalidArgument, what + ": extents differ: lightning::View '" + label +
                                                 "' " + point_of(rank, extent).to_string() +
                                                 ", Kokkos::View " +
                                                 point_of(rank, other).to_string());
}

void check_distributed_copy(const std::string& dst_label, const std::string& src_label,
                            bool same_array, int rank, const int64_t* dst_lo, const int64_t* dst_hi,
                            const int64_t* src_lo, const int64_t* src_hi) {
  const Rect dst = box_of(rank, dst_lo, dst_hi), src = box_of(rank, src_lo, src_hi);
  if (dst.extent() != src.extent())
    throw Error(ErrorKind::kInvalidArgument, "deep_copy: extents differ: lightning::View '" +
                                                 dst_label + "' " + dst.extent().to_string() +
                                                 ", lightning::View '" + src_label + "' " +
                                                 src.extent().to_string());
  if (same_array && dst.intersects(src))
    throw Error(ErrorKind::kInvalidArgument, "deep_copy within lightning::View '" + dst_label +
                                                 "': the boxes " + dst.to_string() +
                                                 " (destination) and " + src.to_string() +
                                                 " (source) overlap; copy through a second View");
}

void check_subview(const ArrayControl* control, int rank, unsigned kept, const int64_t* lo,
                   const int64_t* hi, const int64_t* extent) {
  for (int a = 0; a < rank; ++a) {
    if (lo[a] >= 0 && lo[a] <= hi[a] && hi[a] <= extent[a]) continue;
    const bool index = !(kept >> a & 1u);
    throw Error(
        ErrorKind::kInvalidArgument,
        "Kokkos::subview of " + view_name(control) + ": " +
            (index ? "index " + std::to_string(lo[a])
                   : "range [" + std::to_string(lo[a]) + ", " + std::to_string(hi[a]) + ")") +
            " of axis " + std::to_string(a) + " is outside [0, " + std::to_string(extent[a]) + ")");
  }
}

namespace {

// `parameter`: the kernel parameter the access went through, where known (on a rank other
// than the launching one, the View's own name is not).
[[noreturn]] void null_element_access(const ArrayControl* control, const std::string& parameter) {
  const std::string name =
      view_name(control) + (parameter.empty() ? "" : " (parameter '" + parameter + "')");
  throw Error(ErrorKind::kInvalidArgument,
              "element access to " + name +
                  " where its elements are not: they live on the devices, and a kernel on "
                  "lightning::Distributed reaches only the Views its annotation has rules for. "
                  "On the host, copy them with Kokkos::deep_copy; in a kernel, give the View a "
                  "rule in the annotation (and, for a LIGHTNING_KERNEL functor, list it among "
                  "the members), and run the kernel on lightning::Distributed, not on "
                  "Kokkos::Serial or another space");
}

}  // namespace

void* unbound_element(const ArrayControl* control, const void* handle, int rank, int64_t i,
                      int64_t j, int64_t k) {
  const Point index = rank == 1 ? Point{i} : rank == 2 ? Point{i, j} : Point{i, j, k};
  if (!control && !worker::is_checked_handle(handle))  // a ported kernel's array
    throw Error(ErrorKind::kInvalidArgument,
                "element " + index.to_string() +
                    " of an array whose annotation rule gives this superblock none of its "
                    "elements: check the rule (the order of its indices above all: axis 0 of "
                    "a ported launch is x)");
  if (!worker::is_checked_handle(handle))
    null_element_access(control, kernel::array_parameter_at(handle));
  return worker::checked_element(handle, index);
}

std::string dispatch_label() {
  return KokkosToolHooks::current_label();
}

void stop_in_combined_reduction(const char* what) noexcept {
  std::fprintf(stderr,
               "lightning: a parallel_reduce with several reducers failed, and Kokkos declares "
               "it noexcept, so the program stops here: %s\n",
               what);
  std::fflush(stderr);
  std::abort();
}

void launch_kernel(Dispatch dispatch) {
  driver::Driver& d = runtime();
  const kernel::KernelInfo& info = kernel::KernelRegistry::get(dispatch.kernel);
  const kernel::KernelDescription& described = info.described_by(dispatch.description);
  const auto& signature = described.signature;
  // Errors found here name the launch by its Kokkos label first (text made only for them).
  const auto what = [&] { return driver::launch_title(dispatch.label, info.name); };
  for (const kernel::ArraySlot& slot : described.arrays) {
    if (!dispatch.arrays.at(static_cast<size_t>(slot.param)).valid())
      throw Error(ErrorKind::kInvalidArgument,
                  what() + ": View member '" +
                      signature.params[static_cast<size_t>(slot.param)].name +
                      "' is empty (default-constructed)");
  }
  // A LIGHTNING_KERNEL's members and a LIGHTNING_LAMBDA's captures are what they are listed
  // as (Views and numbers); what else the closure holds is checked for addresses.
  std::vector<std::pair<std::size_t, std::size_t>> listed;
  if (info.device.param_offsets.size() == signature.params.size()) {
    listed.reserve(signature.params.size());
    for (size_t p = 0; p < signature.params.size(); ++p) {
      const annotation::KernelParam& param = signature.params[p];
      const std::size_t size =
          param.is_array ? static_cast<std::size_t>(array_handle_size(param.rank)) + sizeof(void*)
                         : size_of(param.type);
      listed.emplace_back(info.device.param_offsets[p], info.device.param_offsets[p] + size);
    }
  }
  check_closure(what, static_cast<const unsigned char*>(dispatch.functor) + dispatch.values_begin,
                dispatch.values_end - dispatch.values_begin, listed, dispatch.padding,
                state().tool_hooks.get());
  if (dispatch.team) {
    const std::string violation = dispatch.team->limit_violation();
    if (!violation.empty())
      throw Error(ErrorKind::kInvalidArgument, what() + ": the TeamPolicy's " + violation);
  }
  driver::Launch l;
  l.kernel = dispatch.kernel;
  l.label = dispatch.label;
  l.functor = dispatch.functor;
  l.arrays = std::move(dispatch.arrays);
  const int rank = dispatch.rank;
  Point lo = Point::filled(rank, 0), hi = Point::filled(rank, 0);
  for (int a = 0; a < rank; ++a) {
    lo[a] = dispatch.lower[a];
    hi[a] = std::max(dispatch.lower[a], dispatch.upper[a]);
  }
  l.domain = Rect(lo, hi);
  if (dispatch.team) {
    l.block_size = Point{dispatch.team->team_size};
    l.teams = true;
  }
  if (dispatch.space.work_distribution()) l.work = *dispatch.space.work_distribution();
  l.description = dispatch.description;
  if (dispatch.reduce) {
    l.result = dispatch.reduce->result;
    l.reduction = dispatch.reduce->reduction;
  }
  if (dispatch.scan) l.result = dispatch.scan->total;
  const bool lambda_without_views =
      dispatch.description && std::none_of(signature.params.begin(), signature.params.end(),
                                           [](const auto& p) { return p.is_array; });
  try {
    d.launch(l);
  } catch (Error& e) {
    // A lambda's Views are found in its bytes, by value: an [&] lambda holds none.
    if (e.kind() == ErrorKind::kAnnotation && lambda_without_views)
      e.with_context(
          "the lambda captures no lightning::View by value: capture Views by value "
          "(KOKKOS_LAMBDA or [=]); a lambda that captures by reference ([&]) cannot run on "
          "lightning::Distributed");
    // Errors found at the launch (its annotation above all) name the launch and its kernel.
    e.with_context(dispatch.label.empty() || dispatch.label == info.name
                       ? "in the Kokkos launch of kernel '" + info.name + "'"
                       : "in Kokkos " + what());
    throw;
  }
}

KernelId register_lambda(const std::type_info& type, kernel::KernelInfo entry) {
  kernel::KernelInfo info = std::move(entry);
  // Closure types of lambdas in same-named functions of different files may demangle alike;
  // number them in registration order (the same in every process of one binary).
  const std::string name = kernel_name(type, "");
  info.name = name;
  for (int n = 2; kernel::KernelRegistry::contains(kernel::KernelRegistry::id_of(info.name)); ++n)
    info.name = name + "#" + std::to_string(n);
  info.takes_checked_handles = true;  // its arrays are captured lightning::Views
  return register_kernel_info(std::move(info), "").id;
}

kernel::KernelDescription describe_lambda(const char* annotation, const void* lambda,
                                          std::size_t size, std::size_t offset_in_wrapper,
                                          std::vector<ArrayId>& arrays) {
  kernel::KernelDescription d;
  d.annotation = annotation ? annotation : "";
  const auto* bytes = static_cast<const unsigned char*>(lambda);
  std::vector<const ArrayControl*> params;  // one per distinct array
  std::lock_guard<std::mutex> lock(state().controls_mutex);
  // A captured View is its handle (array_handle_size bytes) followed by its control pointer: find
  // pointers to live control blocks, then check the handle's extents before believing it.
  for (std::size_t at = 0; at + sizeof(void*) <= size; at += alignof(void*)) {
    const ArrayControl* control = nullptr;
    std::memcpy(&control, bytes + at, sizeof(control));
    if (!control || !state().controls.count(control)) continue;
    const std::size_t handle = static_cast<std::size_t>(array_handle_size(control->rank));
    if (at < handle) continue;
    const std::size_t start = at - handle;
    int64_t extent[3] = {};
    std::memcpy(extent, bytes + start + 16 + 8 * static_cast<std::size_t>(control->rank),
                8 * static_cast<std::size_t>(control->rank));
    if (!std::equal(extent, extent + control->rank, control->extent)) continue;
    auto it = std::find(params.begin(), params.end(), control);
    if (it == params.end()) {
      for (const ArrayControl* p : params)
        if (p->label == control->label)
          throw Error(ErrorKind::kInvalidArgument,
                      "lightning::annotate: the lambda captures two arrays labelled '" +
                          control->label +
                          "'; the annotation names captured Views by label, so labels must "
                          "differ");
      d.signature.add_array(control->label, control->type, control->rank, control->axes_reversed);
      arrays.push_back(control->array);
      params.push_back(control);
      it = params.end() - 1;
    }
    d.arrays.push_back(
        {static_cast<int>(it - params.begin()), offset_in_wrapper + start, control->rank});
  }
  return d;
}

}  // namespace detail
}  // namespace lightning

namespace lightning::detail {
// Declared in execution_space.cpp, which prints it.
std::string runtime_configuration() {
  std::string s;
  const Config& c = state().config;
  std::string text = c.describe();
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    s += "  " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  s += "  runtime devices: " + runtime().devices().describe() + "\n";
  return s;
}
}  // namespace lightning::detail
