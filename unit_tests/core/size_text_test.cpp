#include "core/size_text.hpp"

#include <gtest/gtest.h>

namespace lightning {
namespace {

TEST(SizeText, ParsesUnits) {
  EXPECT_EQ(parse_size_text("1024"), 1024u);
  EXPECT_EQ(parse_size_text("17B"), 17u);
  EXPECT_EQ(parse_size_text("64MiB"), 64ull << 20);
  EXPECT_EQ(parse_size_text("64mib"), 64ull << 20);
  EXPECT_EQ(parse_size_text("2GB"), 2'000'000'000ull);
  EXPECT_EQ(parse_size_text("2G"), 2ull << 30);
  EXPECT_EQ(parse_size_text("512k"), 512ull << 10);
  EXPECT_EQ(parse_size_text("3 KB"), 3000u);
  EXPECT_EQ(parse_size_text(" 1TiB "), 1ull << 40);
  EXPECT_EQ(parse_size_text("0"), 0u);
}

TEST(SizeText, RejectsMalformedAndOverflow) {
  for (const char* bad : {"", "MiB", "-1", "1.5GiB", "12 parsecs", "1 MiB x", "0x10",
                          "99999999999999999999", "17179869184GiB"})
    EXPECT_FALSE(parse_size_text(bad).has_value()) << bad;
}

TEST(SizeText, Formats) {
  EXPECT_EQ(format_size(17), "17 B");
  EXPECT_EQ(format_size(64ull << 20), "64 MiB");
  EXPECT_EQ(format_size(3ull << 29), "1.5 GiB");
}

}  // namespace
}  // namespace lightning
