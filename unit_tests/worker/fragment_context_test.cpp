// What travels with a fragment: found by id, replaced by id, and a missing one named; launch
// data equal field by field.
#include "worker/fragment_context.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

TEST(FragmentContext, FindsLaunchesAndBuffersByIdAndReplacesThem) {
  FragmentContext context;
  auto first = std::make_shared<LaunchData>();
  first->name = "first";
  auto second = std::make_shared<LaunchData>();
  second->name = "second";
  context.add_launch(LaunchId(3), first);
  context.add_launch(LaunchId(5), second);
  EXPECT_EQ(context.launch(LaunchId(3))->name, "first");
  EXPECT_EQ(context.launch(LaunchId(5))->name, "second");
  EXPECT_EQ(context.find_launch(LaunchId(4)), nullptr);
  context.add_launch(LaunchId(3), second);
  EXPECT_EQ(context.launch(LaunchId(3))->name, "second");
  EXPECT_EQ(context.launches().size(), 2u);

  int a = 0, b = 0;
  context.add_host_buffer(7, {&a, Rect(), 4});
  context.add_host_buffer(9, {&b, Rect(Point{0}, Point{1}), 4});
  EXPECT_EQ(context.host_buffer(7).data, &a);
  EXPECT_EQ(context.host_buffer(9).data, &b);
  context.add_host_buffer(7, {&b, Rect(), 8});
  EXPECT_EQ(context.host_buffer(7).data, &b);
  EXPECT_EQ(context.host_buffer(7).element_size, 8u);
}

// A repeated launch is recognised by equal data: any field that differs makes it another.
TEST(LaunchData, EqualOnlyWhenEveryFieldIs) {
  LaunchData a{KernelId(4), "saxpy",
               {1, 2, 3},   {Point{8}, Point()},
               {{0, 8, 1}}, Reduction::builtin(ReduceOp::kSum, DataType::kFloat64)};
  EXPECT_TRUE(a == a);
  const std::vector<void (*)(LaunchData&)> changes = {
      [](LaunchData& d) { d.kernel = KernelId(5); },
      [](LaunchData& d) { d.name = "axpy"; },
      [](LaunchData& d) { d.functor[2] = 4; },  // a scalar of the functor
      [](LaunchData& d) { d.functor.push_back(0); },
      [](LaunchData& d) { d.extents[0] = Point{9}; },
      [](LaunchData& d) { d.arrays[0].param = 1; },
      [](LaunchData& d) { d.arrays[0].byte_offset = 16; },
      [](LaunchData& d) { d.arrays[0].rank = 2; },
      [](LaunchData& d) {
        d.arrays.push_back({1, 16, 1});
      },
      [](LaunchData& d) { d.reduction = Reduction::builtin(ReduceOp::kMax, DataType::kFloat64); },
  };
  for (size_t i = 0; i < changes.size(); ++i) {
    LaunchData b = a;
    changes[i](b);
    EXPECT_FALSE(a == b) << "change " << i;
    EXPECT_FALSE(b == a) << "change " << i;
  }
}

TEST(FragmentContext, AMissingLaunchOrBufferIsAnInternalErrorNamingIt) {
  FragmentContext context;
  try {
    context.launch(LaunchId(12));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(std::string(e.what()).find("L12"), std::string::npos) << e.what();
  }
  try {
    context.host_buffer(4);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    EXPECT_NE(std::string(e.what()).find("host buffer 4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lightning::worker
