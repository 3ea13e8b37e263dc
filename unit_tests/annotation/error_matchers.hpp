// Helpers for golden error messages in the annotation tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

namespace lightning::annotation::testing {

/// The message of the Error(kAnnotation) that `f` throws; fails the test if it throws
/// nothing or something else.
template <class F>
std::string annotation_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kAnnotation) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "no error thrown";
  return {};
}

}  // namespace lightning::annotation::testing
