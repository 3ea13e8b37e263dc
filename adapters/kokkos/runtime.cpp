// The process's runtime instance and the out-of-line parts of lightning::View and dispatch.
#include "lightning_kokkos/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "core/config.hpp"
#include "core/error.hpp"
#include "driver/driver.hpp"
#include "driver/join.hpp"
#include "lightning_kokkos/parallel.hpp"
#include "lightning_kokkos/view.hpp"
#include "worker/kernel_registry.hpp"

namespace lightning {
namespace {

// The only global mutable state of the binding: the runtime, its configuration (for
// print_configuration) and a generation number, so that Views outliving a runtime never
// touch the next one.
struct Runtime {
  Config config;
  std::unique_ptr<driver::Driver> driver;
  uint64_t generation = 0;
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
  // Under mpirun, ranks other than 0 serve as workers here until rank 0 finalizes, then
  // finalise Kokkos and MPI and exit: they never return into the application.
  r.driver = driver::join(config, [] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  });
  r.config = std::move(config);
  ++r.generation;
}

void finalize() {
  Runtime& r = state();
  if (!r.driver) return;
  std::unique_ptr<driver::Driver> d = std::move(r.driver);  // gone even if the fence throws
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

namespace detail {

driver::Driver& runtime() {
  if (!state().driver)
    throw Error(ErrorKind::kInvalidArgument,
                "the lightning runtime does not exist: create a lightning::ScopeGuard(argc, argv) "
                "after Kokkos::ScopeGuard");
  return *state().driver;
}

ArrayControl* create_array(const std::string& label, DataType type, int rank, const int64_t* extent,
                           const DataDistribution* distribution) {
  driver::Driver& d = runtime();
  const Point e = point_of(rank, extent);
  ArrayId id;
  if (distribution) {
    id = d.create_array(label, type, e, *distribution);
  } else {
    // One chunk per device along axis 0.
    const int64_t devices = static_cast<int64_t>(d.devices().size());
    const int64_t chunk = std::max<int64_t>(1, (extent[0] + devices - 1) / devices);
    id = d.create_array(label, type, e, dist::block(chunk));
  }
  auto control = std::make_unique<ArrayControl>();
  control->array = id;
  control->generation = state().generation;
  control->label = label;
  return control.release();
}

void destroy_array(ArrayControl* control) noexcept {
  std::unique_ptr<ArrayControl> owned(control);
  Runtime& r = state();
  if (!r.driver || r.generation != control->generation) return;  // its runtime is gone
  try {
    r.driver->delete_array(control->array);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning: deleting array '%s': %s\n", control->label.c_str(), e.what());
  }
}

void read_array(const ArrayControl* control, int rank, const int64_t* extent, void* host) {
  driver_of(control, "deep_copy")
      .read(control->array, Rect::from_extent(point_of(rank, extent)), host);
}

void write_array(const ArrayControl* control, int rank, const int64_t* extent, const void* host) {
  driver_of(control, "deep_copy")
      .write(control->array, Rect::from_extent(point_of(rank, extent)), host);
}

void fill_array(const ArrayControl* control, int rank, const int64_t* extent, const void* value) {
  driver_of(control, "deep_copy")
      .fill(control->array, Rect::from_extent(point_of(rank, extent)), value);
}

void check_same_extents(const std::string& what, int rank, const int64_t* view_extent,
                        const std::size_t* other_extent) {
  for (int a = 0; a < rank; ++a) {
    if (static_cast<std::size_t>(view_extent[a]) != other_extent[a]) {
      std::string v, o;
      for (int b = 0; b < rank; ++b) {
        v += (b ? ", " : "") + std::to_string(view_extent[b]);
        o += (b ? ", " : "") + std::to_string(other_extent[b]);
      }
      throw Error(ErrorKind::kInvalidArgument,
                  what + ": extents differ: lightning::View (" + v + "), Kokkos::View (" + o + ")");
    }
  }
}

void null_element_access() {
  throw Error(ErrorKind::kInvalidArgument,
              "lightning::View element access outside a kernel: the elements live on the "
              "devices; copy them to a host view with Kokkos::deep_copy (or, inside a kernel: "
              "list this View among the LIGHTNING_KERNEL members)");
}

void launch_range(KernelId id, const void* functor, std::vector<ArrayId> arrays, int64_t begin,
                  int64_t end, const Distributed& space) {
  driver::Driver& d = runtime();
  const worker::KernelInfo& info = worker::KernelRegistry::get(id);
  for (const worker::ArraySlot& slot : info.arrays) {
    if (!arrays.at(static_cast<size_t>(slot.param)).valid())
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + info.name + "': View member '" +
                      info.signature.params[static_cast<size_t>(slot.param)].name +
                      "' is empty (default-constructed)");
  }
  driver::Launch l;
  l.kernel = id;
  l.functor = functor;
  l.arrays = std::move(arrays);
  l.domain = Rect(Point{begin}, Point{std::max(begin, end)});
  if (space.work_distribution()) l.work = *space.work_distribution();
  d.launch(l);
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
