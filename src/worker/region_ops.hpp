// Data movement over row-major buffers of boxes: what Copy, Fill, Fold, HostWrite/HostRead and
// Send/Recv tasks do to bytes on the host, whatever memory the bytes came from.
#pragma once

#include <cstddef>
#include <optional>

#include "core/data_type.hpp"
#include "core/rect.hpp"
#include "core/reduction.hpp"
#include "worker/byte_range.hpp"

namespace lightning::worker {

/// Writable bytes holding the elements of `box` row-major (last axis fastest): the element at
/// point p is at byte offset elem_size * row_major_index(p - box.lo(), box.extent()). A rank-0
/// box holds one element. `data` may be null only when the box is empty.
struct BoxBuffer {
  void* data = nullptr;
  Rect box;
  size_t elem_size = 0;
};

/// The read-only variant; every BoxBuffer converts to it.
struct ConstBoxBuffer {
  const void* data = nullptr;
  Rect box;
  size_t elem_size = 0;

  ConstBoxBuffer() = default;
  ConstBoxBuffer(const void* d, const Rect& b, size_t e) : data(d), box(b), elem_size(e) {}
  ConstBoxBuffer(const BoxBuffer& b)  // NOLINT(google-explicit-constructor): like T* -> const T*
      : data(b.data), box(b.box), elem_size(b.elem_size) {}
};

// Common contract of the functions below. `region` is in the same (global) coordinates as the
// boxes and must lie inside every box it is applied to; all ranks and element sizes must agree
// and element sizes must be non-zero. Violations throw Error(kInternal) naming the operation,
// the region and both boxes; nothing is written then. An empty region does nothing (after the
// checks). Source and destination bytes must not overlap.
//
// Runs of elements contiguous in every buffer involved are handled as one block: a run is the
// region's extent along the last axis, extended over the next axes outward as long as the
// region spans the whole box along every axis inside (so a region of full rows of both
// buffers moves with a single memcpy).

/// dst[p] = src[p] for every p in `region`.
void copy_region(BoxBuffer dst, ConstBoxBuffer src, const Rect& region);

/// dst[p] = *value for every p in `region`; `value` points at one element (dst.elem_size
/// bytes) outside dst.
void fill_region(BoxBuffer dst, const Rect& region, const void* value);

/// dst[p] = dst[p] op src[p] for every p in `region`, with `reduction` (Reduction::join_n for
/// a built-in one, Reduction::join value by value for a custom one); both element sizes must be
/// its value size. See core/reduction.hpp for the operators' semantics.
void fold_region(BoxBuffer dst, ConstBoxBuffer src, const Rect& region, const Reduction& reduction);

/// Writes the elements of `region` of src to `out`, densely, row-major over `region`
/// (region.volume() * src.elem_size bytes): the payload of a Send.
void pack_region(void* out, ConstBoxBuffer src, const Rect& region);

/// The bytes of `box`'s row-major buffer (elements of `elem_size` bytes) that hold `region`,
/// when they are one contiguous run (see contiguous_block); empty otherwise, and for an empty
/// region. `region` must lie inside `box`.
ByteRange contiguous_bytes(const Rect& box, size_t elem_size, const Rect& region);

/// Where the packed bytes of `region` already lie in `buffer`: the address of the region's
/// first element when the region is one contiguous block of the box (full rows, planes...,
/// so that pack_region would copy it as it is), else null. Null for an empty region too.
/// Throws Error(kInternal) when the region is not inside the box.
void* contiguous_block(BoxBuffer buffer, const Rect& region);

/// The byte offset of the element at `p` (inside `box`) in `box`'s row-major buffer.
uint64_t element_offset(const Rect& box, size_t elem_size, const Point& p);

/// The address of the element at `p` (inside buffer.box) of `buffer`.
void* element_address(BoxBuffer buffer, const Point& p);

/// The first point of `region`, in row-major order, where `a` and `b` hold different bytes;
/// none when they agree everywhere there.
std::optional<Point> first_difference(ConstBoxBuffer a, ConstBoxBuffer b, const Rect& region);

/// The first point of `region`, in row-major order, whose element in `a` has every byte equal
/// to `byte`; none when there is no such element.
std::optional<Point> first_element_of_bytes(ConstBoxBuffer a, const Rect& region,
                                            unsigned char byte);

/// The inverse of pack_region: reads region.volume() * dst.elem_size bytes from `in` into the
/// elements of `region` of dst: the payload of a Recv.
void unpack_region(BoxBuffer dst, const void* in, const Rect& region);

}  // namespace lightning::worker
