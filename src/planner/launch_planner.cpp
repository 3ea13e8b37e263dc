#include "planner/launch_planner.hpp"

#include <algorithm>
#include <functional>

#include "annotation/region_evaluator.hpp"
#include "core/error.hpp"
#include "core/reduction.hpp"

namespace lightning::planner {

namespace {

// A temporary of `array`'s element type holding `box`.
ChunkRef temporary_of(PlanBuilder& builder, const ArrayState& array, const Rect& box,
                      DeviceId device, WorkerId worker) {
  return builder.create_temporary(array.id, box, device, worker, array.type,
                                  static_cast<uint32_t>(array.element_size()));
}

}  // namespace

size_t LaunchPlanner::ReadKeyHash::operator()(const ReadKey& k) const {
  size_t h = std::hash<uint64_t>{}(k.array) * 31 + std::hash<uint64_t>{}(k.worker.value());
  for (int a = 0; a < k.region.rank(); ++a)
    h = h * 1000003u ^ std::hash<int64_t>{}(k.region.lo()[a]) * 31 ^
        std::hash<int64_t>{}(k.region.hi()[a]);
  return h;
}

LaunchPlanner::LaunchPlanner(PlanBuilder& builder, const DeviceSet& devices,
                             const LaunchRequest& request, LaunchId launch,
                             std::vector<const ArrayState*> arrays)
    : builder_(builder),
      mover_(builder),
      devices_(devices),
      request_(request),
      launch_(launch),
      arrays_(std::move(arrays)) {}

ChunkRef LaunchPlanner::chunk_for_read(const ArrayState& array, const Rect& region, DeviceId device,
                                       WorkerId worker) {
  const auto found = array.layout->find_containing(region, device);
  if (found && array.chunk_worker[*found] == worker) return chunk_ref(array, *found);
  const ReadKey key{array.id.value(), worker, region};
  if (auto it = read_temporaries_.find(key); it != read_temporaries_.end()) return it->second;
  const ChunkRef temp = temporary_of(builder_, array, region, device, worker);
  mover_.assemble(array, region, temp);
  read_temporaries_.emplace(key, temp);
  return temp;
}

ChunkRef LaunchPlanner::chunk_for_write(const ArrayState& array, const Rect& region,
                                        DeviceId device, WorkerId worker, bool overwrites) {
  const auto found = array.layout->find_containing(region, device);
  if (found && array.chunk_worker[*found] == worker) {
    const ChunkRef chunk = chunk_ref(array, *found);
    pending_.push_back({&array, region, chunk, *found});
    return chunk;
  }
  const ChunkRef temp = temporary_of(builder_, array, region, device, worker);
  // Elements the kernel leaves alone must keep their values when the temporary is scattered
  // back, and a kernel may leave alone elements its `write` rule names (a conditional write,
  // as Kokkos code has them): so the old contents come first, however dense the pattern,
  // unless the kernel overwrites every element.
  if (!overwrites) mover_.assemble(array, region, temp);
  pending_.push_back({&array, region, temp, std::nullopt});
  return temp;
}

ExecuteTask LaunchPlanner::bind_superblock(const Superblock& sb,
                                           const annotation::AccessRegion* regions,
                                           bool reads_only) {
  const WorkerId worker = devices_.worker_of(sb.device);
  ExecuteTask exec{launch_, request_.kernel, sb.threads, sb.device, {}, {}};
  for (size_t k = 0; k < request_.annotation->arrays().size(); ++k) {
    const annotation::AccessRegion& access = regions[k];
    if (access.region.empty()) continue;  // these threads touch nothing of this array
    const ArrayState& array = *arrays_[access.param];
    ChunkRef chunk;
    ChunkAccessMode mode = ChunkAccessMode::kReadWrite;
    if (reads_only) {
      exec.bindings.push_back({access.param,
                               chunk_for_read(array, access.region, sb.device, worker).id,
                               access.region, ChunkAccessMode::kRead, array.id});
      continue;
    }
    switch (access.mode) {
      case annotation::AccessMode::kRead:
        chunk = chunk_for_read(array, access.region, sb.device, worker);
        mode = ChunkAccessMode::kRead;
        break;
      case annotation::AccessMode::kWrite:
        // Whether or not every element is written, what was there before is ordered
        // before this write, so a plain write orders correctly.
        chunk = chunk_for_write(array, access.region, sb.device, worker);
        mode = ChunkAccessMode::kWrite;
        break;
      case annotation::AccessMode::kOverwrite:
        // Where the rule's pattern is not proven dense (`overwrite A[2 * i]`), the elements
        // between those written keep their values: a plain write.
        chunk = chunk_for_write(array, access.region, sb.device, worker, access.exact);
        mode = access.exact ? ChunkAccessMode::kOverwrite : ChunkAccessMode::kWrite;
        break;
      case annotation::AccessMode::kReadWrite:
        chunk = chunk_for_write(array, access.region, sb.device, worker);
        break;
      case annotation::AccessMode::kReduce: {
        chunk = temporary_of(builder_, array, access.region, sb.device, worker);
        builder_.add(worker, FillTask{chunk.id, access.region,
                                      Reduction::builtin(access.op, array.type).identity()});
        partials_[k].push_back({chunk, sb.device});
        break;
      }
    }
    exec.bindings.push_back({access.param, chunk.id, access.region, mode, array.id});
  }
  return exec;
}

void LaunchPlanner::propagate_pending() {
  for (const PendingUpdate& u : pending_) mover_.propagate(*u.array, u.region, u.written, u.index);
  pending_.clear();
}

std::vector<TaskId> LaunchPlanner::plan_scan(
    const std::vector<Superblock>& superblocks,
    const std::vector<annotation::AccessRegion>& all_regions) {
  const ScanRequest& scan = *request_.scan;
  const size_t per_superblock = request_.annotation->arrays().size();
  const size_t n = superblocks.size();
  if (request_.domain.rank() != 1)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + request_.name +
                    "': parallel_scan runs over a RangePolicy (rank 1), not a rank-" +
                    std::to_string(request_.domain.rank()) + " domain");
  for (const annotation::BoundArray& a : request_.annotation->arrays())
    if (a.mode == annotation::AccessMode::kReduce)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + request_.name +
                      "': a parallel_scan runs each thread twice (final false, then true), "
                      "so its annotation cannot reduce(" +
                      std::string(name_of(a.op)) +
                      ") into an array: write the values when final is true");
  if (n == 0) return {};
  // The carry runs in index order, whatever order the work distribution lists them in.
  std::vector<size_t> order(n);
  for (size_t s = 0; s < n; ++s) order[s] = s;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return superblocks[a].threads.lo()[0] < superblocks[b].threads.lo()[0];
  });
  const auto worker_of = [&](size_t s) { return devices_.worker_of(superblocks[s].device); };
  const auto value_chunk = [&](size_t s) {
    return builder_.create_temporary(ArrayId(), Rect(), superblocks[s].device, worker_of(s),
                                     scan.reduction.type, scan.reduction.value_size);
  };

  // The last run: the superblocks at the end of the index order that share the last one's
  // device. Its final passes run one after the other on that device anyway, so each starts
  // from where the one before it ended (the end its final pass leaves in a value chunk)
  // instead of from a partial pass: the run reads its input once. Only the superblocks
  // before it need partial passes, for the carry into the run. Positions below are in
  // `order`: the run is positions [run_start, n).
  size_t run_start = n - 1;
  while (run_start > 0 &&
         superblocks[order[run_start - 1]].device == superblocks[order.back()].device)
    --run_start;

  // Partial pass: each superblock's total, but the last run's: no later superblock needs it,
  // and the scan's total comes out of its final pass. It writes nothing (Kokkos' contract
  // for final = false), so it binds every access for reading (in checked mode, a write
  // there is a violation).
  std::vector<ChunkRef> partial(n);
  for (size_t k = 0; k < run_start; ++k) {
    const size_t s = order[k];
    ExecuteTask exec =
        bind_superblock(superblocks[s], all_regions.data() + s * per_superblock, true);
    exec.scan = ScanPass::kPartial;
    partial[s] = value_chunk(s);
    exec.scalar_partial = partial[s].id;
    builder_.add(worker_of(s), std::move(exec));
  }

  // The carry: prefix(k + 1) = prefix(k) join partial(k), folded on the worker of superblock k
  // and sent on to the next one's worker when that differs.
  std::vector<ChunkRef> prefix_of(n);  // invalid: the identity
  ChunkRef prefix;
  for (size_t k = 0; k < run_start; ++k) {
    const size_t s = order[k];
    prefix_of[s] = prefix;
    ChunkRef next = partial[s];
    if (prefix.id.valid()) {
      next = value_chunk(s);
      builder_.add(worker_of(s),
                   FoldTask{prefix.id, next.id, Rect(), scan.reduction, launch_, true});
      builder_.add(worker_of(s),
                   FoldTask{partial[s].id, next.id, Rect(), scan.reduction, launch_, false});
    }
    const size_t following = order[k + 1];
    if (worker_of(following) != worker_of(s)) {
      const ChunkRef landing = value_chunk(following);
      builder_.transfer(next, landing, Rect());
      next = landing;
    }
    prefix = next;
  }
  prefix_of[order[run_start]] = prefix;

  // Final pass, in index order, bound and followed by its coherence updates superblock by
  // superblock (as a parallel_for's), so that overlapping writes keep their order. A final
  // pass that the next one in the last run starts from leaves its inclusive end in a value
  // chunk; so does the last superblock's, the scan's total, when it is asked for.
  ChunkRef total, end;
  for (size_t k = 0; k < n; ++k) {
    const size_t s = order[k];
    ExecuteTask exec = bind_superblock(superblocks[s], all_regions.data() + s * per_superblock);
    exec.scan = ScanPass::kFinal;
    exec.scan_prefix = k > run_start ? end.id : prefix_of[s].id;
    if (k + 1 < n && k >= run_start) {  // the next one in the last run starts from here
      end = value_chunk(s);
      exec.scalar_partial = end.id;
    } else if (k + 1 == n && scan.total) {
      total = value_chunk(s);
      exec.scalar_partial = total.id;
    }
    builder_.add(worker_of(s), std::move(exec));
    propagate_pending();
  }
  if (!scan.total || n == 0) return {};
  const WorkerId driver(0);
  if (total.worker != driver) {
    const auto driver_devices = devices_.devices_of(driver);
    const ChunkRef landing = builder_.create_temporary(
        ArrayId(), Rect(), driver_devices.empty() ? DeviceId() : driver_devices.front(), driver,
        scan.reduction.type, scan.reduction.value_size);
    builder_.transfer(total, landing, Rect());
    total = landing;
  }
  return {builder_.add(
      driver, HostReadTask{total.id, *scan.total, Rect(), Rect(), true, scan.reduction, launch_})};
}

std::vector<TaskId> LaunchPlanner::plan() {
  const annotation::BoundAnnotation& bound = *request_.annotation;
  // Everything that can reject the launch (superblocks, regions) runs before the first task
  // is emitted: a rejected launch leaves no trace in the planner's state.
  const std::vector<Superblock> superblocks =
      request_.work.split(request_.domain, request_.block_size, devices_);

  annotation::LaunchArguments args;
  args.scalars = request_.scalars;
  args.extents.resize(arrays_.size());
  for (size_t p = 0; p < arrays_.size(); ++p)
    if (arrays_[p]) args.extents[p] = arrays_[p]->extent;

  const size_t per_superblock = bound.arrays().size();
  std::vector<annotation::AccessRegion> all_regions(superblocks.size() * per_superblock);
  for (size_t s = 0; s < superblocks.size(); ++s)
    annotation::evaluate_regions(bound, {superblocks[s].threads, request_.block_size}, args,
                                 all_regions.data() + s * per_superblock);
  partials_.assign(per_superblock, {});

  if (request_.scan) return plan_scan(superblocks, all_regions);
  for (size_t s = 0; s < superblocks.size(); ++s) {
    const Superblock& sb = superblocks[s];
    const WorkerId worker = devices_.worker_of(sb.device);
    ExecuteTask exec = bind_superblock(sb, all_regions.data() + s * per_superblock);
    if (request_.scalar_reduction) {
      const ChunkRef partial = builder_.create_temporary(
          ArrayId(), Rect(), sb.device, worker, request_.scalar_reduction->reduction.type,
          request_.scalar_reduction->reduction.value_size);
      exec.scalar_partial = partial.id;
      scalar_partials_.push_back({partial, sb.device});
    }
    builder_.add(worker, std::move(exec));
    propagate_pending();
  }

  for (size_t k = 0; k < partials_.size(); ++k)
    if (!partials_[k].empty())
      plan_array_reduction(builder_, mover_, *arrays_[bound.arrays()[k].param],
                           bound.arrays()[k].op, partials_[k]);

  if (!request_.scalar_reduction) return {};
  const auto driver_devices = devices_.devices_of(WorkerId(0));
  const DeviceId driver_device = driver_devices.empty() ? DeviceId() : driver_devices.front();
  return plan_scalar_reduction(builder_, launch_, *request_.scalar_reduction, scalar_partials_,
                               devices_.num_workers(), driver_device);
}

}  // namespace lightning::planner
