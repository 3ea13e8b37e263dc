#include "driver/launch_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace lightning::driver {

namespace {

// An integer scalar member, sign-extended from its size.
int64_t read_integer(const uint8_t* bytes, const kernel::ScalarSlot& slot) {
  const uint8_t* at = bytes + slot.byte_offset;
  switch (size_of(slot.type)) {
    case 1: {
      int8_t x;
      std::memcpy(&x, at, 1);
      return x;
    }
    case 2: {
      int16_t x;
      std::memcpy(&x, at, 2);
      return x;
    }
    case 4: {
      int32_t x;
      std::memcpy(&x, at, 4);
      return x;
    }
    default: {
      int64_t x;
      std::memcpy(&x, at, 8);
      return x;
    }
  }
}

// A team launch's league cut evenly over the devices, in whole teams.
WorkDistribution even_team_work(int64_t league, int64_t team_size, const DeviceSet& devices) {
  const auto n = static_cast<int64_t>(std::max<std::size_t>(devices.size(), 1));
  return work::block(std::max<int64_t>((league + n - 1) / n, 1) * team_size);
}

// A team launch's superblocks: team b takes row b of `layout` (its first axis), so they are
// the row ranges of the primary chunks, counted in threads. When the chunks split the rows
// along another axis, or the league is not one team per row, the league is split evenly
// over the devices instead.
WorkDistribution team_work(const DataLayout& layout, int64_t league, int64_t team_size,
                           const DeviceSet& devices) {
  const Point& extent = layout.extent();
  std::vector<Chunk> rows;
  bool follows = extent[0] == league;
  for (const Chunk& c : layout.chunks()) {
    if (!follows) break;
    if (c.owned.empty()) continue;
    for (int a = 1; a < extent.rank(); ++a)
      follows = follows && c.owned.lo()[a] == 0 && c.owned.hi()[a] == extent[a];
    rows.push_back(Chunk::primary(
        Rect(Point{c.owned.lo()[0] * team_size}, Point{c.owned.hi()[0] * team_size}), c.device));
  }
  if (follows)
    return work::like(DataLayout(Point{extent[0] * team_size}, std::move(rows), layout.devices()));
  return even_team_work(league, team_size, devices);
}

// Superblocks like the chunks of the first array spanning the launch's domain that the kernel
// writes (or else the first it reads).
WorkDistribution default_work(const kernel::KernelInfo& kernel,
                              const annotation::KernelSignature& signature,
                              const annotation::BoundAnnotation& bound,
                              const std::vector<ArrayId>& arrays, const planner::Planner& planner,
                              const Rect& domain, const Point& block_size) {
  const annotation::BoundArray* follow = nullptr;
  for (const auto& a : bound.arrays())
    if (!follow ||
        (follow->mode == annotation::AccessMode::kRead && a.mode != annotation::AccessMode::kRead))
      follow = &a;
  if (bound.launch_kind() == annotation::LaunchKind::kTeams) {
    // Rows of a column-major array are not its chunks' first axis: no row to follow.
    const int64_t league = domain.hi()[0] / block_size[0];
    if (!follow || signature.params[static_cast<size_t>(follow->param)].axes_reversed)
      return even_team_work(league, block_size[0], planner.devices());
    const planner::ArrayState& array = planner.array(arrays.at(static_cast<size_t>(follow->param)));
    return team_work(*array.layout, league, block_size[0], planner.devices());
  }
  if (!follow)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + kernel.name + "' touches no array: give it a work distribution");
  // Only an array of the launch's rank that spans its domain has chunks to follow: the first
  // such written array leads, else the first such read one (y in y^T·A·x over rows, not A
  // nor x).
  const int rank = bound.launch_rank();
  // (A column-major array's extent, stored reversed, in the kernel's index order.)
  const auto spans_domain = [&](const annotation::BoundArray& a) {
    const Point& stored = planner.array(arrays.at(static_cast<size_t>(a.param))).extent;
    const Point extent =
        signature.params[static_cast<size_t>(a.param)].axes_reversed ? stored.reversed() : stored;
    return extent.rank() == rank && Rect::from_extent(extent).contains(domain);
  };
  const annotation::BoundArray* spanning = nullptr;
  for (const auto& a : bound.arrays())
    if (spans_domain(a) && (!spanning || (spanning->mode == annotation::AccessMode::kRead &&
                                          a.mode != annotation::AccessMode::kRead)))
      spanning = &a;
  if (spanning) follow = spanning;
  const planner::ArrayState& array = planner.array(arrays.at(static_cast<size_t>(follow->param)));
  if (array.extent.rank() != rank)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + kernel.name + "': the launch has " + std::to_string(rank) +
                    (rank == 1 ? " axis" : " axes") + ", but View '" + array.name +
                    "' (parameter '" + signature.params[static_cast<size_t>(follow->param)].name +
                    "'), whose chunks a launch follows when it has no work distribution, has " +
                    std::to_string(array.extent.rank()) + " (and no array it touches has " +
                    std::to_string(rank) + "): " +
                    "give the launch a work distribution (lightning::Distributed(lightning::"
                    "work::block(n)), superblocks of n indices) or launch over the View's axes");
  const DataLayout& layout = *array.layout;
  if (!signature.params[static_cast<size_t>(follow->param)].axes_reversed) return array.like_work;
  // A column-major array: its chunks, seen in the kernel's index order.
  std::vector<Chunk> chunks = layout.chunks();
  for (Chunk& c : chunks) {
    c.box = c.box.reversed();
    c.owned = c.owned.reversed();
  }
  return work::like(DataLayout(layout.extent().reversed(), std::move(chunks), layout.devices()));
}

}  // namespace

DecodedLaunch decode_launch(const Launch& launch, const kernel::KernelInfo& kernel,
                            const kernel::KernelDescription& described,
                            const annotation::BoundAnnotation& bound,
                            const planner::Planner& planner, planner::HostBufferId result) {
  DecodedLaunch d;
  d.data = std::make_shared<worker::LaunchData>();
  decode_launch(launch, kernel, described, bound, planner, result, d.request, *d.data);
  return d;
}

void decode_launch(const Launch& launch, const kernel::KernelInfo& kernel,
                   const kernel::KernelDescription& described,
                   const annotation::BoundAnnotation& bound, const planner::Planner& planner,
                   planner::HostBufferId result, planner::LaunchRequest& r,
                   worker::LaunchData& data) {
  const annotation::KernelSignature& signature = described.signature;
  const size_t params = signature.params.size();
  const int rank = launch.domain.rank();
  const auto* bytes = static_cast<const uint8_t*>(launch.functor);

  r.kernel = launch.kernel;
  r.name = kernel.name;
  r.annotation = &bound;
  r.arrays = launch.arrays;
  r.arrays.resize(params);
  r.scalars.assign(params, 0);
  for (const kernel::ScalarSlot& s : described.scalars)
    r.scalars[static_cast<size_t>(s.param)] = read_integer(bytes, s);
  r.domain = launch.domain;
  r.block_size = launch.block_size;
  if (r.block_size.rank() == 0) {
    // The runtime's choice (a Kokkos range): blocks of 256 along the last axis when the
    // annotation's regions depend on them; otherwise no block at all, so that superblocks
    // follow the chunks' edges wherever they are (a superblock spanning two chunks would run
    // through a temporary copy of its region).
    r.block_size = Point::filled(rank, 1);
    if (bound.uses_blocks()) r.block_size[rank - 1] = 256;
  }
  r.work = launch.work
               ? *launch.work
               : default_work(kernel, signature, bound, r.arrays, planner, r.domain, r.block_size);

  data.kernel = launch.kernel;
  data.name = launch.label.empty() ? kernel.name : launch.label;
  data.functor.assign(bytes, bytes + kernel.functor_size);
  data.extents.assign(params, Point());
  data.arrays = described.arrays;
  data.reduction = Reduction();
  for (size_t p = 0; p < params; ++p)
    if (r.arrays[p].valid() && planner.has_array(r.arrays[p]))
      data.extents[p] = planner.array(r.arrays[p]).extent;
  r.scalar_reduction.reset();
  r.scan.reset();

  if (kernel.reduces()) {
    if (!launch.result)
      throw Error(
          ErrorKind::kInvalidArgument,
          "kernel '" + kernel.name + "' reduces to a value, but the launch gives no result");
    data.reduction = kernel.resolve(launch.reduction.value_or(*kernel.reduction), data.functor);
    r.scalar_reduction = planner::ScalarReduction{data.reduction, result};
  }
  if (kernel.scans()) {
    data.reduction = kernel.resolve(*kernel.reduction, data.functor);
    r.scan = planner::ScanRequest{data.reduction, std::nullopt};
    if (launch.result) r.scan->total = result;
  }
}

}  // namespace lightning::driver
