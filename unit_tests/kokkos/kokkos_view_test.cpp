// lightning::View's Kokkos surface, lifetime, copies and errors; the execution space.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "driver/driver.hpp"
#include "lightning_kokkos/kokkos_adapter.hpp"

namespace {

using V1 = lightning::View<float*>;
using C1 = lightning::View<const float*>;
using V2 = lightning::View<double**>;
using V3 = lightning::View<int***>;

static_assert(std::is_same_v<V1::value_type, float>);
static_assert(std::is_same_v<C1::value_type, const float>);
static_assert(std::is_same_v<C1::non_const_value_type, float>);
static_assert(std::is_same_v<V1::const_value_type, const float>);
static_assert(std::is_same_v<V2::data_type, double**>);
static_assert(std::is_same_v<V2::array_layout, Kokkos::LayoutRight>);
static_assert(std::is_same_v<V1::execution_space, lightning::Distributed>);
static_assert(std::is_same_v<V1::memory_space, lightning::DistributedMemory>);
static_assert(std::is_same_v<V1::device_type,
                             Kokkos::Device<lightning::Distributed, lightning::DistributedMemory>>);
static_assert(
    std::is_same_v<V3::HostMirror, Kokkos::View<int***, Kokkos::LayoutRight, Kokkos::HostSpace>>);
static_assert(V1::rank == 1 && V2::rank == 2 && V3::rank() == 3);
static_assert(std::is_convertible_v<V1, C1> && !std::is_convertible_v<C1, V1>);
static_assert(Kokkos::is_execution_space<lightning::Distributed>::value);
static_assert(Kokkos::is_memory_space<lightning::DistributedMemory>::value);
static_assert(sizeof(lightning::Distributed) <= 2 * sizeof(void*));
// The runtime patches the handle at the View's first byte.
static_assert(sizeof(V2) == sizeof(lightning::ArrayHandle<double, 2>) + sizeof(void*));

lightning::driver::Driver& driver() {
  return lightning::detail::runtime();
}

TEST(KokkosView, Surface) {
  V2 a("matrix", 6, 7);
  EXPECT_EQ(a.label(), "matrix");
  EXPECT_EQ(a.extent(0), 6u);
  EXPECT_EQ(a.extent(1), 7u);
  EXPECT_EQ(a.extent(2), 1u);
  EXPECT_EQ(a.extent_int(1), 7);
  EXPECT_EQ(a.size(), 42u);
  EXPECT_EQ(a.span(), 42u);
  EXPECT_EQ(a.stride(0), 7u);
  EXPECT_EQ(a.stride(1), 1u);
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.layout().dimension[1], 7u);
  V3 b("cube", 2, 3, 4);
  EXPECT_EQ(b.size(), 24u);
  V1 empty;
  EXPECT_EQ(empty.use_count(), 0);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_FALSE(empty.is_allocated());
}

TEST(KokkosView, LastHandleDeletesTheArray) {
  driver().fence();
  const size_t before = driver().array_count();
  {
    V1 a("a", 100);
    EXPECT_EQ(driver().array_count(), before + 1);
    {
      V1 copy = a;
      C1 view_of_const = a;
      V1 moved = std::move(copy);
      EXPECT_EQ(a.use_count(), 3);
      EXPECT_EQ(view_of_const.label(), "a");
      EXPECT_EQ(view_of_const.impl_array_id(), a.impl_array_id());
    }
    EXPECT_EQ(a.use_count(), 1);
    V1 other("other", 10);
    EXPECT_EQ(driver().array_count(), before + 2);
    other = a;  // drops "other"
    EXPECT_EQ(a.use_count(), 2);
    driver().fence();
    EXPECT_EQ(driver().array_count(), before + 1);
  }
  driver().fence();
  EXPECT_EQ(driver().array_count(), before);
}

TEST(KokkosView, HostElementAccessIsAClearError) {
  V1 a("a", 10);
  try {
    a(3) = 1.0f;
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "element access to lightning::View 'a' where its elements are not"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("Kokkos::deep_copy"), std::string::npos);
  }
  V3 b("b", 2, 2, 2);
  EXPECT_THROW(b(0, 1, 1), lightning::Error);
}

TEST(KokkosView, DeepCopyRoundTripsEveryRankAndLayout) {
  Kokkos::View<float*, Kokkos::HostSpace> h1("h1", 50);
  for (int i = 0; i < 50; ++i) h1(i) = static_cast<float>(i) * 0.5f;
  V1 a("a", 50);
  Kokkos::deep_copy(a, h1);
  auto m1 = Kokkos::create_mirror_view(a);
  static_assert(std::is_same_v<decltype(m1), V1::HostMirror>);
  EXPECT_EQ(m1.label(), "a_mirror");
  Kokkos::deep_copy(m1, a);
  for (int i = 0; i < 50; ++i) ASSERT_EQ(m1(i), h1(i));

  // LayoutLeft on the host goes through a row-major temporary.
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> h2("h2", 7, 5);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) h2(i, j) = i * 10 + j;
  V2 b("b", 7, 5, lightning::dist::rows(3));
  Kokkos::deep_copy(b, h2);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> back("back", 7, 5);
  Kokkos::deep_copy(back, b);
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 5; ++j) ASSERT_EQ(back(i, j), h2(i, j));

  V3 c("c", 3, 4, 5);
  Kokkos::deep_copy(c, 7);
  auto m3 = Kokkos::create_mirror(c);
  Kokkos::deep_copy(m3, c);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k) ASSERT_EQ(m3(i, j, k), 7);

  // From a View of const elements.
  C1 ca = a;
  Kokkos::View<float*, Kokkos::HostSpace> h3("h3", 50);
  Kokkos::deep_copy(h3, ca);
  EXPECT_EQ(h3(49), 24.5f);
}

TEST(KokkosView, DeepCopyChecksExtents) {
  V1 a("a", 10);
  Kokkos::View<float*, Kokkos::HostSpace> h("h", 11);
  try {
    Kokkos::deep_copy(h, a);
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("extents differ"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Kokkos::deep_copy(a, h), lightning::Error);
  V1 empty;
  EXPECT_THROW(Kokkos::deep_copy(empty, 1.0f), lightning::Error);
}

TEST(KokkosView, DeepCopyOfSubviewRanges) {
  const int n = 40, m = 30;
  Kokkos::View<int**, Kokkos::HostSpace> h("h", n, m);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) h(i, j) = i * 100 + j;
  lightning::View<int**> a("a", n, m, lightning::dist::tiles({16, 8}));
  Kokkos::deep_copy(a, h);

  // Read a box spanning several chunks, with a Kokkos::pair and a std::pair.
  Kokkos::View<int**, Kokkos::HostSpace> box("box", 13, 17);
  Kokkos::deep_copy(box, Kokkos::subview(a, Kokkos::pair<int, int>(10, 23), std::make_pair(5, 22)));
  for (int i = 0; i < 13; ++i)
    for (int j = 0; j < 17; ++j) ASSERT_EQ(box(i, j), h(10 + i, 5 + j));

  // Write rows 3 and 4 (every column) from a LayoutLeft view, fill a box with a scalar.
  Kokkos::View<int**, Kokkos::LayoutLeft, Kokkos::HostSpace> rows("rows", 2, m);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < m; ++j) rows(i, j) = -1 - j;
  Kokkos::deep_copy(Kokkos::subview(a, Kokkos::pair<int, int>(3, 5), Kokkos::ALL), rows);
  Kokkos::deep_copy(Kokkos::subview(a, std::make_pair(20, 40), std::make_pair(25, 30)), 7);
  auto all = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      const int expected = (i == 3 || i == 4) ? -1 - j : (i >= 20 && j >= 25) ? 7 : h(i, j);
      ASSERT_EQ(all(i, j), expected) << i << ", " << j;
    }

  // An empty range copies nothing; ranges outside the View and wrong extents are errors.
  Kokkos::View<int**, Kokkos::HostSpace> none("none", 0, m);
  Kokkos::deep_copy(none, Kokkos::subview(a, std::make_pair(7, 7), Kokkos::ALL));
  try {
    Kokkos::subview(a, std::make_pair(0, 5), std::make_pair(20, 31));
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'a': range [20, 31) of axis 1 is outside [0, 30)"),
              std::string::npos)
        << e.what();
  }
  try {
    Kokkos::deep_copy(box, Kokkos::subview(a, std::make_pair(0, 13), std::make_pair(0, 16)));
    FAIL() << "no error";
  } catch (const lightning::Error& e) {
    EXPECT_NE(std::string(e.what()).find("'a' (13, 16), Kokkos::View (13, 17)"), std::string::npos)
        << e.what();
  }
}

TEST(KokkosSpace, InstancesCarryTheirWorkDistribution) {
  lightning::Distributed plain;
  lightning::Distributed blocked(lightning::work::block(64000));
  lightning::Distributed copy = blocked;
  EXPECT_EQ(plain.work_distribution(), nullptr);
  ASSERT_NE(blocked.work_distribution(), nullptr);
  EXPECT_EQ(*blocked.work_distribution(), lightning::work::block(64000));
  EXPECT_TRUE(copy == blocked);
  EXPECT_TRUE(plain != blocked);
  // Every device of the run: two per rank (LIGHTNING_DEVICES=host:2 on every rank).
  EXPECT_EQ(lightning::Distributed::concurrency(),
            static_cast<int>(lightning::detail::runtime().devices().size()));
  EXPECT_EQ(lightning::Distributed::concurrency() % 2, 0);
  EXPECT_TRUE(lightning::Distributed::impl_is_initialized());
}

TEST(KokkosSpace, PrintConfigurationShowsTheRuntime) {
  std::ostringstream os;
  Kokkos::print_configuration(os);
  const std::string s = os.str();
  EXPECT_NE(s.find("lightning::Distributed:"), std::string::npos) << s;
  EXPECT_NE(s.find("devices"), std::string::npos) << s;
  EXPECT_NE(s.find("runtime devices:"), std::string::npos) << s;
}

std::vector<std::string>& fence_names() {
  static std::vector<std::string> names;
  return names;
}

TEST(KokkosSpace, FencesAreKokkosToolsEvents) {
  fence_names().clear();
  Kokkos::Tools::Experimental::set_begin_fence_callback(
      [](const char* name, uint32_t device, uint64_t*) {
        if (device == Kokkos::Tools::Experimental::device_id(lightning::Distributed()))
          fence_names().push_back(name);
      });
  lightning::Distributed().fence("my fence");
  Kokkos::fence();
  Kokkos::Tools::Experimental::set_begin_fence_callback(nullptr);
  ASSERT_GE(fence_names().size(), 2u);
  EXPECT_EQ(fence_names().front(), "my fence");
}

TEST(KokkosSpace, DefaultDistributionGivesEachDeviceAChunk) {
  // Indirectly: a View whose extent is smaller than the device count still works.
  V1 tiny("tiny", 1);
  Kokkos::deep_copy(tiny, 3.0f);
  Kokkos::View<float*, Kokkos::HostSpace> h("h", 1);
  Kokkos::deep_copy(h, tiny);
  EXPECT_EQ(h(0), 3.0f);
}

TEST(KokkosSpace, DeviceCountIsTheRuntimesDevices) {
  // main() starts every rank on LIGHTNING_DEVICES, host:2 unless the environment says more;
  // the count is over all ranks (mpirun's OMPI_COMM_WORLD_SIZE).
  if (std::string(std::getenv("LIGHTNING_DEVICES")) != "host:2") GTEST_SKIP() << "other devices";
  const char* ranks = std::getenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(lightning::device_count(), 2u * (ranks ? std::stoul(ranks) : 1u));
}

}  // namespace
