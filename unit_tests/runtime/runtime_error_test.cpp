// Failures: a clear error at the next fence or read, naming the culprit, and a runtime that
// stays usable; nothing hangs.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.hpp"
#include "driver/worker_service.hpp"
#include "runtime_fixture.hpp"
#include "test_kernels.hpp"

namespace lightning::runtime_test {
namespace {

class RuntimeError : public RuntimeTest {
 protected:
  driver::Launch saxpy(ArrayId x, ArrayId y, Saxpy& k, int64_t n) {
    driver::Launch l;
    l.kernel = kSaxpy;
    l.functor = &k;
    l.arrays = {x, y};
    l.domain = Rect(Point{0}, Point{n});
    l.block_size = Point{10};
    return l;
  }
};

TEST_P(RuntimeError, AFailingKernelIsNamedAtTheNextFenceAndTheRuntimeGoesOn) {
  const int64_t n = 400;
  std::vector<double> ones(n, 1.0);
  const ArrayId x = driver->create_array("x", DataType::kFloat64, Point{n}, dist::block(100));
  const ArrayId y = driver->create_array("y", DataType::kFloat64, Point{n}, dist::block(100));
  driver->write(x, Rect(Point{0}, Point{n}), ones.data());
  driver->write(y, Rect(Point{0}, Point{n}), ones.data());
  Saxpy bad{{}, {}, 2.0, 250};
  driver->launch(saxpy(x, y, bad, n));
  Saxpy after{{}, {}, 1.0, -1};
  driver->launch(saxpy(x, y, after, n));  // its superblock over [200, 300) cannot run
  try {
    driver->fence();
    FAIL() << "the failure was not reported";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    const std::string m = e.message();
    EXPECT_NE(m.find("kernel 'runtime_test::saxpy' failed on superblock [200, 300)"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("element 250 is cursed"), std::string::npos) << m;
    EXPECT_NE(m.find("more failed or skipped tasks"), std::string::npos) << m;
    EXPECT_EQ(m.find("task failed"), std::string::npos) << "said once, by what(): " << m;
  }
  driver->fence();  // reported once

  // The other superblocks ran both launches: y = 1 + 2 + 1 = 4 there.
  std::vector<double> got(n);
  driver->read(y, Rect(Point{0}, Point{100}), got.data());
  EXPECT_EQ(got[0], 4.0);
  EXPECT_EQ(got[99], 4.0);

  // New work runs normally.
  const ArrayId z = driver->create_array("z", DataType::kFloat64, Point{n}, dist::block(50));
  driver->write(z, Rect(Point{0}, Point{n}), ones.data());
  driver->launch(saxpy(x, z, after, n));
  driver->read(z, Rect(Point{0}, Point{n}), got.data());
  EXPECT_EQ(got, std::vector<double>(n, 2.0));
}

TEST_P(RuntimeError, AChunkLargerThanADeviceFailsWithItsSizes) {
  if (!GetParam().device_memory) GTEST_SKIP() << "no device cap in this shape";
  const int64_t n = 4096;  // 32 KiB in one chunk, caps are 6 KiB
  const ArrayId big =
      driver->create_array("big", DataType::kFloat64, Point{n}, dist::centralized(DeviceId(0)));
  const double v = 3.0;
  driver->fill(big, Rect(Point{0}, Point{n}), &v);
  try {
    driver->fence();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("32 KiB"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("6 KiB"), std::string::npos) << e.message();
  }
  driver->delete_array(big);
  driver->fence();
  expect_no_memory_held();
}

LIGHTNING_RUNTIME_SHAPES(RuntimeError);

TEST(RuntimeTrace, EveryTaskIsASliceOnItsTrack) {
  const std::string path = ::testing::TempDir() + "lightning_trace_test.json";
  const int ranks = worker_count(1);  // under mpirun, one trace file per rank
  for (int r = 0; r < ranks; ++r) std::remove(driver::trace_path_of_rank(path, r).c_str());
  {
    Config c = config_of({"trace", 1, 2, std::nullopt, std::nullopt});
    c.trace = path;
    auto driver = make_driver(c);
    driver::Driver& d = *driver;
    const ArrayId a = d.create_array("a", DataType::kFloat64, Point{64}, dist::stencil(16, 1));
    const ArrayId b = d.create_array("b", DataType::kFloat64, Point{64}, dist::stencil(16, 1));
    const double zero = 0.0;
    d.fill(a, Rect(Point{0}, Point{64}), &zero);
    Stencil1D k{};
    driver::Launch l;
    l.kernel = kStencil1D;
    l.functor = &k;
    l.arrays = {a, b};
    l.domain = Rect(Point{1}, Point{63});
    l.block_size = Point{8};
    d.launch(l);
    d.fence();
  }  // the trace is written when the driver goes
  int kernels = 0, halo_copies = 0, halo_sends = 0;
  for (int r = 0; r < ranks; ++r) {
    const std::string file = driver::trace_path_of_rank(path, r);
    std::ifstream in(file);
    ASSERT_TRUE(in.good()) << file;
    const auto doc = nlohmann::json::parse(in);
    for (const auto& e : doc["traceEvents"]) {
      if (e["ph"] != "X") continue;
      if (e["name"] == "runtime_test::stencil") ++kernels;
      // Halo updates between the chunks of neighbouring devices: one element each, copied
      // within a rank, sent between ranks.
      if (e["name"] == "Copy" && e["args"]["bytes"] == 8) ++halo_copies;
      if (e["name"] == "Send" && e["args"]["bytes"] == 8) ++halo_sends;
    }
  }
  EXPECT_EQ(kernels, 4);                   // one per superblock
  EXPECT_EQ(halo_copies + halo_sends, 6);  // three inner seams, both ways
  if (ranks == 1)
    EXPECT_EQ(halo_sends, 0);  // in one process, every seam is a copy
  else
    EXPECT_GT(halo_sends, 0);  // four chunks over several ranks: some travel
}

// The program's own time is a track too: each launch's call, the wait for its value, reads,
// writes and fences, in the order the program made them, so that a trace tells
// the program's work from the workers' latency between two kernels.
TEST(RuntimeTrace, TheProgramsCallsAndWaitsAreSlicesOfItsTrack) {
  const std::string path = ::testing::TempDir() + "lightning_program_trace_test.json";
  std::remove(driver::trace_path_of_rank(path, 0).c_str());
  double value = -1;
  {
    Config c = config_of({"trace", 1, 2, std::nullopt, std::nullopt});
    c.trace = path;
    auto driver = make_driver(c);
    driver::Driver& d = *driver;
    const int64_t n = 64;
    const ArrayId a = d.create_array("a", DataType::kFloat64, Point{n}, dist::block(16));
    std::vector<double> ones(n, 1.0);
    d.write(a, Rect(Point{0}, Point{n}), ones.data());
    Dot k{};
    driver::Launch l;
    l.kernel = kDot;
    l.label = "dot";
    l.functor = &k;
    l.arrays = {a, a};
    l.domain = Rect(Point{0}, Point{n});
    l.block_size = Point{1};
    l.result = &value;
    d.launch(l);
    const double two = 2.0;
    d.fill(a, Rect(Point{0}, Point{n}), &two);
    d.fence();
    d.fence();  // nothing left to wait for: a slice all the same
    std::vector<double> back(n);
    d.read(a, Rect(Point{0}, Point{n}), back.data());
    d.delete_array(a);
  }
  EXPECT_EQ(value, 64.0);
  std::ifstream in(driver::trace_path_of_rank(path, 0));
  ASSERT_TRUE(in.good());
  const auto doc = nlohmann::json::parse(in);
  int program = -1;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "program")
      program = e["tid"];
  ASSERT_NE(program, -1) << "no program track";
  std::vector<std::string> names;
  double last_start = -1;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e["tid"] != program) continue;
    names.push_back(e["name"]);
    EXPECT_GE(e["ts"].get<double>(), last_start) << "in the order made";
    last_start = e["ts"].get<double>();
  }
  // The last fence is the driver's own, when it goes.
  EXPECT_EQ(names, (std::vector<std::string>{"write a", "launch dot", "value of dot", "fence",
                                             "fence", "read a", "fence"}));
}

}  // namespace
}  // namespace lightning::runtime_test

namespace lightning::runtime_test {
namespace {

TEST(RuntimeErrorCleanup, ArraysTouchedByAFailedKernelAreStillFreed) {
  auto driver = make_driver(config_of({"cleanup", 1, 2, 6 << 10, 12 << 10}));
  driver::Driver& d = *driver;
  const int64_t n = 400;
  std::vector<double> ones(n, 1.0);
  const ArrayId x = d.create_array("x", DataType::kFloat64, Point{n}, dist::block(100));
  const ArrayId y = d.create_array("y", DataType::kFloat64, Point{n}, dist::block(100));
  d.write(x, Rect(Point{0}, Point{n}), ones.data());
  d.write(y, Rect(Point{0}, Point{n}), ones.data());
  Saxpy bad{{}, {}, 2.0, 10};
  driver::Launch l;
  l.kernel = kSaxpy;
  l.functor = &bad;
  l.arrays = {x, y};
  l.domain = Rect(Point{0}, Point{n});
  l.block_size = Point{10};
  d.launch(l);
  d.delete_array(x);
  d.delete_array(y);
  EXPECT_THROW(d.fence(), Error);
  for (const auto& r : d.memory_reports()) {
    EXPECT_EQ(r.chunks, 0u);
    EXPECT_EQ(r.device_bytes, 0u);
    EXPECT_EQ(r.host_bytes, 0u);
    EXPECT_EQ(r.spill_files, 0u);
  }
}

}  // namespace
}  // namespace lightning::runtime_test
