#include "kernel/kernel_registry.hpp"
#include "kernel/reducer_registry.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "core/error.hpp"

namespace lightning::kernel {
namespace {

KernelInfo named(const std::string& name) {
  KernelInfo info;
  info.name = name;
  info.description.annotation = "global i => read a[i]";
  info.description.signature.add_array("a", DataType::kFloat32, 1);
  return info;
}

TEST(KernelRegistry, IdsComeFromNamesSoEveryProcessAgrees) {
  const KernelId id = KernelRegistry::add(named("registry_test::first"));
  EXPECT_EQ(id, KernelRegistry::id_of("registry_test::first"));
  EXPECT_TRUE(KernelRegistry::contains(id));
  EXPECT_EQ(KernelRegistry::get(id).name, "registry_test::first");
  EXPECT_NE(KernelRegistry::id_of("registry_test::first"),
            KernelRegistry::id_of("registry_test::other"));
}

TEST(KernelRegistry, ANameRegisteredTwiceOrAnUnknownIdIsAnError) {
  KernelRegistry::add(named("registry_test::twice"));
  try {
    KernelRegistry::add(named("registry_test::twice"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "kernel 'registry_test::twice' is registered twice: kernel names must be unique");
  }
  EXPECT_THROW(KernelRegistry::get(KernelId(12345)), Error);
}

// A launch's reduction runs with the kernel's own functions when custom, and must fit the
// kernel's value; a kernel without a reduction refuses one.
TEST(KernelInfo, ResolvesALaunchsReductionAgainstTheKernels) {
  KernelInfo sum = named("registry_test::sum");
  sum.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  EXPECT_EQ(sum.resolve(Reduction::builtin(ReduceOp::kMax, DataType::kFloat64), {}).op,
            ReduceOp::kMax);
  // Another type is refused, even of the same size: its fold would misread the partials.
  try {
    sum.resolve(Reduction::builtin(ReduceOp::kMax, DataType::kInt64), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "kernel 'registry_test::sum' reduces double values (8 bytes), but the launch folds "
              "int64_t (8 bytes) with 'max'");
  }
  try {
    sum.resolve(Reduction::builtin(ReduceOp::kMin, DataType::kFloat32), {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "kernel 'registry_test::sum' reduces double values (8 bytes), but the launch folds "
              "float (4 bytes) with 'min'");
  }
  EXPECT_THROW(sum.resolve(Reduction::custom(8), {}), Error);  // the kernel has no functions

  static auto init = [](const void*, void* v) { *static_cast<int*>(v) = 7; };
  static auto join = [](const void*, void* d, const void* s) {
    *static_cast<int*>(d) += 2 * *static_cast<const int*>(s);
  };
  KernelInfo custom = named("registry_test::custom");
  custom.reduction = Reduction::custom(sizeof(int), +init, +join);
  const Reduction r =
      custom.resolve(Reduction::custom(sizeof(int)), {});  // as it arrives on a rank
  int value = 0;
  r.init(&value);
  EXPECT_EQ(value, 7);
  const int three = 3;
  r.join(&value, &three);
  EXPECT_EQ(value, 13);
  // An array reduction (registered value size 0): each launch gives its size, and the
  // functions run on the launch's functor bytes (here: the element count and a fill value).
  struct Counted {
    int32_t count;
    int32_t fill;
  };
  static auto fill_init = [](const void* f, void* v) {
    const auto* c = static_cast<const Counted*>(f);
    for (int32_t i = 0; i < c->count; ++i) static_cast<int32_t*>(v)[i] = c->fill;
  };
  KernelInfo array = named("registry_test::array");
  array.functor_size = sizeof(Counted);
  array.reduction = Reduction::custom(0, +fill_init, +join);
  const Counted launched{3, 5};
  std::vector<uint8_t> bytes(sizeof launched);
  std::memcpy(bytes.data(), &launched, sizeof launched);
  const Reduction sized = array.resolve(Reduction::custom(3 * sizeof(int32_t)), bytes);
  EXPECT_EQ(sized.value_size, 3 * sizeof(int32_t));
  bytes.assign(bytes.size(), 0);  // the resolved reduction keeps its own copy
  int32_t values[3] = {};
  sized.init(values);
  EXPECT_EQ(values[0], 5);
  EXPECT_EQ(values[2], 5);
  EXPECT_THROW(array.resolve(Reduction::custom(0), bytes), Error);  // no value_count
  EXPECT_THROW(array.resolve(Reduction::custom(12), {}), Error);    // no functor bytes
  // A built-in operator on a kernel whose values are its own type is refused.
  EXPECT_THROW(custom.resolve(Reduction::builtin(ReduceOp::kSum, DataType::kInt32), {}), Error);

  EXPECT_THROW(named("registry_test::plain").resolve(sum.reduction.value(), {}), Error);

  // A registered reducer (a Kokkos MinLoc, say) arrives as its id and resolves to its own
  // functions on any kernel whose values have its size; its key names it.
  ReducerInfo twice;
  twice.name = "registry_test::twice";
  twice.value_size = sizeof(int);
  twice.init = +init;
  twice.join = +join;
  const uint64_t id = ReducerRegistry::add(twice);
  EXPECT_EQ(ReducerRegistry::add(twice), id);  // once per name
  Reduction arriving = Reduction::custom(sizeof(int));
  arriving.reducer = id;
  KernelInfo own_value = named("registry_test::own_value");
  own_value.reduction = Reduction::custom(sizeof(int));  // needs a reducer
  const Reduction by_reducer = own_value.resolve(arriving, {});
  EXPECT_EQ(by_reducer.reducer, id);
  by_reducer.init(&value);
  EXPECT_EQ(value, 7);
  EXPECT_NE(by_reducer.key(), Reduction::custom(sizeof(int)).key());
  EXPECT_THROW(own_value.resolve(Reduction::custom(sizeof(int)), {}), Error);  // no functions
  arriving.value_size = 8;
  EXPECT_THROW(custom.resolve(arriving, {}), Error);  // 8-byte values on a 4-byte kernel
  EXPECT_THROW(ReducerRegistry::get(id + 2), Error);
  KernelDescription given;
  given.annotation = "global i => write b[i]";
  EXPECT_EQ(&sum.described_by(nullptr), &sum.description);
  EXPECT_EQ(&sum.described_by(&given), &given);
}

}  // namespace
}  // namespace lightning::kernel
