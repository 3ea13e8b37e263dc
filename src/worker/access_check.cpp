#include "worker/access_check.hpp"

#include <cstring>
#include <string>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::worker {

namespace {

AccessCheck::Array* record_of(const void* handle) {
  int64_t offset = 0;
  std::memcpy(&offset, static_cast<const unsigned char*>(handle) + offsetof(RawArrayHandle, offset),
              sizeof offset);
  const auto* view = reinterpret_cast<const CheckedRegion*>(static_cast<uintptr_t>(offset));
  return view ? static_cast<AccessCheck::Array*>(view->record) : nullptr;
}

}  // namespace

void AccessCheck::add(uint8_t* functor, const kernel::ArraySlot& slot, BoxBuffer chunk,
                      const Rect& region, planner::ChunkAccessMode mode) {
  Array& a = arrays_.emplace_back();
  if (chunk.elem_size > sizeof a.scratch)
    throw Error(ErrorKind::kInternal, "checked access: " + std::to_string(chunk.elem_size) +
                                          "-byte elements are larger than the scratch element");
  if (!chunk.box.contains(region))
    throw Error(ErrorKind::kInternal, "checked access: region " + region.to_string() +
                                          " is not inside the chunk " + chunk.box.to_string());
  a.chunk = chunk;
  a.region = region;
  a.mode = mode;
  a.param = slot.param;
  CheckedRegion& v = a.view;
  v.data = static_cast<unsigned char*>(chunk.data);
  v.element_size = chunk.elem_size;
  v.rank = region.rank();
  int64_t stride = 1;
  for (int axis = v.rank - 1; axis >= 0; --axis) {
    v.lo[axis] = region.lo()[axis];
    v.hi[axis] = region.hi()[axis];
    v.chunk_lo[axis] = chunk.box.lo()[axis];
    v.stride[axis] = stride;
    stride *= chunk.box.extent()[axis];
  }
  v.record = &a;
  // Null data (so that host code takes its checked path) and the region's address as offset.
  void* data = nullptr;
  const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&a.view));
  std::memcpy(functor + slot.byte_offset + offsetof(RawArrayHandle, data), &data, sizeof data);
  std::memcpy(functor + slot.byte_offset + offsetof(RawArrayHandle, offset), &offset,
              sizeof offset);
}

void AccessCheck::before() {
  snapshots_.assign(arrays_.size(), {});
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const Array& a = arrays_[i];
    if (a.mode != planner::ChunkAccessMode::kRead || a.region.empty()) continue;
    snapshots_[i].resize(static_cast<size_t>(a.region.volume()) * a.chunk.elem_size);
    copy_region({snapshots_[i].data(), a.region, a.chunk.elem_size}, a.chunk, a.region);
  }
}

std::optional<planner::AccessViolation> AccessCheck::after() const {
  for (const Array& a : arrays_)
    if (a.outside) return planner::AccessViolation{a.param, *a.outside, a.region, a.mode, false};
  for (size_t i = 0; i < arrays_.size() && i < snapshots_.size(); ++i) {
    const Array& a = arrays_[i];
    if (snapshots_[i].empty()) continue;
    const ConstBoxBuffer before{snapshots_[i].data(), a.region, a.chunk.elem_size};
    if (std::optional<Point> p = first_difference(a.chunk, before, a.region))
      return planner::AccessViolation{a.param, *p, a.region, a.mode, true};
  }
  return std::nullopt;
}

void* checked_element(const void* handle, const Point& index) noexcept {
  AccessCheck::Array* a = record_of(handle);
  // Coordinates beyond the rank are 0, as CheckedRegion::element takes them.
  if (void* e = a->view.element(index[0], index[1], index[2])) return e;
  if (!a->outside) a->outside = index;
  return a->scratch;
}

bool is_checked_handle(const void* handle) noexcept {
  void* data = nullptr;
  std::memcpy(&data, static_cast<const unsigned char*>(handle) + offsetof(RawArrayHandle, data),
              sizeof data);
  return data == nullptr && record_of(handle) != nullptr;
}

}  // namespace lightning::worker
