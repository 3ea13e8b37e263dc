#include "backend/cuda/cuda_device.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>

#include "backend/cuda/kernel_codegen.hpp"
#include "backend/cuda/region_copy.hpp"
#include "core/error.hpp"
#include "core/size_text.hpp"
#include "kernel/array_binding.hpp"
#include "kernel/ported_launch.hpp"
#include "kernel/team_shape.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/checked_region.hpp"
#include "lightning_kokkos/device/launch_box.hpp"
#include "lightning_kokkos/device/ported_launch.hpp"
#include "lightning_kokkos/device/reduction_target.hpp"
#include "lightning_kokkos/device/scan_launch.hpp"
#include "lightning_kokkos/device/team_launch.hpp"
#include "planner/task_failure.hpp"

namespace lightning::cuda {

using worker::HostAccess;
using worker::KernelRun;
using worker::OpSpan;
using worker::PlacedBuffer;

namespace {

std::chrono::steady_clock::time_point now() {
  return std::chrono::steady_clock::now();
}

/// Launch scratch (scan states, team partials and level-1 slices) is carved in pieces of
/// this alignment, so that each piece starts where any value type may.
constexpr uint64_t kAlign = 256;
uint64_t aligned(uint64_t bytes) {
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

}  // namespace

// What an operation's completion needs: whom to tell, since when, what failed, and the
// pinned blocks to give back. Owned by the stream's waiter once the wait is queued.
struct CudaDevice::Completion {
  explicit Completion(WaitPolicy* wait) : counted(wait) {}

  GpuOperationCount counted;  // from issue to report
  Done done;
  OpSpan span;
  std::exception_ptr error;
  PinnedHostPool* pinned = nullptr;
  std::vector<void*> blocks;  // pinned blocks to release at the end
  // Reductions: joins `count` partials into `value` with the launch's reduction, before the
  // value is copied to the device.
  Reduction reduction;
  void* partials = nullptr;
  void* value = nullptr;
  int64_t count = 0;
  // Team kernels: their status record, copied behind the kernel (pinned memory).
  const jit::TeamStatus* team_status = nullptr;
  // Host jobs behind launches: run by the waiter once the stream got there.
  std::function<void()> after;
};

CudaDevice::CudaDevice(DeviceId id, const GpuContext& context,
                       const std::unordered_map<DeviceId, const GpuContext*>& gpus,
                       PinnedHostPool& pinned, KernelImageSource& images, WaitPolicy* wait)
    : id_(id),
      context_(context),
      api_(context.api()),
      gpus_(gpus),
      pinned_(pinned),
      images_(images),
      wait_(wait) {
  context_.make_current();
  const std::string where = "while creating the streams of " + id.to_string();
  api_.check(api_.cuStreamCreate(&compute_, CU_STREAM_NON_BLOCKING), "cuStreamCreate", where);
  api_.check(api_.cuStreamCreate(&copy_in_, CU_STREAM_NON_BLOCKING), "cuStreamCreate", where);
  api_.check(api_.cuStreamCreate(&copy_out_, CU_STREAM_NON_BLOCKING), "cuStreamCreate", where);
  // The compute thread and its waiter are on the path of every launch and of a reduction's
  // value: they poll while the GPU works. The copy engines' operations are long, or not
  // waited on by a program.
  compute_thread_ = std::make_unique<worker::Engine>(id.to_string() + " compute", 1, wait_);
  copy_thread_ = std::make_unique<worker::Engine>(id.to_string() + " copy");
  compute_waiter_ = std::make_unique<worker::Engine>(id.to_string() + " compute wait", 1, wait_);
  copy_in_waiter_ = std::make_unique<worker::Engine>(id.to_string() + " copy-in wait");
  copy_out_waiter_ = std::make_unique<worker::Engine>(id.to_string() + " copy-out wait");
}

CudaDevice::~CudaDevice() {
  compute_thread_.reset();
  copy_thread_.reset();
  // The waiters report the last completions once the GPU has reached them.
  compute_waiter_.reset();
  copy_in_waiter_.reset();
  copy_out_waiter_.reset();
  if (api_.cuCtxSetCurrent(context_.context()) != CUDA_SUCCESS) return;
  for (CUstream s : {compute_, copy_in_, copy_out_}) {
    api_.cuStreamSynchronize(s);
    api_.cuStreamDestroy(s);
  }
  for (CUevent e : free_events_) api_.cuEventDestroy(e);
  for (CUmodule m : modules_) api_.cuModuleUnload(m);
  if (scratch_ != 0) api_.cuMemFree(scratch_);
  if (reduction_counter_ != 0) api_.cuMemFree(reduction_counter_);
}

std::string CudaDevice::description() const {
  const GpuInfo& g = context_.gpu();
  return g.name + " (cuda:" + std::to_string(g.ordinal) + ") as " + id_.to_string();
}

const GpuContext* CudaDevice::context_of(const worker::MemorySpace& space) const {
  if (!space.is_device()) return nullptr;
  auto it = gpus_.find(space.device);
  if (it == gpus_.end())
    throw Error(ErrorKind::kInternal, id_.to_string() + " cannot reach " + space.to_string());
  return it->second;
}

// Ends an operation: an event recorded behind the stream's work, which the stream's waiter
// thread waits for before it reports the operation (and releases its pinned blocks). Reporting
// completions makes no stream wait for the host: a host function here (cuLaunchHostFunc) would
// hold every later operation of the stream until the driver's callback thread had run it (the
// joins of array reductions' partials still do, see issue_launch). `c` is released once the wait is
// queued; when that fails it stays with the caller, which reports the error.
void CudaDevice::finish_with_event(CUstream stream, std::unique_ptr<Completion>& c) {
  CUevent event = take_event();
  const CUresult recorded = api_.cuEventRecord(event, stream);
  if (recorded != CUDA_SUCCESS) {
    give_event(event);
    api_.check(recorded, "cuEventRecord");
  }
  worker::Engine& waiter = stream == compute_   ? *compute_waiter_
                           : stream == copy_in_ ? *copy_in_waiter_
                                                : *copy_out_waiter_;
  Completion* raw = c.get();
  waiter.execute(
      [this, event, raw, stream] {
        std::unique_ptr<Completion> done(raw);
        try {
          context_.make_current();
          // The waiter polls while the policy says so (its own operation counts as the GPU
          // working), then sleeps in the blocking-sync event.
          if (stream == compute_)
            WaitPolicy::poll(wait_,
                             [&] { return api_.cuEventQuery(event) != CUDA_ERROR_NOT_READY; });
          api_.check(api_.cuEventSynchronize(event), "cuEventSynchronize",
                     "while waiting for an operation of " + id_.to_string());
        } catch (...) {
          if (!done->error) done->error = std::current_exception();
        }
        if (done->after && !done->error) {
          try {
            done->after();
          } catch (...) {
            done->error = std::current_exception();
          }
        }
        if (done->team_status && done->team_status->failed && !done->error) {
          const jit::TeamStatus& t = *done->team_status;
          done->error = std::make_exception_ptr(
              Error(ErrorKind::kInvalidArgument,
                    kernel::scratch_exhausted_message(t.level, t.asked, t.left, t.capacity)));
        }
        done->span.end = now();
        give_event(event);
        for (void* b : done->blocks) done->pinned->release(b);
        done->done(std::move(done->error), done->span);
      },
      nullptr);
  c.release();  // the waiter owns it now
}

std::unique_ptr<CudaDevice::Completion> CudaDevice::started(Done done, bool gpu_work) {
  auto c = std::make_unique<Completion>(gpu_work ? wait_ : nullptr);
  c->done = std::move(done);
  c->pinned = &pinned_;
  c->span.start = now();
  return c;
}

CUevent CudaDevice::take_event() {
  {
    std::lock_guard<std::mutex> lock(events_mutex_);
    if (!free_events_.empty()) {
      CUevent e = free_events_.back();
      free_events_.pop_back();
      return e;
    }
  }
  CUevent e = nullptr;
  context_.make_current();  // events belong to the context they are created in
  // Blocking sync: the waiter sleeps until the GPU gets there instead of spinning a core.
  api_.check(api_.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC),
             "cuEventCreate", "for the completions of " + id_.to_string());
  return e;
}

void CudaDevice::give_event(CUevent event) {
  std::lock_guard<std::mutex> lock(events_mutex_);
  free_events_.push_back(event);
}

void CudaDevice::enqueue_copy(CUstream stream, const PlacedBuffer& dst, const PlacedBuffer& src,
                              const Rect& region) {
  if (dst.elem_size != src.elem_size)
    throw Error(ErrorKind::kInternal, "GPU copy between buffers of " +
                                          std::to_string(src.elem_size) + "- and " +
                                          std::to_string(dst.elem_size) + "-byte elements");
  const RegionCopy c = RegionCopy::plan(dst.box, src.box, region, dst.elem_size);
  if (c.bytes == 0) return;
  const GpuContext* dctx = context_of(dst.space);
  const GpuContext* sctx = context_of(src.space);
  auto* d = static_cast<char*>(dst.data);
  const auto* s = static_cast<const char*>(src.data);
  const std::string what = "while copying " + region.to_string() + " (" + format_size(c.bytes) +
                           ") from " + src.space.to_string() + " to " + dst.space.to_string();
  // Memory of another GPU: the peer copies name both contexts; the driver uses NVLink/PCIe
  // peer access where it is enabled and stages through host memory otherwise.
  const bool other_gpu = (dctx && dctx->context() != context_.context()) ||
                         (sctx && sctx->context() != context_.context());
  if (!other_gpu) {
    if (c.contiguous) {
      api_.check(
          api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(d + c.dst_offset),
                             reinterpret_cast<CUdeviceptr>(s + c.src_offset), c.bytes, stream),
          "cuMemcpyAsync", what);
      return;
    }
    const CUDA_MEMCPY3D desc = c.descriptor(d, dctx ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST, s,
                                            sctx ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST);
    api_.check(api_.cuMemcpy3DAsync(&desc, stream), "cuMemcpy3DAsync", what);
    return;
  }
  const CUcontext dc = dctx ? dctx->context() : context_.context();
  const CUcontext sc = sctx ? sctx->context() : context_.context();
  if (c.contiguous && dctx && sctx) {
    api_.check(api_.cuMemcpyPeerAsync(reinterpret_cast<CUdeviceptr>(d + c.dst_offset), dc,
                                      reinterpret_cast<CUdeviceptr>(s + c.src_offset), sc, c.bytes,
                                      stream),
               "cuMemcpyPeerAsync", what);
    return;
  }
  const CUDA_MEMCPY3D flat = c.descriptor(d, dctx ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST, s,
                                          sctx ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST);
  CUDA_MEMCPY3D_PEER p;
  std::memset(&p, 0, sizeof p);
  p.srcXInBytes = flat.srcXInBytes, p.srcY = flat.srcY, p.srcZ = flat.srcZ;
  p.srcMemoryType = flat.srcMemoryType, p.srcHost = flat.srcHost, p.srcDevice = flat.srcDevice;
  p.srcContext = sc, p.srcPitch = flat.srcPitch, p.srcHeight = flat.srcHeight;
  p.dstXInBytes = flat.dstXInBytes, p.dstY = flat.dstY, p.dstZ = flat.dstZ;
  p.dstMemoryType = flat.dstMemoryType, p.dstHost = flat.dstHost, p.dstDevice = flat.dstDevice;
  p.dstContext = dc, p.dstPitch = flat.dstPitch, p.dstHeight = flat.dstHeight;
  p.WidthInBytes = flat.WidthInBytes, p.Height = flat.Height, p.Depth = flat.Depth;
  api_.check(api_.cuMemcpy3DPeerAsync(&p, stream), "cuMemcpy3DPeerAsync", what);
}

void CudaDevice::copy(PlacedBuffer dst, PlacedBuffer src, Rect region, Done done) {
  copy_thread_->execute(
      [this, dst, src, region, done = std::move(done)]() mutable {
        // Copies are long, or not what a program's wait is for: no one polls for them.
        std::unique_ptr<Completion> c = started(std::move(done), false);
        try {
          context_.make_current();
          const bool outbound =
              src.space.is_device() && context_of(src.space)->context() == context_.context();
          const CUstream stream = outbound ? copy_out_ : copy_in_;
          enqueue_copy(stream, dst, src, region);
          finish_with_event(stream, c);
        } catch (...) {
          if (c) c->done(std::current_exception(), {c->span.start, now()});
        }
      },
      nullptr);
}

// Host code sees host memory: device buffers are staged through pinned blocks holding just
// the region, and written back after. Correct and simple; it costs two transfers and two
// stream synchronisations of the copy thread per task (fills and folds could run as kernels
// on the GPU instead).
bool CudaDevice::host_views(const std::vector<HostAccess>& accesses, CUstream stream,
                            std::vector<void*>& blocks, std::vector<worker::BoxBuffer>& views) {
  bool downloads = false;
  views.reserve(views.size() + accesses.size());
  for (const HostAccess& a : accesses) {
    if (!a.buffer.space.is_device()) {
      views.push_back(a.buffer.view());
      continue;
    }
    const uint64_t bytes = static_cast<uint64_t>(a.region.volume()) * a.buffer.elem_size;
    blocks.push_back(pinned_.allocate(bytes));
    views.push_back({blocks.back(), a.region, a.buffer.elem_size});
    if (a.read) {
      const PlacedBuffer staged{blocks.back(), a.region, a.buffer.elem_size,
                                worker::MemorySpace::host()};
      enqueue_copy(stream, staged, a.buffer, a.region);
      downloads = true;
    }
  }
  return downloads;
}

void CudaDevice::run_on_host(std::vector<HostAccess> accesses, HostJob job, Done done) {
  copy_thread_->execute(
      [this, accesses = std::move(accesses), job = std::move(job),
       done = std::move(done)]() mutable {
        OpSpan span{now(), {}};
        std::vector<void*> blocks;
        std::exception_ptr error;
        try {
          context_.make_current();
          std::vector<worker::BoxBuffer> views;
          bool uploads = false;
          if (host_views(accesses, copy_out_, blocks, views))
            api_.check(api_.cuStreamSynchronize(copy_out_), "cuStreamSynchronize",
                       "while staging a host job's buffers from " + id_.to_string());
          job(views);
          for (size_t i = 0; i < accesses.size(); ++i) {
            const HostAccess& a = accesses[i];
            if (!a.write || !a.buffer.space.is_device()) continue;
            const PlacedBuffer staged{views[i].data, a.region, a.buffer.elem_size,
                                      worker::MemorySpace::host()};
            enqueue_copy(copy_in_, a.buffer, staged, a.region);
            uploads = true;
          }
          if (uploads)
            api_.check(api_.cuStreamSynchronize(copy_in_), "cuStreamSynchronize",
                       "while writing a host job's results to " + id_.to_string());
        } catch (...) {
          error = std::current_exception();
          // Transfers already issued may still read or write the blocks.
          api_.cuStreamSynchronize(copy_out_);
          api_.cuStreamSynchronize(copy_in_);
        }
        for (void* b : blocks) pinned_.release(b);
        span.end = now();
        done(std::move(error), span);
      },
      nullptr);
}

namespace {

// Whether every byte of `value` is the same.
bool one_byte_repeated(const std::vector<uint8_t>& value) {
  return std::all_of(value.begin(), value.end(), [&](uint8_t b) { return b == value[0]; });
}

}  // namespace

void CudaDevice::fill(PlacedBuffer dst, Rect region, std::vector<uint8_t> value, Done done) {
  const worker::ByteRange bytes = dst.space.is_device() && value.size() == dst.elem_size
                                      ? worker::contiguous_bytes(dst.box, dst.elem_size, region)
                                      : worker::ByteRange{};
  if (bytes.empty())
    return Device::fill(std::move(dst), std::move(region), std::move(value), std::move(done));
  const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(dst.data) + bytes.begin;
  copy_thread_->execute(
      [this, base, size = bytes.size(), value = std::move(value),
       done = std::move(done)]() mutable {
        OpSpan span{now(), {}};
        std::exception_ptr error;
        void* element = nullptr;
        const std::string where = "while filling " + std::to_string(size) + " bytes with " +
                                  std::to_string(value.size()) + "-byte elements on " +
                                  id_.to_string();
        try {
          context_.make_current();
          const size_t es = value.size();
          if (one_byte_repeated(value)) {  // zeros, most often
            api_.check(api_.cuMemsetD8Async(base, value[0], size, copy_in_), "cuMemsetD8Async",
                       where);
          } else if (es == 2 && base % 2 == 0) {
            uint16_t v;
            std::memcpy(&v, value.data(), 2);
            api_.check(api_.cuMemsetD16Async(base, v, size / 2, copy_in_), "cuMemsetD16Async",
                       where);
          } else if (es == 4 && base % 4 == 0) {
            uint32_t v;
            std::memcpy(&v, value.data(), 4);
            api_.check(api_.cuMemsetD32Async(base, v, size / 4, copy_in_), "cuMemsetD32Async",
                       where);
          } else {
            // One element up, then the filled part copied after itself: log2(n) copies on
            // the GPU, none of them overlapping its source.
            element = pinned_.allocate(es);
            std::memcpy(element, value.data(), es);
            api_.check(
                api_.cuMemcpyAsync(base, reinterpret_cast<CUdeviceptr>(element), es, copy_in_),
                "cuMemcpyAsync", where);
            for (uint64_t have = es; have < size;) {
              const uint64_t n = std::min<uint64_t>(have, size - have);
              api_.check(api_.cuMemcpyAsync(base + have, base, n, copy_in_), "cuMemcpyAsync",
                         where);
              have += n;
            }
          }
          api_.check(api_.cuStreamSynchronize(copy_in_), "cuStreamSynchronize", where);
        } catch (...) {
          error = std::current_exception();
          api_.cuStreamSynchronize(copy_in_);  // the element may still be read
        }
        if (element) pinned_.release(element);
        span.end = now();
        done(std::move(error), span);
      },
      nullptr);
}

CudaDevice::Functions CudaDevice::functions_for(const KernelRun& run) {
  const kernel::KernelInfo& kernel = *run.info;
  KernelSpecialization spec;
  spec.block_size = kBlockThreads;
  if (kernel.device.kind == kernel::DeviceCodeKind::kTeamFunctorBody) {
    // Teams bake their block's threads as launch bounds: one module per team shape.
    jit::TeamLaunch shape{};
    std::memcpy(&shape, run.functor.data() + kernel.device.launch_offset, sizeof(shape));
    spec.block_size = shape.team_size * shape.vector_length;
  }
  spec.reduction = run.reduction;
  // An array reduction's code is the same for every value_count (its launches pass their
  // value's size): one module for all of them.
  if (kernel.reduces_array()) spec.reduction.value_size = 0;
  spec.checked = run.check != nullptr;
  const auto key = std::make_pair(&kernel, spec.key(kernel.reduction.has_value()));
  auto it = functions_.find(key);
  if (it != functions_.end()) return it->second;
  const GpuInfo& g = context_.gpu();
  const KernelImage& image = images_.image(kernel, g.compute_major, g.compute_minor, spec);
  const std::string where = "while loading kernel '" + kernel.name + "' (entry " + image.entry +
                            ") on " + id_.to_string();
  CUmodule module = nullptr;
  api_.check(api_.cuModuleLoadData(&module, image.cubin.data()), "cuModuleLoadData", where);
  modules_.push_back(module);
  Functions f;
  api_.check(api_.cuModuleGetFunction(&f.general, module, image.entry.c_str()),
             "cuModuleGetFunction", where);
  // Generated rank-1 kernels without reduction also have a one-index-per-thread entry, scan
  // kernels a final pass.
  auto optional_entry = [&](CUfunction& function, const char* name) {
    const CUresult found = api_.cuModuleGetFunction(&function, module, name);
    if (found == CUDA_ERROR_NOT_FOUND)
      function = nullptr;
    else
      api_.check(found, "cuModuleGetFunction", where);
  };
  optional_entry(f.cover, kCoverEntryName);
  optional_entry(f.scan_final, kScanFinalEntryName);
  api_.check(
      api_.cuFuncGetAttribute(&f.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f.general),
      "cuFuncGetAttribute", where);
  api_.check(
      api_.cuFuncGetAttribute(&f.static_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f.general),
      "cuFuncGetAttribute", where);
  if (kernel.device.kind == kernel::DeviceCodeKind::kPorted ||
      kernel.device.kind == kernel::DeviceCodeKind::kTeamFunctorBody || kernel.reduces_array()) {
    // Ported and team launches and array reductions may ask for dynamic shared memory beyond
    // the 48 KiB every kernel gets; allow each as much as the GPU has, so the launch alone
    // decides.
    const int dynamic = g.max_shared_per_block_optin - f.static_shared;
    if (dynamic > 0)
      api_.check(api_.cuFuncSetAttribute(f.general, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                         dynamic),
                 "cuFuncSetAttribute", where);
  }
  functions_[key] = f;
  return f;
}

void CudaDevice::issue_launch(KernelRun& run, Completion& c) {
  const kernel::KernelInfo& info = *run.info;
  if (run.functor.size() != info.functor_size)
    throw Error(ErrorKind::kInternal, "functor of " + std::to_string(run.functor.size()) +
                                          " bytes, kernel expects " +
                                          std::to_string(info.functor_size));
  const Functions functions = functions_for(run);
  jit::LaunchBox box{};
  const Rect& sb = run.superblock;
  if (sb.rank() > 3)
    throw Error(ErrorKind::kInternal, "superblock of rank " + std::to_string(sb.rank()));
  box.rank = sb.rank();
  for (int a = 0; a < 3; ++a) {
    box.lo[a] = a < sb.rank() ? sb.lo()[a] : 0;
    box.hi[a] = a < sb.rank() ? sb.hi()[a] : 1;
  }
  const int64_t volume = sb.volume();
  if (volume == 0) {  // nothing to run; a reduction still yields its identity
    if (run.partial && run.scan == planner::ScanPass::kFinal && run.scan_prefix) {
      api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(run.partial),
                                    reinterpret_cast<CUdeviceptr>(run.scan_prefix),
                                    run.reduction.value_size, compute_),
                 "cuMemcpyAsync");  // a final pass ends where it starts
    } else if (run.partial) {
      const size_t vs = run.reduction.value_size;
      c.blocks.push_back(pinned_.allocate(vs));
      run.reduction.init(c.blocks.back());
      api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(run.partial),
                                    reinterpret_cast<CUdeviceptr>(c.blocks.back()), vs, compute_),
                 "cuMemcpyAsync");
    }
    return;
  }
  if (info.device.kind == kernel::DeviceCodeKind::kPorted) return issue_ported(run, functions, box);
  if (info.device.kind == kernel::DeviceCodeKind::kTeamFunctorBody)
    return issue_team(run, functions, box, c);
  if (run.scan == planner::ScanPass::kFinal) return issue_scan_final(run, functions, box);
  // A scan's partial pass is its general entry, a reduction.
  const bool reduction = run.partial != nullptr;
  const std::string where =
      "while launching '" + run.name + "' over " + sb.to_string() + " on " + id_.to_string();
  // An array reduction's threads keep their values (value_bytes each, a fourth parameter) in
  // the block's shared memory.
  unsigned long long value_bytes = run.reduction.value_size;
  int64_t threads = kBlockThreads;
  uint64_t shared = 0;
  if (info.reduces_array()) {
    const int64_t room = context_.gpu().max_shared_per_block_optin - functions.static_shared;
    threads = array_reduction_threads(value_bytes, room);
    if (threads == 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "an array reduction's value of " + format_size(value_bytes) +
                      " (value_count elements) is more than the " +
                      format_size(static_cast<uint64_t>(std::max<int64_t>(room, 0))) +
                      " of shared memory a block of " + id_.to_string() +
                      " has for it (each GPU thread keeps one value there): reduce fewer "
                      "elements per launch\n  " +
                      where);
    shared = static_cast<uint64_t>(threads) * value_bytes;
  }
  const int64_t blocks = grid_blocks(volume, reduction, context_.gpu().multiprocessors, threads);
  CUdeviceptr partials = 0;
  if (reduction)
    partials = scratch(static_cast<uint64_t>(blocks) * run.reduction.value_size, run.name);
  // Generated code indexes `data` with global indices and never reads the offset (checked
  // handles have no data: their offset holds their CheckedRegion's address).
  if (!run.check)
    kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                               run.functor.data());
  const CUfunction f =
      functions.cover && blocks * threads >= volume ? functions.cover : functions.general;
  // A reduction (not an array reduction) ends on the GPU: its last block joins the partials
  // into the run's partial and sets the count of blocks done back to zero.
  jit::ReductionTarget target{run.partial, nullptr};
  if (reduction && !info.reduces_array()) target.blocks_done = reduction_counter();
  // The driver reads as many parameters as the entry takes: none, value_bytes or the target.
  void* params[] = {run.functor.data(), &box, &partials,
                    info.reduces_array() ? static_cast<void*>(&value_bytes) : &target};
  api_.check(
      api_.cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, static_cast<unsigned>(threads), 1,
                          1, static_cast<unsigned>(shared), compute_, params, nullptr),
      "cuLaunchKernel", where);
  if (reduction && info.reduces_array()) finish_reduction(run, c, partials, blocks);
}

unsigned* CudaDevice::reduction_counter() {
  if (reduction_counter_ == 0) {
    api_.check(api_.cuMemAlloc(&reduction_counter_, sizeof(unsigned)), "cuMemAlloc",
               "while allocating the reduction counter of " + id_.to_string());
    api_.check(api_.cuMemsetD8Async(reduction_counter_, 0, sizeof(unsigned), compute_),
               "cuMemsetD8Async");
  }
  return reinterpret_cast<unsigned*>(reduction_counter_);
}

CUdeviceptr CudaDevice::scratch(uint64_t bytes, const std::string& kernel_name) {
  if (bytes > scratch_bytes_) {
    // Earlier launches may still use the old scratch.
    api_.check(api_.cuStreamSynchronize(compute_), "cuStreamSynchronize");
    if (scratch_ != 0) api_.check(api_.cuMemFree(scratch_), "cuMemFree");
    scratch_ = 0;
    scratch_bytes_ = 0;
    api_.check(api_.cuMemAlloc(&scratch_, bytes), "cuMemAlloc",
               "while allocating " + format_size(bytes) + " of scratch for '" + kernel_name + "'");
    scratch_bytes_ = bytes;
  }
  return scratch_;
}

void CudaDevice::finish_reduction(KernelRun& run, Completion& c, CUdeviceptr partials,
                                  int64_t blocks) {
  // An array reduction's per-block partials to the host, joined there with the kernel's
  // reducer, the value back to the device: in stream order behind the kernel.
  const size_t vs = run.reduction.value_size;
  c.reduction = run.reduction;
  c.count = blocks;
  c.partials = pinned_.allocate(static_cast<uint64_t>(blocks) * vs);
  c.blocks.push_back(c.partials);
  c.value = pinned_.allocate(vs);
  c.blocks.push_back(c.value);
  api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(c.partials), partials,
                                static_cast<uint64_t>(blocks) * vs, compute_),
             "cuMemcpyAsync", "while copying the partials of '" + run.name + "'");
  auto join = [](void* p) {
    auto* j = static_cast<Completion*>(p);
    try {
      const size_t size = j->reduction.value_size;
      j->reduction.init(j->value);
      for (int64_t b = 0; b < j->count; ++b)
        j->reduction.join(j->value, static_cast<const char*>(j->partials) + b * size);
    } catch (...) {
      j->error = std::current_exception();
    }
  };
  api_.check(api_.cuLaunchHostFunc(compute_, join, &c), "cuLaunchHostFunc");
  api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(run.partial),
                                reinterpret_cast<CUdeviceptr>(c.value), vs, compute_),
             "cuMemcpyAsync", "while copying the value of '" + run.name + "'");
}

// A scan's final pass: tiles of scan_rounds() indices per thread, taken in order by the
// blocks that run (a tile's look-back only waits for tiles taken before it, whose blocks run
// on). The scratch holds the tile counter and the tiles' records (zeroed before the kernel). The
// run's partial, where there is one, receives the superblock's inclusive end (the scan's total, for
// the last superblock).
void CudaDevice::issue_scan_final(KernelRun& run, const Functions& functions,
                                  const jit::LaunchBox& box) {
  const kernel::KernelInfo& info = *run.info;
  const std::string where = "while launching the final pass of scan '" + run.name + "' over " +
                            run.superblock.to_string() + " on " + id_.to_string();
  if (!functions.scan_final)
    throw Error(ErrorKind::kInternal, "no final-pass entry point\n  " + where);
  const int64_t tile = kBlockThreads * scan_rounds(run.reduction.value_size);
  const int64_t tiles = (run.superblock.volume() + tile - 1) / tile;
  if (tiles >= int64_t{1} << 32)
    throw Error(ErrorKind::kInvalidArgument,
                "a superblock of " + std::to_string(run.superblock.volume()) +
                    " indices is more than a scan's 2^32 tiles of " + std::to_string(tile) +
                    " (use more superblocks)\n  " + where);
  // More blocks than fit at once: tiles go to blocks in the order they start, so a block that
  // is not resident yet holds no one up, and a multiprocessor whose block waits in its
  // look-back has another to run (16 a multiprocessor: 0.87-0.93 of the copy kernel's
  // bandwidth on an H100; 8: 0.77, docs/results.md).
  const int64_t blocks =
      std::min<int64_t>(tiles, int64_t{16} * std::max(1, context_.gpu().multiprocessors));
  const uint64_t counter = aligned(sizeof(unsigned));
  const uint64_t records =
      aligned(jit::scan_record_size(run.reduction.value_size) * static_cast<uint64_t>(tiles));
  const CUdeviceptr base = scratch(counter + records, run.name);
  jit::ScanState state{};
  state.next_tile = reinterpret_cast<unsigned*>(base);
  state.records = reinterpret_cast<void*>(base + counter);
  state.prefix = run.scan_prefix;
  state.tile_size = tile;
  api_.check(api_.cuMemsetD8Async(base, 0, counter + records, compute_), "cuMemsetD8Async", where);
  if (!run.check)
    kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                               run.functor.data());
  CUdeviceptr partials = reinterpret_cast<CUdeviceptr>(run.partial);
  void* params[] = {run.functor.data(), const_cast<jit::LaunchBox*>(&box), &partials, &state};
  api_.check(api_.cuLaunchKernel(functions.scan_final, static_cast<unsigned>(blocks), 1, 1,
                                 kBlockThreads, 1, 1, 0, compute_, params, nullptr),
             "cuLaunchKernel", where);
}

// A team kernel: one block per team (vector_length x team_size threads), as many blocks as
// there are teams, or fewer that step over them where the partials of a reduction or the
// level-1 scratch would be too many. The device buffer holds the status record and the
// count of blocks done, the partials and each block's level-1 scratch. A reduction ends on
// the GPU: the last block joins the partials into the run's partial.
void CudaDevice::issue_team(KernelRun& run, const Functions& functions, const jit::LaunchBox& box,
                            Completion& c) {
  const kernel::KernelInfo& info = *run.info;
  jit::TeamLaunch shape{};
  std::memcpy(&shape, run.functor.data() + info.device.launch_offset, sizeof(shape));
  const std::string where = "while launching '" + run.name + "' (teams of " +
                            std::to_string(shape.team_size) + " x " +
                            std::to_string(shape.vector_length) + " threads) over " +
                            run.superblock.to_string() + " on " + id_.to_string();
  const int64_t threads = int64_t{shape.team_size} * shape.vector_length;
  if (threads > functions.max_threads)
    throw Error(ErrorKind::kInvalidArgument,
                "a team of " + std::to_string(threads) + " threads is more than the " +
                    std::to_string(functions.max_threads) + " kernel '" + info.name +
                    "' can run per block as compiled (its registers)\n  " + where);
  const uint64_t level0 = shape.team_scratch[0] + shape.thread_scratch[0] * shape.team_size;
  const uint64_t level1 = shape.team_scratch[1] + shape.thread_scratch[1] * shape.team_size;
  const int64_t shared = static_cast<int64_t>(level0) + functions.static_shared;
  if (shared > context_.gpu().max_shared_per_block_optin)
    throw Error(ErrorKind::kInvalidArgument,
                std::to_string(level0) + " bytes of level-0 scratch and " +
                    std::to_string(functions.static_shared) +
                    " of the kernel's own shared memory are more than the " +
                    std::to_string(context_.gpu().max_shared_per_block_optin) +
                    " a block may have on " + id_.to_string() + "\n  " + where);
  const int64_t teams = (box.hi[0] - box.lo[0]) / shape.team_size;
  const bool reduction = run.partial != nullptr;
  const int64_t sms = std::max(1, context_.gpu().multiprocessors);
  int64_t blocks = std::min<int64_t>(teams, reduction ? sms * 32 : int64_t{1} << 30);
  const uint64_t level1_slice = aligned(level1);
  constexpr uint64_t kLevel1Budget = uint64_t{1} << 30;  // bytes of level-1 scratch at most
  if (level1_slice > 0)
    blocks = std::min<int64_t>(blocks, std::max<uint64_t>(1, kLevel1Budget / level1_slice));
  blocks = std::max<int64_t>(blocks, 1);
  const uint64_t vs = reduction ? run.reduction.value_size : 0;
  const uint64_t partial_bytes = aligned(static_cast<uint64_t>(blocks) * vs);
  const CUdeviceptr base =
      scratch(kAlign + partial_bytes + static_cast<uint64_t>(blocks) * level1_slice, run.name);
  CUdeviceptr partials = base + kAlign;
  jit::TeamResources resources{};
  resources.status = reinterpret_cast<jit::TeamStatus*>(base);
  resources.level1 = reinterpret_cast<unsigned char*>(base + kAlign + partial_bytes);
  resources.level1_bytes = level1_slice;
  // The status record, then the count of blocks done: zero before the kernel.
  resources.blocks_done = reinterpret_cast<unsigned*>(base + sizeof(jit::TeamStatus));
  resources.result = run.partial;
  api_.check(api_.cuMemsetD8Async(base, 0, sizeof(jit::TeamStatus) + sizeof(unsigned), compute_),
             "cuMemsetD8Async", where);
  if (!run.check)
    kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                               run.functor.data());
  void* params[] = {run.functor.data(), const_cast<jit::LaunchBox*>(&box), &partials, &resources};
  api_.check(api_.cuLaunchKernel(functions.general, static_cast<unsigned>(blocks), 1, 1,
                                 static_cast<unsigned>(shape.vector_length),
                                 static_cast<unsigned>(shape.team_size), 1,
                                 static_cast<unsigned>(level0), compute_, params, nullptr),
             "cuLaunchKernel", where);
  auto* status = static_cast<jit::TeamStatus*>(pinned_.allocate(sizeof(jit::TeamStatus)));
  c.blocks.push_back(status);
  c.team_status = status;
  api_.check(api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(status), base,
                                sizeof(jit::TeamStatus), compute_),
             "cuMemcpyAsync", "while copying the status of '" + run.name + "'");
}

// A ported kernel runs as written: one CUDA block per block of the superblock, of the
// launch's block shape and dynamic shared memory (the entry point adds the superblock's
// first block to blockIdx).
void CudaDevice::issue_ported(KernelRun& run, const Functions& functions,
                              const jit::LaunchBox& box) {
  const kernel::KernelInfo& info = *run.info;
  jit::PortedLaunch shape{};
  std::memcpy(&shape, run.functor.data() + info.device.launch_offset, sizeof(shape));
  const std::array<uint32_t, 3> grid = kernel::superblock_grid(shape, run.superblock);
  const std::string where = "while launching '" + run.name + "' (" + kernel::to_string(shape) +
                            ") over " + run.superblock.to_string() + " on " + id_.to_string();
  const int64_t threads = int64_t{shape.block[0]} * shape.block[1] * shape.block[2];
  if (threads > functions.max_threads)
    throw Error(ErrorKind::kInvalidArgument,
                "a block of " + std::to_string(threads) + " threads is more than the " +
                    std::to_string(functions.max_threads) + " kernel '" + info.name +
                    "' can run per block as compiled (its registers or __launch_bounds__)\n  " +
                    where);
  const int64_t shared = int64_t{shape.shared_bytes} + functions.static_shared;
  if (shared > context_.gpu().max_shared_per_block_optin)
    throw Error(ErrorKind::kInvalidArgument,
                std::to_string(shape.shared_bytes) + " bytes of dynamic shared memory and " +
                    std::to_string(functions.static_shared) + " of static are more than the " +
                    std::to_string(context_.gpu().max_shared_per_block_optin) +
                    " a block may have on " + id_.to_string() + "\n  " + where);
  if (!run.check)
    kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                               run.functor.data());
  CUdeviceptr partials = 0;
  std::array<uint32_t, 3> first_block = kernel::superblock_first_block(shape, run.superblock);
  void* params[] = {run.functor.data(), const_cast<jit::LaunchBox*>(&box), &partials,
                    first_block.data()};
  api_.check(api_.cuLaunchKernel(functions.general, grid[0], grid[1], grid[2], shape.block[0],
                                 shape.block[1], shape.block[2], shape.shared_bytes, compute_,
                                 params, nullptr),
             "cuLaunchKernel", where);
}

// Checked mode: the records go to device memory, the handles point there; the read-only
// regions are copied out before and after the run, the overwritten ones marked before it and
// copied out after, and the run is waited for here (checked mode is for finding mistakes, not
// for speed: this device runs one kernel at a time).
void CudaDevice::run_checked(KernelRun& run, Completion& c) {
  worker::AccessCheck& check = *run.check;
  const size_t n = check.size();
  const uint64_t record_bytes = static_cast<uint64_t>(n) * sizeof(CheckedRegion);
  CUdeviceptr records = 0;
  api_.check(api_.cuMemAlloc(&records, std::max<uint64_t>(record_bytes, 1)), "cuMemAlloc",
             "while allocating the checked-mode records of '" + run.name + "'");
  struct FreeRecords {
    const DriverApi& api;
    CUstream stream;
    CUdeviceptr records;
    ~FreeRecords() {
      api.cuStreamSynchronize(stream);  // nothing may still use them
      api.cuMemFree(records);
    }
  } free_records{api_, compute_, records};

  auto* staged = static_cast<CheckedRegion*>(pinned_.allocate(std::max<uint64_t>(record_bytes, 1)));
  c.blocks.push_back(staged);
  std::vector<const void*> before(n, nullptr), after(n, nullptr);
  auto copy_out = [&](const worker::AccessCheck::Array& a) {
    void* block = pinned_.allocate(static_cast<uint64_t>(a.region.volume()) * a.chunk.elem_size);
    c.blocks.push_back(block);
    enqueue_copy(
        compute_, {block, a.region, a.chunk.elem_size, worker::MemorySpace::host()},
        {a.chunk.data, a.chunk.box, a.chunk.elem_size, worker::MemorySpace::of_device(id_)},
        a.region);
    return block;
  };
  // Marks an overwritten region with `byte` in every byte, before a run.
  auto mark = [&](const worker::AccessCheck::Array& a, unsigned char byte) {
    const uint64_t bytes = static_cast<uint64_t>(a.region.volume()) * a.chunk.elem_size;
    void* marker = pinned_.allocate(bytes);
    c.blocks.push_back(marker);
    std::memset(marker, byte, bytes);
    enqueue_copy(
        compute_,
        {a.chunk.data, a.chunk.box, a.chunk.elem_size, worker::MemorySpace::of_device(id_)},
        {marker, a.region, a.chunk.elem_size, worker::MemorySpace::host()}, a.region);
  };
  bool overwrites = false;
  for (size_t i = 0; i < n; ++i) overwrites = overwrites || check.array(i).overwritten();
  // Where a second run may be needed, what the regions the run writes held before it.
  std::vector<void*> written_before(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    worker::AccessCheck::Array& a = check.array(i);
    const auto at = static_cast<int64_t>(records + i * sizeof(CheckedRegion));
    std::memcpy(run.functor.data() + a.handle_offset + offsetof(RawArrayHandle, offset), &at,
                sizeof at);
    if (a.read_only()) before[i] = copy_out(a);
    if (overwrites && !a.read_only() && !a.overwritten() && !a.region.empty())
      written_before[i] = copy_out(a);
    if (a.overwritten()) mark(a, worker::AccessCheck::kUnwrittenByte);
  }
  // One run with its records; `after` gets what the checked regions hold after it.
  auto run_once = [&] {
    for (size_t i = 0; i < n; ++i) staged[i] = check.array(i).view;
    api_.check(
        api_.cuMemcpyAsync(records, reinterpret_cast<CUdeviceptr>(staged), record_bytes, compute_),
        "cuMemcpyAsync", "while copying the checked-mode records of '" + run.name + "'");
    issue_launch(run, c);
    api_.check(
        api_.cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(staged), records, record_bytes, compute_),
        "cuMemcpyAsync", "while copying back the checked-mode records of '" + run.name + "'");
    for (size_t i = 0; i < n; ++i)
      if (before[i] || check.array(i).overwritten()) after[i] = copy_out(check.array(i));
    api_.check(api_.cuStreamSynchronize(compute_), "cuStreamSynchronize",
               "while running '" + run.name + "' in checked mode on " + id_.to_string());
    for (size_t i = 0; i < n; ++i) {
      worker::AccessCheck::Array& a = check.array(i);
      a.view.outside_count = staged[i].outside_count;
      std::copy(staged[i].first_outside, staged[i].first_outside + 3, a.view.first_outside);
    }
  };
  run_once();
  std::optional<planner::AccessViolation> v = check.after(before, after);
  if (v && v->kind == planner::AccessViolation::Kind::kNotWritten) {
    // The element may hold what the kernel wrote (165 into a uint8): a second run over the
    // same input, with another marker, tells (AccessCheck::before_second_run on the host).
    std::vector<const void*> first(n, nullptr);
    for (size_t i = 0; i < n; ++i) {
      const worker::AccessCheck::Array& a = check.array(i);
      if (a.overwritten()) {
        first[i] = after[i];
        mark(a, worker::AccessCheck::kSecondUnwrittenByte);
      } else if (written_before[i]) {
        enqueue_copy(
            compute_,
            {a.chunk.data, a.chunk.box, a.chunk.elem_size, worker::MemorySpace::of_device(id_)},
            {written_before[i], a.region, a.chunk.elem_size, worker::MemorySpace::host()},
            a.region);
      }
    }
    run_once();
    v = check.after(before, after);
    if (!v || v->kind == planner::AccessViolation::Kind::kNotWritten)
      v = check.unwritten_in_both_runs(first, after);
  }
  if (v) throw planner::AccessViolationError(std::move(*v));
}

// The compute thread queues the copies of the job's device buffers to pinned blocks on the
// compute stream, behind the launches issued before; the compute waiter runs the job once the
// stream got there, after it reported those launches (and so after their failure flags are set).
void CudaDevice::run_on_host_behind_launches(std::vector<HostAccess> accesses, HostJob job,
                                             worker::FailureFlags skip_if_failed, Done done) {
  compute_thread_->execute(
      [this, accesses = std::move(accesses), job = std::move(job),
       skip_if_failed = std::move(skip_if_failed), done = std::move(done)]() mutable {
        std::unique_ptr<Completion> c = started(std::move(done));
        try {
          context_.make_current();
          if (worker::any_failed(skip_if_failed)) throw worker::SkippedBehindFailure();
          for (const HostAccess& a : accesses)
            if (a.write && a.buffer.space.is_device())
              throw Error(ErrorKind::kInternal, "a host job behind the launches of " +
                                                    id_.to_string() + " writes device memory");
          std::vector<worker::BoxBuffer> views;
          host_views(accesses, compute_, c->blocks, views);
          c->after = [job = std::move(job), views = std::move(views),
                      skip_if_failed = std::move(skip_if_failed)] {
            if (worker::any_failed(skip_if_failed)) throw worker::SkippedBehindFailure();
            job(views);
          };
          finish_with_event(compute_, c);
        } catch (...) {
          if (!c) return;  // the waiter owns it: it will report
          report_behind_launches(c, std::current_exception());
        }
      },
      nullptr);
}

// A failure on the compute thread, reported by the compute waiter after the launches issued
// before it: an operation's end never overtakes theirs (the scheduler issues work behind them).
void CudaDevice::report_behind_launches(std::unique_ptr<Completion>& c, std::exception_ptr error) {
  // Blocks may be in use by transfers already issued: wait before releasing them.
  api_.cuStreamSynchronize(compute_);
  for (void* b : c->blocks) pinned_.release(b);
  Completion* raw = c.release();
  compute_waiter_->execute(
      [this, raw, error] {
        std::unique_ptr<Completion> failed(raw);
        failed->done(error, {failed->span.start, now()});
      },
      nullptr);
}

void CudaDevice::launch(KernelRun run, Done done) {
  compute_thread_->execute(
      [this, run = std::move(run), done = std::move(done)]() mutable {
        std::unique_ptr<Completion> c = started(std::move(done));
        try {
          context_.make_current();
          if (run.runs_behind_a_failure()) throw worker::SkippedBehindFailure();
          if (run.check)
            run_checked(run, *c);
          else
            issue_launch(run, *c);
          finish_with_event(compute_, c);
        } catch (...) {
          if (!c) return;  // the waiter owns it: it will report
          report_behind_launches(c, worker::kernel_failure());
        }
      },
      nullptr);
}

}  // namespace lightning::cuda
