#include "worker/region_ops.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

/// One buffer an operation touches, for checking and for messages.
struct Side {
  const char* role;  ///< "destination", "source", "packed buffer"
  const void* data;
  Rect box;
  size_t elem_size;
};

std::string describe_sides(std::initializer_list<Side> sides) {
  std::string s;
  for (const Side& side : sides) {
    if (!s.empty()) s += ", ";
    s += side.role;
    s += " box ";
    s += side.box.to_string();
    s += " (" + std::to_string(side.elem_size) + "-byte elements)";
  }
  return s;
}

[[noreturn]] void fail(const char* op, const std::string& what, const Rect& region,
                       std::initializer_list<Side> sides) {
  throw Error(ErrorKind::kInternal, std::string(op) + ": " + what + " (region " +
                                        region.to_string() + "; " + describe_sides(sides) + ")");
}

/// Checks the common contract: equal ranks and element sizes, region inside every box, data
/// present where the region is not empty.
void check(const char* op, const Rect& region, std::initializer_list<Side> sides) {
  const Side& first = *sides.begin();
  for (const Side& side : sides) {
    if (side.box.rank() != region.rank())
      fail(op,
           std::string("rank mismatch: the region has rank ") + std::to_string(region.rank()) +
               ", the " + side.role + " box rank " + std::to_string(side.box.rank()),
           region, sides);
    if (side.elem_size == 0)
      fail(op, std::string("zero element size in the ") + side.role, region, sides);
    if (side.elem_size != first.elem_size) fail(op, "element size mismatch", region, sides);
  }
  for (const Side& side : sides) {
    if (!side.box.contains(region))
      fail(op, std::string("region not inside the ") + side.role + " box", region, sides);
    if (!region.empty() && side.data == nullptr)
      fail(op, std::string("null ") + side.role + " data", region, sides);
  }
}

/// Calls f(offsets, run) for every maximal run of `region` that is contiguous in each of the
/// N boxes: offsets[b] is the run's first element's index in box b's row-major order, run its
/// length in elements. The run covers the last axis of the region and extends outward over
/// every axis whose inner axes the region spans entirely in all boxes.
template <size_t N, class F>
void for_each_run(const Rect& region, const std::array<Rect, N>& boxes, F&& f) {
  if (region.empty()) return;
  std::array<int64_t, N> offsets{};
  const int rank = region.rank();
  if (rank == 0) {
    f(offsets, int64_t{1});
    return;
  }
  const Point extent = region.extent();
  std::array<std::array<int64_t, kMaxRank>, N> strides{};
  for (size_t b = 0; b < N; ++b) {
    const Point box_extent = boxes[b].extent();
    int64_t stride = 1;
    for (int a = rank - 1; a >= 0; --a) {
      strides[b][a] = stride;
      stride *= box_extent[a];
    }
  }
  // Axes [inner, rank) form one contiguous run; axes [0, inner) are iterated.
  int inner = rank - 1;
  int64_t run = extent[rank - 1];
  while (inner > 0) {
    bool spans_all = true;
    for (size_t b = 0; b < N; ++b)
      if (boxes[b].extent()[inner] != extent[inner]) spans_all = false;
    if (!spans_all) break;
    --inner;
    run *= extent[inner];
  }
  Point p = region.lo();
  for (;;) {
    for (size_t b = 0; b < N; ++b) {
      int64_t o = 0;
      for (int a = 0; a < rank; ++a) o += (p[a] - boxes[b].lo()[a]) * strides[b][a];
      offsets[b] = o;
    }
    f(static_cast<const std::array<int64_t, N>&>(offsets), run);
    int a = inner - 1;
    while (a >= 0 && ++p[a] == region.hi()[a]) {
      p[a] = region.lo()[a];
      --a;
    }
    if (a < 0) return;
  }
}

/// copy_region with the operation's own name and buffer roles in messages.
void copy_checked(const char* op, const char* dst_role, const char* src_role, BoxBuffer dst,
                  ConstBoxBuffer src, const Rect& region) {
  check(
      op, region,
      {{dst_role, dst.data, dst.box, dst.elem_size}, {src_role, src.data, src.box, src.elem_size}});
  auto* d = static_cast<unsigned char*>(dst.data);
  const auto* s = static_cast<const unsigned char*>(src.data);
  const size_t elem = dst.elem_size;
  for_each_run<2>(region, {dst.box, src.box}, [&](const std::array<int64_t, 2>& off, int64_t run) {
    std::memcpy(d + static_cast<size_t>(off[0]) * elem, s + static_cast<size_t>(off[1]) * elem,
                static_cast<size_t>(run) * elem);
  });
}

}  // namespace

void copy_region(BoxBuffer dst, ConstBoxBuffer src, const Rect& region) {
  copy_checked("copy_region", "destination", "source", dst, src, region);
}

void fill_region(BoxBuffer dst, const Rect& region, const void* value) {
  check("fill_region", region, {{"destination", dst.data, dst.box, dst.elem_size}});
  if (value == nullptr && !region.empty())
    fail("fill_region", "null fill value", region,
         {{"destination", dst.data, dst.box, dst.elem_size}});
  auto* d = static_cast<unsigned char*>(dst.data);
  const size_t elem = dst.elem_size;
  const auto* v = static_cast<const unsigned char*>(value);
  bool uniform_bytes = true;  // e.g. zero: memset does the whole run
  for (size_t i = 1; i < elem; ++i)
    if (v != nullptr && v[i] != v[0]) uniform_bytes = false;
  for_each_run<1>(region, {dst.box}, [&](const std::array<int64_t, 1>& off, int64_t run) {
    unsigned char* p = d + static_cast<size_t>(off[0]) * elem;
    const size_t total = static_cast<size_t>(run) * elem;
    if (uniform_bytes) {
      std::memset(p, v[0], total);
      return;
    }
    // One element, then doubling copies of what is already written.
    std::memcpy(p, v, elem);
    for (size_t done = elem; done < total;) {
      const size_t n = std::min(done, total - done);
      std::memcpy(p + done, p, n);
      done += n;
    }
  });
}

void fold_region(BoxBuffer dst, ConstBoxBuffer src, const Rect& region,
                 const Reduction& reduction) {
  check("fold_region", region,
        {{"destination", dst.data, dst.box, dst.elem_size},
         {"source", src.data, src.box, src.elem_size}});
  if (dst.elem_size != reduction.value_size)
    fail("fold_region", "element size does not match the reduction's " + reduction.key(), region,
         {{"destination", dst.data, dst.box, dst.elem_size},
          {"source", src.data, src.box, src.elem_size}});
  auto* d = static_cast<unsigned char*>(dst.data);
  const auto* s = static_cast<const unsigned char*>(src.data);
  const size_t elem = dst.elem_size;
  for_each_run<2>(region, {dst.box, src.box}, [&](const std::array<int64_t, 2>& off, int64_t run) {
    unsigned char* to = d + static_cast<size_t>(off[0]) * elem;
    const unsigned char* from = s + static_cast<size_t>(off[1]) * elem;
    if (!reduction.is_custom()) return reduction.join_n(to, from, static_cast<size_t>(run));
    for (int64_t i = 0; i < run; ++i) reduction.join(to + i * elem, from + i * elem);
  });
}

void pack_region(void* out, ConstBoxBuffer src, const Rect& region) {
  copy_checked("pack_region", "packed buffer", "source", BoxBuffer{out, region, src.elem_size}, src,
               region);
}

ByteRange contiguous_bytes(const Rect& box, size_t elem_size, const Rect& region) {
  if (!box.contains(region))
    throw Error(ErrorKind::kInternal, "contiguous_bytes: region " + region.to_string() +
                                          " is not inside the box " + box.to_string());
  if (region.empty()) return {};
  // Contiguous: the outer axes where the region is one element thick, then one axis of any
  // extent, then axes the region spans entirely.
  const int rank = region.rank();
  const Point extent = region.extent(), box_extent = box.extent();
  int a = 0;
  while (a < rank && extent[a] == 1) ++a;
  for (int b = a + 1; b < rank; ++b)
    if (extent[b] != box_extent[b]) return {};
  const uint64_t begin = element_offset(box, elem_size, region.lo());
  return {begin, begin + static_cast<uint64_t>(region.volume()) * elem_size};
}

void* contiguous_block(BoxBuffer buffer, const Rect& region) {
  const ByteRange bytes = contiguous_bytes(buffer.box, buffer.elem_size, region);
  return bytes.empty() ? nullptr : static_cast<unsigned char*>(buffer.data) + bytes.begin;
}

uint64_t element_offset(const Rect& box, size_t elem_size, const Point& p) {
  const Point extent = box.extent();
  int64_t index = 0;
  for (int a = 0; a < box.rank(); ++a) index = index * extent[a] + (p[a] - box.lo()[a]);
  return static_cast<uint64_t>(index) * elem_size;
}

void* element_address(BoxBuffer buffer, const Point& p) {
  return static_cast<unsigned char*>(buffer.data) + element_offset(buffer.box, buffer.elem_size, p);
}

std::optional<Point> first_difference(ConstBoxBuffer a, ConstBoxBuffer b, const Rect& region) {
  check("first_difference", region,
        {{"first buffer", a.data, a.box, a.elem_size},
         {"second buffer", b.data, b.box, b.elem_size}});
  const auto* x = static_cast<const unsigned char*>(a.data);
  const auto* y = static_cast<const unsigned char*>(b.data);
  const size_t elem = a.elem_size;
  bool differs = false;
  for_each_run<2>(region, {a.box, b.box}, [&](const std::array<int64_t, 2>& off, int64_t run) {
    differs = differs || std::memcmp(x + static_cast<size_t>(off[0]) * elem,
                                     y + static_cast<size_t>(off[1]) * elem,
                                     static_cast<size_t>(run) * elem) != 0;
  });
  if (!differs) return std::nullopt;
  std::optional<Point> first;
  region.for_each_point([&](const Point& p) {
    if (first) return;
    BoxBuffer pa{const_cast<void*>(a.data), a.box, elem},
        pb{const_cast<void*>(b.data), b.box, elem};
    if (std::memcmp(element_address(pa, p), element_address(pb, p), elem) != 0) first = p;
  });
  return first;
}

std::optional<Point> first_element_of_bytes(ConstBoxBuffer a, const Rect& region,
                                            unsigned char byte) {
  check("first_element_of_bytes", region, {{"buffer", a.data, a.box, a.elem_size}});
  const auto* x = static_cast<const unsigned char*>(a.data);
  const size_t elem = a.elem_size;
  const auto all_byte = [&](const unsigned char* e) {
    return std::all_of(e, e + elem, [&](unsigned char c) { return c == byte; });
  };
  bool found = false;
  for_each_run<1>(region, {a.box}, [&](const std::array<int64_t, 1>& off, int64_t run) {
    for (int64_t k = 0; k < run && !found; ++k)
      found = all_byte(x + static_cast<size_t>(off[0] + k) * elem);
  });
  if (!found) return std::nullopt;
  std::optional<Point> first;
  region.for_each_point([&](const Point& p) {
    if (!first && all_byte(x + element_offset(a.box, elem, p))) first = p;
  });
  return first;
}

void unpack_region(BoxBuffer dst, const void* in, const Rect& region) {
  copy_checked("unpack_region", "destination", "packed buffer", dst,
               ConstBoxBuffer{in, region, dst.elem_size}, region);
}

}  // namespace lightning::worker
