#include "kokkos_tool_hooks.hpp"

#include <vector>

namespace lightning::detail {

namespace {

namespace tools = Kokkos::Tools::Experimental;

// The installed instance: the C interface's callbacks take no user pointer.
KokkosToolHooks* installed = nullptr;

// The labels of the dispatches in progress on this thread, innermost last (a dispatch inside a
// dispatch is rare but legal: a kernel on another space launched from a host functor).
std::vector<std::string>& dispatch_labels() {
  thread_local std::vector<std::string> labels;
  return labels;
}

}  // namespace

KokkosToolHooks::KokkosToolHooks() : previous_(tools::get_callbacks()) {
  installed = this;
  tools::set_begin_parallel_for_callback(&begin_parallel_for);
  tools::set_end_parallel_for_callback(&end_parallel_for);
  tools::set_begin_parallel_reduce_callback(&begin_parallel_reduce);
  tools::set_end_parallel_reduce_callback(&end_parallel_reduce);
  tools::set_begin_parallel_scan_callback(&begin_parallel_scan);
  tools::set_end_parallel_scan_callback(&end_parallel_scan);
  tools::set_allocate_data_callback(&allocate);
  tools::set_deallocate_data_callback(&deallocate);
}

KokkosToolHooks::~KokkosToolHooks() {
  tools::set_begin_parallel_for_callback(previous_.begin_parallel_for);
  tools::set_end_parallel_for_callback(previous_.end_parallel_for);
  tools::set_begin_parallel_reduce_callback(previous_.begin_parallel_reduce);
  tools::set_end_parallel_reduce_callback(previous_.end_parallel_reduce);
  tools::set_begin_parallel_scan_callback(previous_.begin_parallel_scan);
  tools::set_end_parallel_scan_callback(previous_.end_parallel_scan);
  tools::set_allocate_data_callback(previous_.allocate_data);
  tools::set_deallocate_data_callback(previous_.deallocate_data);
  installed = nullptr;
}

std::string KokkosToolHooks::current_label() {
  const auto& labels = dispatch_labels();
  return labels.empty() ? std::string() : labels.back();
}

std::optional<std::string> KokkosToolHooks::allocation_holding(uintptr_t address) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (address < lowest_ || address >= highest_) return std::nullopt;
  auto after = allocations_.upper_bound(address);
  if (after == allocations_.begin()) return std::nullopt;
  const auto& [begin, a] = *std::prev(after);
  if (address >= a.end) return std::nullopt;
  return a.label;
}

void KokkosToolHooks::begin_dispatch(const char* label, uint32_t, uint64_t*) {
  dispatch_labels().emplace_back(label ? label : "");
}

void KokkosToolHooks::end_dispatch() {
  auto& labels = dispatch_labels();
  if (!labels.empty()) labels.pop_back();
}

void KokkosToolHooks::begin_parallel_for(const char* label, uint32_t device, uint64_t* id) {
  if (installed && installed->previous_.begin_parallel_for)
    installed->previous_.begin_parallel_for(label, device, id);
  begin_dispatch(label, device, id);
}

void KokkosToolHooks::begin_parallel_reduce(const char* label, uint32_t device, uint64_t* id) {
  if (installed && installed->previous_.begin_parallel_reduce)
    installed->previous_.begin_parallel_reduce(label, device, id);
  begin_dispatch(label, device, id);
}

void KokkosToolHooks::begin_parallel_scan(const char* label, uint32_t device, uint64_t* id) {
  if (installed && installed->previous_.begin_parallel_scan)
    installed->previous_.begin_parallel_scan(label, device, id);
  begin_dispatch(label, device, id);
}

void KokkosToolHooks::end_parallel_for(uint64_t id) {
  end_dispatch();
  if (installed && installed->previous_.end_parallel_for) installed->previous_.end_parallel_for(id);
}

void KokkosToolHooks::end_parallel_reduce(uint64_t id) {
  end_dispatch();
  if (installed && installed->previous_.end_parallel_reduce)
    installed->previous_.end_parallel_reduce(id);
}

void KokkosToolHooks::end_parallel_scan(uint64_t id) {
  end_dispatch();
  if (installed && installed->previous_.end_parallel_scan)
    installed->previous_.end_parallel_scan(id);
}

void KokkosToolHooks::allocate(Kokkos::Tools::SpaceHandle space, const char* label, const void* ptr,
                               uint64_t size) {
  if (!installed) return;
  if (installed->previous_.allocate_data)
    installed->previous_.allocate_data(space, label, ptr, size);
  const auto begin = reinterpret_cast<uintptr_t>(ptr);
  if (!ptr || size == 0) return;
  std::lock_guard<std::mutex> lock(installed->mutex_);
  installed->allocations_[begin] = Allocation{begin + size, label ? label : ""};
  installed->lowest_ = std::min(installed->lowest_, begin);
  installed->highest_ = std::max(installed->highest_, begin + size);
}

void KokkosToolHooks::deallocate(Kokkos::Tools::SpaceHandle space, const char* label,
                                 const void* ptr, uint64_t size) {
  if (!installed) return;
  if (installed->previous_.deallocate_data)
    installed->previous_.deallocate_data(space, label, ptr, size);
  std::lock_guard<std::mutex> lock(installed->mutex_);
  installed->allocations_.erase(reinterpret_cast<uintptr_t>(ptr));
}

}  // namespace lightning::detail
