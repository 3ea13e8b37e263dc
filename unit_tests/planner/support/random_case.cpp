#include "random_case.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "distribution/data_distribution.hpp"
#include "distribution/work_distribution.hpp"
#include "plan_checker.hpp"
#include "plan_simulator.hpp"
#include "planner/planner.hpp"
#include "sequential_reference.hpp"

namespace lightning::planner::testing {

int property_case_count(int ci_default) {
  if (const char* env = std::getenv("LIGHTNING_PROPERTY_CASES")) {
    const int n = std::atoi(env);
    if (n > 0) return n;
  }
  if (const char* env = std::getenv("LIGHTNING_PROPERTY_SHARE")) {
    const double share = std::atof(env);
    if (share > 0 && share < 1) return std::max(1, static_cast<int>(ci_default * share));
  }
  return ci_default;
}

uint64_t property_seed_value() {
  if (const char* env = std::getenv("LIGHTNING_PROPERTY_SEED"))
    return std::strtoull(env, nullptr, 10);
  return 20220530;
}

namespace {

// Thrown when a step failed and the case cannot go on (the failure is already reported).
struct AbortCase {};

size_t failure_parts() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? static_cast<size_t>(info->result()->total_part_count()) : 0;
}

std::string join_ids(const std::vector<ArrayId>& ids) {
  std::string s;
  for (ArrayId a : ids) s += (s.empty() ? "" : ", ") + (a.valid() ? a.to_string() : "-");
  return s;
}

class CaseRun {
 public:
  CaseRun(uint64_t seed, int index, const CaseLimits& limits, KernelRegistry& kernels,
          CaseStats& stats, CaseScript* script)
      : seed_(seed),
        index_(index),
        limits_(limits),
        kernels_(kernels),
        stats_(stats),
        script_(script),
        rng_(seed) {}

  void run();

 private:
  struct Live {
    ArrayId id;
    DataType type;
    Point extent;
    DataDistribution distribution;
  };

  // Random draws.
  int64_t uni(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng_);
  }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(uni(0, static_cast<int64_t>(v.size()) - 1))];
  }
  DataType random_type() {
    const int r = static_cast<int>(uni(0, 99));
    if (r < 35) return DataType::kInt64;
    if (r < 70) return DataType::kFloat64;
    if (r < 85) return DataType::kInt32;
    return DataType::kFloat32;
  }
  int64_t max_extent(int rank) const {
    return rank == 1   ? limits_.max_extent_1d
           : rank == 2 ? limits_.max_extent_2d
                       : limits_.max_extent_3d;
  }
  Point random_extent(int rank, int64_t min = 1) {
    Point e = Point::filled(rank, 1);
    for (int a = 0; a < rank; ++a) e[a] = uni(min, std::max(min, max_extent(rank)));
    return e;
  }
  Rect random_subbox(const Point& extent, bool allow_empty) {
    Point lo = Point::filled(extent.rank(), 0), hi = extent;
    for (int a = 0; a < extent.rank(); ++a) {
      int64_t x = uni(0, extent[a]), y = uni(0, extent[a]);
      if (x > y) std::swap(x, y);
      if (x == y && !allow_empty) {
        if (y < extent[a])
          ++y;
        else
          --x;
      }
      lo[a] = x;
      hi[a] = y;
    }
    return {lo, hi};
  }
  DeviceId random_device() { return DeviceId(static_cast<uint64_t>(uni(0, devices_.size() - 1))); }
  std::vector<DeviceId> random_device_subset() {
    std::vector<DeviceId> all;
    for (size_t d = 0; d < devices_.size(); ++d) all.push_back(DeviceId(d));
    std::shuffle(all.begin(), all.end(), rng_);
    all.resize(static_cast<size_t>(uni(1, static_cast<int64_t>(all.size()))));
    return all;
  }
  int64_t cell_size(int64_t extent) {
    if (chance(0.2)) return uni(1, extent);
    const int64_t parts = uni(1, 4);
    return std::max<int64_t>(1, (extent + parts - 1) / parts);
  }

  DataDistribution random_distribution(const Point& extent);
  std::vector<Chunk> random_user_chunks(const Point& extent);
  WorkDistribution random_work(const Rect& domain, const Point& block,
                               const std::vector<ArrayId>& arrays);

  // Steps.
  bool guard(const char* what, const std::function<void()>& f);
  void accept(const Plan& plan);
  ArrayId create_array(DataType type, const Point& extent);
  ArrayId find_or_create(int rank, const std::function<bool(const Point&)>& fits,
                         const std::function<Point()>& make_extent,
                         const std::vector<ArrayId>& exclude);
  void fill_step(const Live& a, const Rect& region);
  void write_step(const Live& a, const Rect& region);
  void read_step(const Live& a, const Rect& region);
  void launch_step();
  void submit_launch(const TestKernel& kernel, LaunchRequest req);
  void repeat_launch();
  void delete_step(size_t i);
  void run_and_check();
  void check_coherence();
  void record(CaseStep step) {
    if (script_) script_->steps.push_back(std::move(step));
  }
  const Live& live(ArrayId id) const {
    for (const Live& l : live_)
      if (l.id == id) return l;
    throw std::logic_error("not a live array");
  }

  uint64_t seed_;
  int index_;
  CaseLimits limits_;
  KernelRegistry& kernels_;
  CaseStats& stats_;
  CaseScript* script_;
  std::mt19937_64 rng_;
  std::ostringstream log_;
  DeviceSet devices_;
  std::unique_ptr<Planner> planner_;
  std::unique_ptr<PlanChecker> checker_;
  std::unique_ptr<PlanSimulator> sim_;
  SequentialReference ref_;
  std::vector<Live> live_;
  std::unordered_map<ArrayId, DataType> types_;
  uint64_t next_buffer_ = 1;
  uint64_t max_task_ = 0;  // one past the highest task id planned
  bool aborted_ = false;

  struct PendingRead {
    HostBufferId buffer;
    ArrayId array;
    Rect region;
    std::vector<double> expected;
    std::string what;
  };
  std::vector<PendingRead> pending_;
  struct LastLaunch {
    const TestKernel* kernel;
    LaunchRequest req;
  };
  std::optional<LastLaunch> last_;
};

bool CaseRun::guard(const char* what, const std::function<void()>& f) {
  try {
    f();
    return true;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "planner threw during " << what << ": " << e.what();
    aborted_ = true;
    return false;
  }
}

void CaseRun::accept(const Plan& plan) {
  ++stats_.plans;
  stats_.tasks += plan.task_count();
  for (const auto& fragment : plan.fragments)
    for (const Task& t : fragment)
      if (t.id.valid()) max_task_ = std::max(max_task_, t.id.value() + 1);
  for (const auto& fragment : plan.fragments) {
    for (const Task& t : fragment) {
      ++stats_.task_kinds[name_of(t.kind)];
      if (const auto* c = std::get_if<CreateChunkTask>(&t.kind); c && c->temporary)
        ++stats_.task_kinds["(temporaries)"];
      if (const auto* h = std::get_if<SendTask>(&t.kind); h && !h->src.valid())
        ++stats_.task_kinds["(sends from host)"];
      if (const auto* h = std::get_if<RecvTask>(&t.kind); h && !h->dst.valid())
        ++stats_.task_kinds["(recvs to host)"];
    }
  }
  checker_->check(plan);
  sim_->submit(plan);
}

DataDistribution CaseRun::random_distribution(const Point& extent) {
  const int rank = extent.rank();
  DataDistribution d = dist::replicated();
  const int choice = static_cast<int>(uni(0, 11));
  switch (choice) {
    case 0:
      d = dist::block(cell_size(extent[0]));
      break;
    case 1: {
      const int axis = static_cast<int>(uni(0, rank - 1));
      d = dist::block(axis, cell_size(extent[axis]));
      break;
    }
    case 2:
      d = rank >= 2 && chance(0.5) ? dist::columns(cell_size(extent[1]))
                                   : dist::rows(cell_size(extent[0]));
      break;
    case 3: {
      Point tile = extent;
      for (int a = 0; a < rank; ++a) tile[a] = cell_size(extent[a]);
      d = dist::tiles(tile);
      break;
    }
    case 4: {
      const int axis = static_cast<int>(uni(0, rank - 1));
      d = dist::block_cyclic(axis, cell_size(extent[axis]));
      break;
    }
    case 5:
      d = dist::stencil(cell_size(extent[0]), uni(1, 2));
      break;
    case 6: {
      Point chunk = extent, halo = extent;
      for (int a = 0; a < rank; ++a) {
        chunk[a] = cell_size(extent[a]);
        halo[a] = uni(0, 2);
      }
      d = chance(0.5) ? dist::stencil(chunk, uni(0, 2)) : dist::stencil(chunk, halo);
      break;
    }
    case 7:
      d = dist::replicated(ReplicaScope::kPerDevice);
      break;
    case 8:
      d = dist::replicated(ReplicaScope::kPerWorker);
      break;
    case 9:
      return dist::centralized(random_device());
    default:
      return dist::user_defined(random_user_chunks(extent));
  }
  if (chance(0.25)) d = d.with_devices(random_device_subset());
  if (d.kind() == DataDistribution::Kind::kGrid && chance(0.25))
    d = d.with_placement(chance(0.5) ? Placement::kRoundRobin : Placement::kContiguous);
  return d;
}

std::vector<Chunk> CaseRun::random_user_chunks(const Point& extent) {
  const int rank = extent.rank();
  std::vector<Rect> parts{Rect::from_extent(extent)};
  const int splits = static_cast<int>(uni(0, 5));
  for (int s = 0; s < splits; ++s) {
    Rect& r = parts[static_cast<size_t>(uni(0, static_cast<int64_t>(parts.size()) - 1))];
    const int axis = static_cast<int>(uni(0, rank - 1));
    if (r.extent()[axis] < 2) continue;
    const int64_t cut = uni(r.lo()[axis] + 1, r.hi()[axis] - 1);
    Point hi1 = r.hi(), lo2 = r.lo();
    hi1[axis] = cut;
    lo2[axis] = cut;
    Rect second(lo2, r.hi());
    r = Rect(r.lo(), hi1);
    parts.push_back(second);
  }
  std::vector<Chunk> chunks;
  for (const Rect& owned : parts) {
    Rect box = owned;
    if (chance(0.4)) {
      Point lo = owned.lo(), hi = owned.hi();
      for (int a = 0; a < rank; ++a) {
        lo[a] = std::max<int64_t>(0, lo[a] - uni(0, 2));
        hi[a] = std::min<int64_t>(extent[a], hi[a] + uni(0, 2));
      }
      box = Rect(lo, hi);
    }
    chunks.push_back({box, owned, random_device()});
  }
  const int replicas = static_cast<int>(uni(0, 2));
  for (int i = 0; i < replicas; ++i)
    chunks.push_back(Chunk::replica(random_subbox(extent, false), random_device()));
  std::shuffle(chunks.begin(), chunks.end(), rng_);
  return chunks;
}

WorkDistribution CaseRun::random_work(const Rect& domain, const Point& block,
                                      const std::vector<ArrayId>& arrays) {
  const int rank = domain.rank();
  const Point ext = domain.empty() ? Point::filled(rank, 1) : domain.hi();
  std::vector<ArrayId> like;
  for (ArrayId a : arrays) {
    if (!a.valid()) continue;
    const Point& e = ref_.extent(a);
    if (e.rank() == rank && Rect::from_extent(e).contains(domain)) like.push_back(a);
  }
  WorkDistribution w = work::block(1);
  const int choice = static_cast<int>(uni(0, 6));
  switch (choice) {
    case 0:
      w = work::block(cell_size(ext[0]));
      break;
    case 1: {
      const int axis = static_cast<int>(uni(0, rank - 1));
      w = work::block(axis, cell_size(ext[axis]));
      break;
    }
    case 2: {
      Point tile = ext;
      for (int a = 0; a < rank; ++a) tile[a] = cell_size(ext[a]);
      w = work::tiles(tile);
      break;
    }
    case 3: {
      const int axis = static_cast<int>(uni(0, rank - 1));
      w = work::cyclic(axis, cell_size(ext[axis]));
      break;
    }
    case 4:
      if (!like.empty()) return work::like(*planner_->array(pick(like)).layout);
      w = work::cyclic(cell_size(ext[0]));
      break;
    default: {
      // An explicit list: a grid split with devices dealt at random.
      Point tile = ext;
      for (int a = 0; a < rank; ++a) tile[a] = cell_size(ext[a]);
      auto sbs = work::tiles(tile).split(domain, block, devices_);
      for (auto& sb : sbs) sb.device = random_device();
      return work::explicit_list(std::move(sbs));
    }
  }
  if (chance(0.25)) w = w.with_devices(random_device_subset());
  if (chance(0.2)) w = w.with_placement(Placement::kRoundRobin);
  return w;
}

ArrayId CaseRun::create_array(DataType type, const Point& extent) {
  ArrayDesc desc;
  desc.type = type;
  desc.extent = extent;
  desc.distribution = random_distribution(extent);
  // Arrays with equal layouts share cached launch plans: make them common.
  for (const Live& l : live_) {
    if (l.extent == extent && chance(0.4)) {
      desc.distribution = l.distribution;
      break;
    }
  }
  desc.name = "a" + std::to_string(live_.size());
  ArrayId id;
  const bool ok = guard("create_array", [&] {
    auto [aid, plan] = planner_->create_array(desc);
    id = aid;
    types_[id] = type;
    sim_->add_array(id, type);
    accept(plan);
  });
  log_ << "  create " << (ok ? id.to_string() : "?") << " " << name_of(type) << " extent "
       << extent.to_string() << " " << desc.distribution.to_string() << "\n";
  if (!ok) return id;
  {
    CaseStep step;
    step.kind = CaseStep::Kind::kCreate;
    step.array = id;
    step.desc = desc;
    record(std::move(step));
  }
  ref_.create(id, type, extent);
  Live l{id, type, extent, desc.distribution};
  live_.push_back(l);
  // Every array is defined everywhere before use: the simulator flags reads of elements no
  // task wrote.
  if (chance(0.5))
    fill_step(l, Rect::from_extent(extent));
  else
    write_step(l, Rect::from_extent(extent));
  return id;
}

ArrayId CaseRun::find_or_create(int rank, const std::function<bool(const Point&)>& fits,
                                const std::function<Point()>& make_extent,
                                const std::vector<ArrayId>& exclude) {
  std::vector<ArrayId> candidates;
  for (const Live& l : live_) {
    if (l.extent.rank() != rank || !fits(l.extent)) continue;
    if (std::find(exclude.begin(), exclude.end(), l.id) != exclude.end()) continue;
    candidates.push_back(l.id);
  }
  if (!candidates.empty() && chance(0.75)) return pick(candidates);
  const ArrayId id = create_array(random_type(), make_extent());
  if (aborted_) throw AbortCase{};
  return id;
}

void CaseRun::fill_step(const Live& a, const Rect& region) {
  const double v = static_cast<double>(uni(0, 9));
  log_ << "  fill " << a.id << " " << region.to_string() << " = " << v << "\n";
  if (!guard("fill", [&] { accept(planner_->fill(a.id, region, value_bytes(a.type, v))); })) return;
  ref_.fill(a.id, region, v);
  CaseStep step;
  step.kind = CaseStep::Kind::kFill;
  step.array = a.id;
  step.region = region;
  step.value = v;
  record(std::move(step));
}

void CaseRun::write_step(const Live& a, const Rect& region) {
  std::vector<double> values(static_cast<size_t>(region.volume()));
  for (double& v : values) v = static_cast<double>(uni(0, 9));
  const HostBufferId buf{next_buffer_++};
  log_ << "  write_from_host " << a.id << " " << region.to_string() << " (buffer " << buf.value
       << ")\n";
  sim_->set_host_buffer(buf, a.type, region, values);
  if (!guard("write_from_host", [&] { accept(planner_->write_from_host(a.id, region, buf)); }))
    return;
  ref_.write(a.id, region, values);
  CaseStep step;
  step.kind = CaseStep::Kind::kWrite;
  step.array = a.id;
  step.region = region;
  step.values = values;
  record(std::move(step));
}

void CaseRun::read_step(const Live& a, const Rect& region) {
  const HostBufferId buf{next_buffer_++};
  log_ << "  read_to_host " << a.id << " " << region.to_string() << " (buffer " << buf.value
       << ")\n";
  sim_->add_host_buffer(buf, a.type, region);
  if (!guard("read_to_host", [&] { accept(planner_->read_to_host(a.id, region, buf)); })) return;
  pending_.push_back({buf, a.id, region, ref_.read(a.id, region),
                      "read_to_host " + a.id.to_string() + " " + region.to_string()});
  CaseStep step;
  step.kind = CaseStep::Kind::kRead;
  step.array = a.id;
  step.region = region;
  step.values = pending_.back().expected;
  record(std::move(step));
}

void CaseRun::delete_step(size_t i) {
  const Live a = live_[i];
  log_ << "  delete " << a.id << "\n";
  live_.erase(live_.begin() + static_cast<std::ptrdiff_t>(i));
  if (!guard("delete_array", [&] { accept(planner_->delete_array(a.id)); })) return;
  ref_.destroy(a.id);
  CaseStep step;
  step.kind = CaseStep::Kind::kDelete;
  step.array = a.id;
  record(std::move(step));
}

void CaseRun::launch_step() {
  KernelVariant v;
  v.kind = static_cast<KernelKind>(uni(0, 9));
  std::vector<ArrayId> arrays;
  std::vector<int64_t> scalars;
  Rect domain;
  auto any = [](const Point&) { return true; };
  try {
    switch (v.kind) {
      case KernelKind::kStencil1D: {
        const int64_t n = uni(3, limits_.max_extent_1d);
        ArrayId in = find_or_create(
            1, [](const Point& e) { return e[0] >= 3; }, [&] { return Point{n}; }, {});
        const Point e = ref_.extent(in);
        ArrayId out = find_or_create(
            1, [&](const Point& x) { return x == e; }, [&] { return e; }, {in});
        arrays = {in, out};
        domain = Rect(Point{1}, Point{e[0] - 1});
        break;
      }
      case KernelKind::kStencil2D: {
        ArrayId in = find_or_create(
            2, [](const Point& e) { return e[0] >= 3 && e[1] >= 3; },
            [&] { return random_extent(2, 3); }, {});
        const Point e = ref_.extent(in);
        ArrayId out = find_or_create(
            2, [&](const Point& x) { return x == e; }, [&] { return e; }, {in});
        arrays = {in, out};
        domain = Rect(Point{1, 1}, Point{e[0] - 1, e[1] - 1});
        break;
      }
      case KernelKind::kCopy:
      case KernelKind::kSaxpy: {
        v.rank = static_cast<int>(v.kind == KernelKind::kCopy ? uni(1, 3) : uni(1, 2));
        ArrayId a = find_or_create(v.rank, any, [&] { return random_extent(v.rank); }, {});
        const Point e = ref_.extent(a);
        ArrayId b = find_or_create(
            v.rank, [&](const Point& x) { return x == e; }, [&] { return e; }, {a});
        arrays = {a, b};
        domain = chance(0.3) ? random_subbox(e, chance(0.1)) : Rect::from_extent(e);
        break;
      }
      case KernelKind::kShift: {
        ArrayId a = find_or_create(1, any, [&] { return random_extent(1); }, {});
        ArrayId b = find_or_create(1, any, [&] { return random_extent(1); }, {a});
        arrays = {a, b, ArrayId()};
        const int64_t na = ref_.extent(a)[0], nb = ref_.extent(b)[0];
        const int64_t k = uni(-std::min<int64_t>(nb - 1, 5), std::min<int64_t>(na - 1, 5));
        scalars = {0, 0, k};
        domain = Rect(Point{std::max<int64_t>(0, -k)}, Point{std::min(nb, na - k)});
        break;
      }
      case KernelKind::kMatmul: {
        ArrayId A = find_or_create(2, any, [&] { return random_extent(2); }, {});
        const Point ea = ref_.extent(A);
        const int64_t p = ea[1];
        ArrayId B = find_or_create(
            2, [&](const Point& x) { return x[0] == p; },
            [&] {
              return Point{p, uni(1, limits_.max_extent_2d)};
            },
            {});
        const Point eb = ref_.extent(B);
        const Point ec{ea[0], eb[1]};
        ArrayId C = find_or_create(
            2, [&](const Point& x) { return x == ec; }, [&] { return ec; }, {A, B});
        arrays = {A, B, C, ArrayId()};
        scalars = {0, 0, 0, p};
        domain = Rect::from_extent(ec);
        break;
      }
      case KernelKind::kRowReduce: {
        const int op = static_cast<int>(uni(0, 2));
        v.op = op == 0 ? ReduceOp::kSum : op == 1 ? ReduceOp::kMin : ReduceOp::kMax;
        ArrayId A = find_or_create(2, any, [&] { return random_extent(2); }, {});
        const Point ea = ref_.extent(A);
        ArrayId s = find_or_create(
            1, [&](const Point& x) { return x[0] == ea[0]; }, [&] { return Point{ea[0]}; }, {A});
        arrays = {A, s};
        domain = chance(0.3) ? random_subbox(ea, false) : Rect::from_extent(ea);
        break;
      }
      case KernelKind::kScalarSum: {
        v.rank = static_cast<int>(uni(1, 2));
        v.scalar_type = chance(0.5) ? DataType::kInt64 : DataType::kFloat64;
        ArrayId a = find_or_create(v.rank, any, [&] { return random_extent(v.rank); }, {});
        arrays = {a};
        const Point e = ref_.extent(a);
        domain = chance(0.3) ? random_subbox(e, false) : Rect::from_extent(e);
        break;
      }
      case KernelKind::kPrefixSum: {
        v.scalar_type = chance(0.5) ? DataType::kInt64 : DataType::kFloat64;
        ArrayId a = find_or_create(1, any, [&] { return random_extent(1); }, {});
        const Point e = ref_.extent(a);
        ArrayId b = find_or_create(
            1, [&](const Point& x) { return x == e; }, [&] { return e; }, {a});
        arrays = {a, b};
        domain = chance(0.3) ? random_subbox(e, chance(0.1)) : Rect::from_extent(e);
        break;
      }
      case KernelKind::kStridedWrite: {
        ArrayId a = find_or_create(1, any, [&] { return random_extent(1); }, {});
        ArrayId b = find_or_create(1, any, [&] { return random_extent(1); }, {a});
        arrays = {a, b};
        const int64_t na = ref_.extent(a)[0], nb = ref_.extent(b)[0];
        domain = Rect(Point{0}, Point{std::min(na, (nb + 1) / 2)});
        break;
      }
    }
  } catch (const AbortCase&) {
    return;
  }
  for (ArrayId a : arrays)
    if (a.valid()) v.types.push_back(ref_.type(a));
  if (scalars.empty()) scalars.assign(arrays.size(), 0);
  const TestKernel& kernel = kernels_.get(v);

  LaunchRequest req;
  req.kernel = kernel.id;
  req.name = kernel.name;
  req.annotation = &kernels_.bound(kernel);
  req.arrays = arrays;
  req.scalars = scalars;
  req.domain = domain;
  Point block = Point::filled(domain.rank(), 1);
  for (int a = 0; a < domain.rank(); ++a)
    if (chance(0.4)) block[a] = uni(2, 4);
  req.block_size = block;
  std::string work_text = "?";
  const bool ok = guard("work distribution", [&] {
    req.work = random_work(domain, block, arrays);
    work_text = req.work.to_string();
  });
  if (!ok) {
    log_ << "  (work distribution failed)\n";
    return;
  }
  submit_launch(kernel, req);
}

void CaseRun::repeat_launch() {
  if (!last_) return;
  for (ArrayId a : last_->req.arrays)
    if (a.valid() && !ref_.has(a)) return;
  log_ << "  (the same launch again)\n";
  submit_launch(*last_->kernel, last_->req);
}

void CaseRun::submit_launch(const TestKernel& kernel, LaunchRequest req) {
  last_ = LastLaunch{&kernel, req};
  std::optional<HostBufferId> result;
  if (kernel.has_scalar_result) {
    result = HostBufferId{next_buffer_++};
    req.scalar_reduction =
        ScalarReduction{chance(0.7) ? Reduction::custom(size_of(kernel.scalar_type))
                                    : Reduction::builtin(ReduceOp::kSum, kernel.scalar_type),
                        *result};
  }
  if (kernel.scans) {
    req.scan = ScanRequest{chance(0.5) ? Reduction::custom(size_of(kernel.scalar_type))
                                       : Reduction::builtin(ReduceOp::kSum, kernel.scalar_type),
                           std::nullopt};
    if (chance(0.6)) result = req.scan->total = HostBufferId{next_buffer_++};
  }
  log_ << "  launch " << kernel.name << " `" << kernel.annotation << "` arrays ("
       << join_ids(req.arrays) << ") k/p=" << req.scalars.back() << " domain "
       << req.domain.to_string() << " block " << req.block_size.to_string() << " "
       << req.work.to_string()
       << (result ? " scalar result buffer " + std::to_string(result->value) : "") << "\n";
  ++stats_.launches;
  if (result) sim_->add_scalar_result(*result, kernel.scalar_type, 0);
  const bool ok = guard("launch", [&] {
    Plan plan = planner_->launch(req);
    ++stats_.kernels[name_of(kernel.kind)];
    sim_->add_launch(plan.request, {&kernel, req.arrays, req.scalars});
    accept(plan);
  });
  if (!ok) return;
  const std::optional<double> expected = ref_.launch(kernel, req.arrays, req.scalars, req.domain);
  CaseStep step;
  step.kind = CaseStep::Kind::kLaunch;
  step.kernel = &kernel;
  step.request = req;
  step.expected_scalar = expected;
  record(std::move(step));
  if (result) {
    pending_.push_back(
        {*result, ArrayId(), Rect(), {*expected}, "scalar result of " + kernel.name});
  }
}

void CaseRun::check_coherence() {
  // With everything submitted done, every copy of every element (halos, replicas) holds the
  // element's value: the planner keeps copies coherent eagerly.
  for (const Live& a : live_) {
    const ArrayState& state = planner_->array(a.id);
    for (size_t i = 0; i < state.chunk_ids.size(); ++i) {
      Rect box;
      std::vector<double> values;
      std::vector<uint8_t> defined;
      if (!sim_->chunk_contents(state.chunk_ids[i], box, values, defined)) {
        ADD_FAILURE() << "chunk " << state.chunk_ids[i] << " (layout chunk " << i << ") of " << a.id
                      << " does not exist in the simulator";
        continue;
      }
      size_t k = 0, bad = 0;
      std::ostringstream first;
      box.for_each_point([&](const Point& p) {
        const double want = ref_.at(a.id, p);
        if ((!defined[k] || values[k] != want) && bad++ < 3)
          first << " " << p.to_string() << ": "
                << (defined[k] ? "holds " + std::to_string(values[k]) : std::string("undefined"))
                << " expected " << want << ";";
        ++k;
      });
      stats_.chunk_elements_checked += values.size();
      if (bad)
        ADD_FAILURE() << "copies incoherent: chunk " << state.chunk_ids[i] << " " << box.to_string()
                      << " of " << a.id << " (" << (*state.layout)[i].to_string() << ") has " << bad
                      << " stale or undefined elements:" << first.str();
    }
  }
}

void CaseRun::run_and_check() {
  sim_->run();
  for (const PendingRead& r : pending_) {
    const std::vector<double> got = sim_->host_values(r.buffer, r.what);
    size_t bad = 0;
    std::ostringstream first;
    size_t i = 0;
    const Rect box = r.array.valid() ? r.region : Rect();
    box.for_each_point([&](const Point& p) {
      if (i < got.size() && got[i] != r.expected[i] && bad++ < 4)
        first << " " << p.to_string() << ": got " << got[i] << " expected " << r.expected[i] << ";";
      ++i;
    });
    ++stats_.reads_checked;
    stats_.elements_checked += got.size();
    if (bad) ADD_FAILURE() << r.what << ": " << bad << " wrong elements:" << first.str();
  }
  pending_.clear();
  check_coherence();
  // Everything submitted ran: like the driver after a completed fence, let the planner forget.
  if (chance(0.5)) {
    log_ << "  (retire_before T" << max_task_ << ")\n";
    planner_->retire_before(TaskId(max_task_));
    checker_->retire_before(TaskId(max_task_));
  }
}

void CaseRun::run() {
  const size_t failures_before = failure_parts();
  // Cluster.
  const int workers = static_cast<int>(uni(limits_.min_workers, limits_.max_workers));
  if (limits_.uniform_clusters || chance(0.5)) {
    devices_ =
        DeviceSet::uniform(workers, static_cast<int>(uni(1, limits_.max_devices_per_worker)));
  } else {
    std::vector<int> counts(static_cast<size_t>(workers));
    for (int& c : counts)
      c = static_cast<int>(uni(chance(0.1) ? 0 : 1, limits_.max_devices_per_worker));
    if (counts[0] == 0 && std::all_of(counts.begin(), counts.end(), [](int c) { return c == 0; }))
      counts[0] = 1;
    devices_ = DeviceSet::from_counts(counts);
  }
  const std::string context = "case " + std::to_string(index_) +
                              " (LIGHTNING_PROPERTY_SEED=" + std::to_string(seed_) +
                              " LIGHTNING_PROPERTY_CASES=1 replays it): ";
  log_ << context << "devices " << devices_.describe() << " (per worker:";
  for (size_t w = 0; w < devices_.num_workers(); ++w)
    log_ << " " << devices_.device_count(WorkerId(w));
  log_ << ")\n";
  planner_ = std::make_unique<Planner>(devices_);
  checker_ = std::make_unique<PlanChecker>(devices_, [this](ArrayId a) -> size_t {
    auto it = types_.find(a);
    return it == types_.end() ? 0 : size_of(it->second);
  });
  sim_ = std::make_unique<PlanSimulator>(devices_, seed_ ^ 0x9E3779B97F4A7C15ull);
  checker_->set_context(context);
  sim_->set_context(context);
  {
    ::testing::ScopedTrace trace(__FILE__, __LINE__, context);
    const int initial = static_cast<int>(uni(1, limits_.max_initial_arrays));
    for (int i = 0; i < initial && !aborted_; ++i) {
      const int rank = static_cast<int>(uni(0, 9) < 6 ? 1 : uni(0, 9) < 8 ? 2 : 3);
      create_array(random_type(), random_extent(rank));
    }
    const int requests = static_cast<int>(uni(1, limits_.max_requests));
    for (int r = 0; r < requests && !aborted_; ++r) {
      const int what = static_cast<int>(uni(0, 99));
      if (what < 50 || live_.empty()) {
        launch_step();
      } else if (what < 57) {
        repeat_launch();
      } else if (what < 62) {
        const Live& a = pick(live_);
        fill_step(a, random_subbox(a.extent, chance(0.05)));
      } else if (what < 69) {
        const Live& a = pick(live_);
        write_step(a, random_subbox(a.extent, chance(0.05)));
      } else if (what < 82) {
        const Live a = pick(live_);
        read_step(a, random_subbox(a.extent, chance(0.05)));
        run_and_check();
      } else if (what < 87) {
        delete_step(static_cast<size_t>(uni(0, static_cast<int64_t>(live_.size()) - 1)));
      } else if (what < 92) {
        log_ << "  fence\n";
        if (guard("fence", [&] { accept(planner_->fence()); })) record(CaseStep{});
      } else {
        create_array(random_type(), random_extent(static_cast<int>(uni(1, 2))));
      }
    }
    if (!aborted_) {
      // Read everything back, then delete everything: no chunk may be left.
      log_ << "  (end: read back every array, delete every array)\n";
      for (const Live& a : std::vector<Live>(live_)) read_step(a, Rect::from_extent(a.extent));
      run_and_check();
      while (!live_.empty() && !aborted_) delete_step(live_.size() - 1);
      sim_->run();
      if (!aborted_) {
        EXPECT_EQ(sim_->live_chunks(), 0u) << "chunks left after deleting every array";
        EXPECT_EQ(checker_->live_chunks(), 0u) << "chunks left after deleting every array";
      }
    }
    stats_.threads += sim_->executed_threads();
    stats_.cache_hits += planner_->cache_stats().hits;
    stats_.cache_misses += planner_->cache_stats().misses;
  }
  ++stats_.cases;
  if (script_) {
    script_->devices = devices_;
    script_->description = log_.str();
    script_->complete = !aborted_;
  }
  if (failure_parts() != failures_before) ADD_FAILURE() << "the failing case:\n" << log_.str();
}

}  // namespace

RandomCaseRunner::RandomCaseRunner(CaseLimits limits) : limits_(limits), kernels_(cache_) {}

bool RandomCaseRunner::run(uint64_t seed, int index, CaseScript* script) {
  const size_t before = failure_parts();
  if (script) *script = CaseScript{};
  CaseRun(seed, index, limits_, kernels_, stats_, script).run();
  return failure_parts() == before;
}

}  // namespace lightning::planner::testing
