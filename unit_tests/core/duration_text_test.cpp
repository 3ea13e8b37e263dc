#include "core/duration_text.hpp"

#include <gtest/gtest.h>

namespace lightning {
namespace {

using std::chrono::microseconds;

TEST(DurationText, ParsesUnits) {
  EXPECT_EQ(parse_duration_text("0"), microseconds(0));
  EXPECT_EQ(parse_duration_text("250us"), microseconds(250));
  EXPECT_EQ(parse_duration_text("2ms"), microseconds(2000));
  EXPECT_EQ(parse_duration_text("5s"), microseconds(5000000));
  EXPECT_EQ(parse_duration_text("0ms"), microseconds(0));
}

TEST(DurationText, RejectsMalformedAndOverflow) {
  for (const char* bad : {"", "ms", "5", "-1ms", "1.5s", "5 s", "5min", "5sec", "0x10ms",
                          "99999999999999999999us", "9223372036854775807s"})
    EXPECT_FALSE(parse_duration_text(bad).has_value()) << bad;
}

TEST(DurationText, FormatsInTheLargestWholeUnit) {
  EXPECT_EQ(format_duration(microseconds(0)), "0us");
  EXPECT_EQ(format_duration(microseconds(250)), "250us");
  EXPECT_EQ(format_duration(microseconds(2000)), "2ms");
  EXPECT_EQ(format_duration(microseconds(5000000)), "5s");
  EXPECT_EQ(format_duration(microseconds(1500)), "1500us");
  for (const char* text : {"0us", "250us", "2ms", "5s"})
    EXPECT_EQ(format_duration(*parse_duration_text(text)), text);
}

}  // namespace
}  // namespace lightning
