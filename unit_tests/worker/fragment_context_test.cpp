// What travels with a fragment: found by id, replaced by id, and a missing one named.
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
