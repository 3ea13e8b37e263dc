#include "backend/cuda/region_copy.hpp"

#include <array>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace lightning::cuda {

namespace {

using Axes = std::array<uint64_t, 3>;

// A rank 0-3 quantity as three axes, leading axes filled with `fill`.
Axes widen(const Point& p, int64_t fill) {
  Axes a{static_cast<uint64_t>(fill), static_cast<uint64_t>(fill), static_cast<uint64_t>(fill)};
  for (int i = 0; i < p.rank(); ++i) a[3 - p.rank() + i] = static_cast<uint64_t>(p[i]);
  return a;
}

// Whether the region's points are consecutive in a buffer: below the outermost axis along
// which the region has more than one point, it spans the box completely.
bool consecutive(const Axes& region, const Axes& box) {
  int outer = 0;
  while (outer < 2 && region[outer] == 1) ++outer;
  for (int a = outer + 1; a < 3; ++a)
    if (region[a] != box[a]) return false;
  return true;
}

}  // namespace

RegionCopy RegionCopy::plan(const Rect& dst_box, const Rect& src_box, const Rect& region,
                            size_t elem_size) {
  auto fail = [&](const std::string& why) {
    throw Error(ErrorKind::kInternal, "GPU region copy: " + why + " (region " + region.to_string() +
                                          ", destination box " + dst_box.to_string() +
                                          ", source box " + src_box.to_string() + ", " +
                                          std::to_string(elem_size) + "-byte elements)");
  };
  if (elem_size == 0) fail("zero element size");
  if (dst_box.rank() != region.rank() || src_box.rank() != region.rank()) fail("ranks differ");
  RegionCopy c;
  if (region.empty()) return c;
  if (!dst_box.contains(region)) fail("region not inside the destination box");
  if (!src_box.contains(region)) fail("region not inside the source box");

  const uint64_t e = elem_size;
  const Axes r = widen(region.extent(), 1);
  const Axes sb = widen(src_box.extent(), 1), db = widen(dst_box.extent(), 1);
  const Axes so = widen(region.lo() - src_box.lo(), 0), dof = widen(region.lo() - dst_box.lo(), 0);

  c.width_bytes = r[2] * e;
  c.height = r[1];
  c.depth = r[0];
  c.src_x_bytes = so[2] * e, c.src_y = so[1], c.src_z = so[0];
  c.src_pitch = sb[2] * e, c.src_height = sb[1];
  c.dst_x_bytes = dof[2] * e, c.dst_y = dof[1], c.dst_z = dof[0];
  c.dst_pitch = db[2] * e, c.dst_height = db[1];

  c.bytes = r[0] * r[1] * r[2] * e;
  c.contiguous = consecutive(r, sb) && consecutive(r, db);
  c.src_offset = ((so[0] * sb[1] + so[1]) * sb[2] + so[2]) * e;
  c.dst_offset = ((dof[0] * db[1] + dof[1]) * db[2] + dof[2]) * e;
  return c;
}

CUDA_MEMCPY3D RegionCopy::descriptor(void* dst, CUmemorytype dst_type, const void* src,
                                     CUmemorytype src_type) const {
  CUDA_MEMCPY3D d;
  std::memset(&d, 0, sizeof d);
  d.srcXInBytes = src_x_bytes, d.srcY = src_y, d.srcZ = src_z;
  d.srcMemoryType = src_type;
  if (src_type == CU_MEMORYTYPE_HOST)
    d.srcHost = src;
  else
    d.srcDevice = reinterpret_cast<CUdeviceptr>(src);
  d.srcPitch = src_pitch, d.srcHeight = src_height;
  d.dstXInBytes = dst_x_bytes, d.dstY = dst_y, d.dstZ = dst_z;
  d.dstMemoryType = dst_type;
  if (dst_type == CU_MEMORYTYPE_HOST)
    d.dstHost = dst;
  else
    d.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
  d.dstPitch = dst_pitch, d.dstHeight = dst_height;
  d.WidthInBytes = width_bytes, d.Height = height, d.Depth = depth;
  return d;
}

}  // namespace lightning::cuda
