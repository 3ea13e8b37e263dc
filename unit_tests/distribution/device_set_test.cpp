#include "distribution/device_set.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace lightning {
namespace {

TEST(DeviceSet, FromCountsNumbersDevicesGloballyInWorkerOrder) {
  const DeviceSet set = DeviceSet::from_counts({2, 0, 3});
  ASSERT_EQ(set.size(), 5u);
  EXPECT_EQ(set.num_workers(), 3u);
  EXPECT_EQ(set.worker_of(DeviceId(1)), WorkerId(0));
  EXPECT_EQ(set.worker_of(DeviceId(2)), WorkerId(2));
  EXPECT_EQ(set.devices_of(WorkerId(1)), std::vector<DeviceId>{});
  EXPECT_EQ(set.devices_of(WorkerId(2)),
            (std::vector<DeviceId>{DeviceId(2), DeviceId(3), DeviceId(4)}));
  EXPECT_EQ(set.device_count(WorkerId(0)), 2u);
  EXPECT_EQ(set.device_count(WorkerId(9)), 0u);
  EXPECT_TRUE(set.contains(DeviceId(4)));
  EXPECT_FALSE(set.contains(DeviceId(5)));
  EXPECT_FALSE(set.contains(DeviceId()));
  EXPECT_TRUE(set.contains(WorkerId(2)));
  EXPECT_FALSE(set.contains(WorkerId(3)));
  EXPECT_EQ(set.describe(), "D0..D4 on W0..W2");
}

TEST(DeviceSet, ListConstructorAgreesWithCounts) {
  const DeviceSet list(
      {{DeviceId(0), WorkerId(0)}, {DeviceId(1), WorkerId(0)}, {DeviceId(2), WorkerId(1)}});
  EXPECT_EQ(list, DeviceSet::from_counts({2, 1}));
  EXPECT_EQ(DeviceSet::uniform(2, 2), DeviceSet::from_counts({2, 2}));
  EXPECT_EQ(DeviceSet(std::vector<DeviceInfo>{}), DeviceSet());
  EXPECT_EQ(DeviceSet().describe(), "no devices");
}

TEST(DeviceSet, RejectsIdsOutOfOrderAndInterleavedWorkers) {
  try {
    DeviceSet({{DeviceId(1), WorkerId(0)}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(e.message().find("entry 0 has id D1"), std::string::npos) << e.message();
  }
  try {
    DeviceSet({{DeviceId(0), WorkerId(1)}, {DeviceId(1), WorkerId(0)}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("device D1 is on worker W0, after a device of W1"),
              std::string::npos)
        << e.message();
  }
  EXPECT_THROW(DeviceSet::from_counts({1, -1}), Error);
  EXPECT_THROW(DeviceSet::uniform(-1, 2), Error);
}

TEST(DeviceSet, UnknownIdsAreNamed) {
  const DeviceSet set = DeviceSet::uniform(1, 4);
  try {
    set.require(DeviceId(7), "chunk 3 [0, 10)");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDistribution);
    EXPECT_EQ(e.message(), "chunk 3 [0, 10) is on device D7, but the cluster has devices D0..D3");
  }
  EXPECT_THROW(set.worker_of(DeviceId(4)), Error);
  EXPECT_THROW(set.devices_of(WorkerId(1)), Error);
}

}  // namespace
}  // namespace lightning
