#include "core/error.hpp"

#include <gtest/gtest.h>

namespace lightning {
namespace {

TEST(Error, CarriesKindMessageAndContext) {
  try {
    try {
      throw Error(ErrorKind::kOutOfMemory, "chunk C4 needs 96 MiB, device D1 has 64 MiB");
    } catch (Error& e) {
      throw e.with_context("while staging task T9 (kernel 'stencil', superblock [0, 64000))");
    }
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kOutOfMemory);
    EXPECT_EQ(e.message(), "chunk C4 needs 96 MiB, device D1 has 64 MiB");
    ASSERT_EQ(e.context().size(), 1u);
    EXPECT_STREQ(e.what(),
                 "lightning: out of memory: chunk C4 needs 96 MiB, device D1 has 64 MiB\n"
                 "  while staging task T9 (kernel 'stencil', superblock [0, 64000))");
    return;
  }
  FAIL() << "no exception";
}

TEST(Error, IsAStdException) {
  const Error e(ErrorKind::kConfig, "bad");
  const std::exception& base = e;
  EXPECT_STREQ(base.what(), "lightning: configuration error: bad");
}

}  // namespace
}  // namespace lightning
