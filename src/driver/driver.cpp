#include "driver/driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/log.hpp"
#include "lightning_kokkos/build_config.hpp"
#include "planner/fold_identity.hpp"
#include "worker/kernel_registry.hpp"
#include "worker/trace_writer.hpp"
#include "worker/worker.hpp"

#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/cuda_platform.hpp"
#include "backend/cuda/gpu_discovery.hpp"
#include "backend/cuda/jit_kernel_images.hpp"
#endif

namespace lightning::driver {

namespace {

// The GPUs the configuration selects: `cuda`, `cuda:0,2`, or `auto` where the machine has
// some; none means emulated host devices.
#if LIGHTNING_HAVE_CUDA
std::vector<cuda::GpuInfo> selected_gpus(const Config& config) {
  return cuda::select_gpus(config.devices, cuda::discover_gpus());
}
#endif

DeviceSet device_set_for(const Config& config, int workers) {
  if (workers < 1) throw Error(ErrorKind::kInvalidArgument, "a driver needs at least one worker");
#if LIGHTNING_HAVE_CUDA
  if (config.devices.kind != DeviceSelection::Kind::kHost) {
    const auto gpus = selected_gpus(config);
    if (!gpus.empty()) return DeviceSet::uniform(workers, static_cast<int>(gpus.size()));
  }
#else
  if (config.devices.kind == DeviceSelection::Kind::kCuda)
    throw Error(ErrorKind::kConfig, "devices '" + config.devices.to_string() +
                                        "': this build has no CUDA backend (built without the "
                                        "CUDA toolkit); use host:N");
#endif
  return DeviceSet::uniform(
      workers, config.devices.kind == DeviceSelection::Kind::kHost ? config.devices.host_count : 1);
}

#if LIGHTNING_HAVE_CUDA
// The devices of each worker are the selected GPUs, in order; workers of one process share
// them (each with its own pools), so the default pool is a share of the smallest GPU.
void use_gpus(const Config& config, std::vector<worker::WorkerOptions>& options) {
  const auto gpus = selected_gpus(config);
  if (gpus.empty()) return;
  uint64_t smallest = gpus.front().total_memory;
  for (const auto& g : gpus) smallest = std::min(smallest, g.total_memory);
  const uint64_t share = smallest / 10 * 8 / options.size();
  const Config::EnvLookup env = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  auto images = std::make_shared<cuda::JitKernelImages>(cuda::JitCache::directory_for(config, env));
  for (worker::WorkerOptions& o : options) {
    std::vector<std::pair<DeviceId, cuda::GpuInfo>> devices;
    for (size_t i = 0; i < o.devices.size(); ++i) devices.push_back({o.devices[i], gpus.at(i)});
    o.platform = std::make_shared<cuda::CudaPlatform>(devices, images);
    for (auto& [device, bytes] : o.memory.devices) bytes = config.device_memory.value_or(share);
  }
}
#endif

// Without a cap, an emulated device may use a fair share of the machine's memory: pools are
// reserved, not touched, so an unused share costs nothing.
uint64_t default_device_memory(size_t devices) {
  const uint64_t physical =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return std::max<uint64_t>(uint64_t{64} << 20, physical / (2 * std::max<size_t>(devices, 1)));
}

}  // namespace

Driver::Driver(const Config& config, int workers)
    : config_(config), planner_(device_set_for(config, workers)) {
  set_log_level(config.log);
  if (!config.trace.empty()) trace_ = std::make_unique<worker::TraceWriter>(0, "lightning");
  const DeviceSet& devices = planner_.devices();
  const uint64_t device_bytes =
      config.device_memory.value_or(default_device_memory(devices.size()));
  std::vector<worker::WorkerOptions> options(static_cast<size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    worker::WorkerOptions& o = options[static_cast<size_t>(w)];
    o.id = WorkerId(w);
    o.devices = devices.devices_of(WorkerId(w));
    for (DeviceId d : o.devices) o.memory.devices.push_back({d, device_bytes});
    o.memory.host_bytes = config.host_memory;
    o.memory.spill_dir = config.spill_dir;
    o.staging_limit = config.staging_limit;
    o.trace = trace_.get();
  }
#if LIGHTNING_HAVE_CUDA
  use_gpus(config, options);
#endif
  for (worker::WorkerOptions& o : options)
    workers_.push_back(std::make_unique<worker::Worker>(
        std::move(o), transport_,
        [this](WorkerId wk, TaskId t, const std::string& e) { on_completed(wk, t, e); }));
  log().info("driver: {} worker(s), devices {}", workers, devices.describe());
}

Driver::~Driver() {
  try {
    fence();
  } catch (const std::exception& e) {
    log().error("errors not collected before shutdown: {}", e.what());
  }
  workers_.clear();
  if (trace_) trace_->flush(config_.trace);
}

void Driver::submit(const planner::Plan& plan, const worker::FragmentContext& context) {
  auto shared = std::make_shared<const worker::FragmentContext>(context);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outstanding_ += plan.task_count();
    for (TaskId t : plan.completion) waiting_.insert(t);
  }
  for (size_t w = 0; w < plan.fragments.size(); ++w)
    if (!plan.fragments[w].empty()) workers_[w]->submit(plan.fragments[w], shared);
}

void Driver::on_completed(WorkerId worker, TaskId task, const std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting_.erase(task);
    if (task.valid()) --outstanding_;
    if (!error.empty()) errors_.push_back(error);
  }
  completed_.notify_all();
}

void Driver::wait_for(const std::vector<TaskId>& tasks) {
  std::unique_lock<std::mutex> lock(mutex_);
  completed_.wait(lock, [&] {
    return std::none_of(tasks.begin(), tasks.end(), [&](TaskId t) { return waiting_.count(t); });
  });
}

void Driver::throw_pending_error() {
  std::vector<std::string> errors;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    errors.swap(errors_);
  }
  if (errors.empty()) return;
  std::string message = errors.front();
  if (errors.size() > 1)
    message += "\n  (and " + std::to_string(errors.size() - 1) + " more failed or skipped tasks)";
  throw Error(ErrorKind::kTask, message);
}

ArrayId Driver::create_array(const std::string& name, DataType type, const Point& extent,
                             const DataDistribution& distribution) {
  auto [id, plan] = planner_.create_array({name, type, extent, distribution});
  arrays_[id] = {name, type, extent};
  submit(plan, {});
  return id;
}

void Driver::delete_array(ArrayId array) {
  const planner::Plan plan = planner_.delete_array(array);
  arrays_.erase(array);
  submit(plan, {});
}

void Driver::fill(ArrayId array, const Rect& region, const void* value) {
  const planner::ArrayState& a = planner_.array(array);
  const auto* bytes = static_cast<const uint8_t*>(value);
  submit(planner_.fill(array, region, {bytes, bytes + a.element_size()}), {});
}

void Driver::write(ArrayId array, const Rect& region, const void* host) {
  const planner::HostBufferId buffer = next_buffer();
  const planner::Plan plan = planner_.write_from_host(array, region, buffer);
  worker::FragmentContext context;
  context.host_buffers[buffer.value] = {const_cast<void*>(host), region,
                                        planner_.array(array).element_size()};
  submit(plan, context);
  wait_for(plan.completion);
}

void Driver::read(ArrayId array, const Rect& region, void* host) {
  const planner::HostBufferId buffer = next_buffer();
  const planner::Plan plan = planner_.read_to_host(array, region, buffer);
  worker::FragmentContext context;
  context.host_buffers[buffer.value] = {host, region, planner_.array(array).element_size()};
  submit(plan, context);
  wait_for(plan.completion);
  throw_pending_error();
}

void Driver::launch(const Launch& l) {
  const worker::KernelInfo& info = worker::KernelRegistry::get(l.kernel);
  const std::string& annotation_text = l.description ? l.description->annotation : info.annotation;
  const annotation::KernelSignature& signature =
      l.description ? l.description->signature : info.signature;
  const std::vector<worker::ArraySlot>& array_slots =
      l.description ? l.description->arrays : info.arrays;
  const std::vector<worker::ScalarSlot>& scalar_slots =
      l.description ? l.description->scalars : info.scalars;
  const int rank = l.domain.rank();
  const annotation::BoundAnnotation& bound = annotations_.bind(annotation_text, signature, rank);

  planner::LaunchRequest r;
  r.kernel = l.kernel;
  r.name = info.name;
  r.annotation = &bound;
  r.arrays = l.arrays;
  r.arrays.resize(signature.params.size());
  r.scalars.assign(signature.params.size(), 0);
  const auto* bytes = static_cast<const uint8_t*>(l.functor);
  for (const worker::ScalarSlot& s : scalar_slots) {
    int64_t v = 0;
    switch (size_of(s.type)) {
      case 1: {
        int8_t x;
        std::memcpy(&x, bytes + s.byte_offset, 1);
        v = x;
        break;
      }
      case 2: {
        int16_t x;
        std::memcpy(&x, bytes + s.byte_offset, 2);
        v = x;
        break;
      }
      case 4: {
        int32_t x;
        std::memcpy(&x, bytes + s.byte_offset, 4);
        v = x;
        break;
      }
      default:
        std::memcpy(&v, bytes + s.byte_offset, 8);
        break;
    }
    r.scalars[s.param] = v;
  }
  r.domain = l.domain;
  r.block_size = l.block_size;
  if (r.block_size.rank() == 0) {
    r.block_size = Point::filled(rank, 1);
    r.block_size[rank - 1] = 256;
  }
  if (l.work) {
    r.work = *l.work;
  } else {  // follow the first array the kernel writes (or the first it reads)
    const annotation::BoundArray* follow = nullptr;
    for (const auto& a : bound.arrays())
      if (!follow || (follow->mode == annotation::AccessMode::kRead &&
                      a.mode != annotation::AccessMode::kRead))
        follow = &a;
    if (!follow)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + info.name + "' touches no array: give it a work distribution");
    const DataLayout& layout = *planner_.array(r.arrays.at(follow->param)).layout;
    if (signature.params[static_cast<size_t>(follow->param)].axes_reversed) {
      // A column-major array: its chunks, seen in the kernel's index order.
      std::vector<Chunk> chunks = layout.chunks();
      for (Chunk& c : chunks) {
        c.box = c.box.reversed();
        c.owned = c.owned.reversed();
      }
      r.work =
          work::like(DataLayout(layout.extent().reversed(), std::move(chunks), layout.devices()));
    } else {
      r.work = work::like(layout);
    }
  }

  worker::FragmentContext context;
  auto data = std::make_shared<worker::LaunchData>();
  data->kernel = l.kernel;
  data->name = info.name;
  data->functor.assign(bytes, bytes + info.functor_size);
  data->extents.resize(signature.params.size());
  data->arrays = array_slots;
  for (size_t p = 0; p < r.arrays.size(); ++p)
    if (r.arrays[p].valid() && planner_.has_array(r.arrays[p]))
      data->extents[p] = planner_.array(r.arrays[p]).extent;

  const bool reduces = info.reducer.value_size > 0;
  planner::HostBufferId result;
  if (reduces) {
    if (!l.result)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + info.name + "' reduces to a value, but the launch gives no result");
    if (l.reduce_op != planner::FoldOp::kCustom &&
        size_of(l.reduce_type) != info.reducer.value_size)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + info.name + "' reduces values of " +
                      std::to_string(info.reducer.value_size) + " bytes, but the launch folds " +
                      std::string(name_of(l.reduce_type)) + " (" +
                      std::to_string(size_of(l.reduce_type)) + " bytes) with '" +
                      planner::name_of(l.reduce_op) + "'");
    result = next_buffer();
    const DataType type =
        l.reduce_op == planner::FoldOp::kCustom ? DataType::kUInt8 : l.reduce_type;
    r.scalar_reduction =
        planner::ScalarReduction{info.reducer.value_size, l.reduce_op, result, type};
    data->reduce_op = l.reduce_op;
    data->reduce_type = type;
  }
  const planner::Plan plan = planner_.launch(r);  // throws before anything is submitted
  context.launches[plan.request] = std::move(data);
  if (reduces) {
    if (l.reduce_op == planner::FoldOp::kCustom) {
      info.reducer.init(l.result);
    } else {
      const std::vector<uint8_t> identity = planner::fold_identity(l.reduce_op, l.reduce_type);
      std::memcpy(l.result, identity.data(), identity.size());
    }
    context.host_buffers[result.value] = {l.result, Rect(), info.reducer.value_size};
  }
  submit(plan, context);
  if (reduces) {
    wait_for(plan.completion);
    throw_pending_error();
  }
}

std::vector<worker::Worker::MemoryReport> Driver::memory_reports() {
  std::vector<worker::Worker::MemoryReport> reports;
  for (auto& w : workers_) reports.push_back(w->memory_report());
  return reports;
}

void Driver::fence() {
  const planner::Plan plan = planner_.fence();
  submit(plan, {});
  wait_for(plan.completion);
  TaskId last;
  for (TaskId t : plan.completion)
    if (!last.valid() || last < t) last = t;
  if (last.valid()) planner_.retire_before(TaskId(last.value() + 1));
  throw_pending_error();
}

}  // namespace lightning::driver
