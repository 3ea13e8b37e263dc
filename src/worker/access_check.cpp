#include "worker/access_check.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::worker {

namespace {

int64_t offset_field(const void* handle) {
  int64_t offset = 0;
  std::memcpy(&offset, static_cast<const unsigned char*>(handle) + offsetof(RawArrayHandle, offset),
              sizeof offset);
  return offset;
}

// Points `v` at the elements of `box` stored row-major from `data`.
void place(CheckedRegion& v, void* data, const Rect& box) {
  v.data = static_cast<unsigned char*>(data);
  int64_t stride = 1;
  for (int axis = box.rank() - 1; axis >= 0; --axis) {
    v.chunk_lo[axis] = box.lo()[axis];
    v.stride[axis] = stride;
    stride *= box.extent()[axis];
  }
}

}  // namespace

void AccessCheck::add(uint8_t* functor, const kernel::ArraySlot& slot, BoxBuffer chunk,
                      const Rect& region, planner::ChunkAccessMode mode) {
  Array& a = arrays_.emplace_back();
  if (chunk.elem_size > sizeof a.view.scratch)
    throw Error(ErrorKind::kInternal, "checked access: " + std::to_string(chunk.elem_size) +
                                          "-byte elements are larger than the scratch element");
  if (!chunk.box.contains(region))
    throw Error(ErrorKind::kInternal, "checked access: region " + region.to_string() +
                                          " is not inside the chunk " + chunk.box.to_string());
  a.chunk = chunk;
  a.region = region;
  a.mode = mode;
  a.param = slot.param;
  a.handle_offset = slot.byte_offset;
  CheckedRegion& v = a.view;
  v.element_size = chunk.elem_size;
  v.rank = region.rank();
  for (int axis = 0; axis < region.rank(); ++axis) {
    v.lo[axis] = region.lo()[axis];
    v.hi[axis] = region.hi()[axis];
  }
  place(v, chunk.data, chunk.box);
  // Null data (so that host code takes its checked path) and the region's address as offset.
  void* data = nullptr;
  const auto offset = static_cast<int64_t>(reinterpret_cast<uintptr_t>(&a.view));
  std::memcpy(functor + slot.byte_offset + offsetof(RawArrayHandle, data), &data, sizeof data);
  std::memcpy(functor + slot.byte_offset + offsetof(RawArrayHandle, offset), &offset,
              sizeof offset);
}

namespace {

/// `region` of `chunk`, packed row-major.
std::vector<unsigned char> packed(ConstBoxBuffer chunk, const Rect& region) {
  std::vector<unsigned char> bytes(static_cast<size_t>(region.volume()) * chunk.elem_size);
  pack_region(bytes.data(), chunk, region);
  return bytes;
}

void mark(BoxBuffer chunk, const Rect& region, unsigned char byte) {
  const std::vector<unsigned char> marker(chunk.elem_size, byte);
  fill_region(chunk, region, marker.data());
}

}  // namespace

void AccessCheck::before() {
  snapshots_.assign(arrays_.size(), {});
  written_before_.assign(arrays_.size(), {});
  first_run_.assign(arrays_.size(), {});
  const bool overwrites =
      std::any_of(arrays_.begin(), arrays_.end(), [](const Array& a) { return a.overwritten(); });
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const Array& a = arrays_[i];
    if (a.overwritten()) mark(a.chunk, a.region, kUnwrittenByte);
    // A second run (see before_second_run) must find what the first one did.
    if (overwrites && !a.read_only() && !a.overwritten() && !a.region.empty())
      written_before_[i] = packed(a.chunk, a.region);
    if (!a.read_only()) continue;
    snapshots_[i].resize(static_cast<size_t>(a.region.volume()) * a.chunk.elem_size);
    copy_region({snapshots_[i].data(), a.region, a.chunk.elem_size}, a.chunk, a.region);
    // The kernel reads the copy: a write there changes it, not the chunk, which other
    // devices may be copying meanwhile (a read-only chunk is not locked against readers).
    place(arrays_[i].view, snapshots_[i].data(), a.region);
  }
}

std::optional<planner::AccessViolation> AccessCheck::after() const {
  // A read-only region's copy (what the kernel saw, and changed if it wrote there) against
  // the chunk, which the run left alone: the same comparison either way round.
  std::vector<const void*> before;
  std::vector<ConstBoxBuffer> now;
  for (size_t i = 0; i < arrays_.size(); ++i) {
    const bool taken = i < snapshots_.size() && !snapshots_[i].empty();
    before.push_back(taken ? snapshots_[i].data() : nullptr);
    now.push_back(arrays_[i].chunk);
  }
  return first_violation(before, now);
}

void AccessCheck::before_second_run() {
  for (size_t i = 0; i < arrays_.size(); ++i) {
    Array& a = arrays_[i];
    a.view.outside_count = 0;
    if (a.overwritten()) {
      first_run_[i] = packed(a.chunk, a.region);
      mark(a.chunk, a.region, kSecondUnwrittenByte);
    } else if (i < written_before_.size() && !written_before_[i].empty()) {
      unpack_region(a.chunk, written_before_[i].data(), a.region);
    }
  }
}

std::optional<planner::AccessViolation> AccessCheck::after_second_run() const {
  if (std::optional<planner::AccessViolation> v = after();
      v && v->kind != planner::AccessViolation::Kind::kNotWritten)
    return v;
  std::vector<std::vector<unsigned char>> second(arrays_.size());
  std::vector<const void*> first_views(arrays_.size(), nullptr),
      second_views(arrays_.size(), nullptr);
  for (size_t i = 0; i < arrays_.size(); ++i) {
    if (!arrays_[i].overwritten() || i >= first_run_.size() || first_run_[i].empty()) continue;
    second[i] = packed(arrays_[i].chunk, arrays_[i].region);
    first_views[i] = first_run_[i].data();
    second_views[i] = second[i].data();
  }
  return unwritten_in_both_runs(first_views, second_views);
}

std::optional<planner::AccessViolation> AccessCheck::unwritten_in_both_runs(
    const std::vector<const void*>& first, const std::vector<const void*>& second) const {
  for (size_t i = 0; i < arrays_.size() && i < first.size() && i < second.size(); ++i) {
    const Array& a = arrays_[i];
    if (!a.overwritten() || !first[i] || !second[i]) continue;
    // Elements the first run left with its marker keep what the second left; the others
    // are cleared, so that only an element neither run wrote holds the second marker.
    const size_t e = a.chunk.elem_size, bytes = static_cast<size_t>(a.region.volume()) * e;
    const auto* after_first = static_cast<const unsigned char*>(first[i]);
    const auto* after_second = static_cast<const unsigned char*>(second[i]);
    std::vector<unsigned char> neither(after_second, after_second + bytes);
    for (size_t at = 0; at < bytes; at += e)
      if (!std::all_of(after_first + at, after_first + at + e,
                       [](unsigned char b) { return b == kUnwrittenByte; }))
        std::fill(neither.begin() + static_cast<std::ptrdiff_t>(at),
                  neither.begin() + static_cast<std::ptrdiff_t>(at + e), 0);
    if (std::optional<Point> p =
            first_element_of_bytes({neither.data(), a.region, e}, a.region, kSecondUnwrittenByte))
      return planner::AccessViolation{a.param, *p, a.region, a.mode,
                                      planner::AccessViolation::Kind::kNotWritten};
  }
  return std::nullopt;
}

std::optional<planner::AccessViolation> AccessCheck::after(
    const std::vector<const void*>& before, const std::vector<const void*>& now) const {
  std::vector<ConstBoxBuffer> contents;
  for (size_t i = 0; i < arrays_.size(); ++i)
    contents.push_back(
        {i < now.size() ? now[i] : nullptr, arrays_[i].region, arrays_[i].chunk.elem_size});
  return first_violation(before, contents);
}

std::optional<planner::AccessViolation> AccessCheck::first_violation(
    const std::vector<const void*>& before, const std::vector<ConstBoxBuffer>& now) const {
  for (const Array& a : arrays_) {
    if (a.view.outside_count == 0) continue;
    Point index = Point::filled(a.region.rank(), 0);
    for (int axis = 0; axis < a.region.rank(); ++axis) index[axis] = a.view.first_outside[axis];
    return planner::AccessViolation{a.param, index, a.region, a.mode,
                                    planner::AccessViolation::Kind::kOutside};
  }
  for (size_t i = 0; i < arrays_.size() && i < before.size() && i < now.size(); ++i) {
    const Array& a = arrays_[i];
    if (!before[i] || !now[i].data) continue;
    const ConstBoxBuffer snapshot{before[i], a.region, a.chunk.elem_size};
    if (std::optional<Point> p = first_difference(now[i], snapshot, a.region))
      return planner::AccessViolation{a.param, *p, a.region, a.mode,
                                      planner::AccessViolation::Kind::kWroteReadOnly};
  }
  for (size_t i = 0; i < arrays_.size() && i < now.size(); ++i) {
    const Array& a = arrays_[i];
    if (!a.overwritten() || !now[i].data) continue;
    if (std::optional<Point> p = first_element_of_bytes(now[i], a.region, kUnwrittenByte))
      return planner::AccessViolation{a.param, *p, a.region, a.mode,
                                      planner::AccessViolation::Kind::kNotWritten};
  }
  return std::nullopt;
}

void* checked_element(const void* handle, const Point& index) noexcept {
  // Coordinates beyond the rank are 0, as CheckedRegion takes them.
  return checked_region_of(offset_field(handle))->checked(index[0], index[1], index[2]);
}

bool is_checked_handle(const void* handle) noexcept {
  void* data = nullptr;
  std::memcpy(&data, static_cast<const unsigned char*>(handle) + offsetof(RawArrayHandle, data),
              sizeof data);
  return data == nullptr && offset_field(handle) != 0;
}

}  // namespace lightning::worker
