#include "core/byte_size.hpp"

#include <string>

#include "core/error.hpp"

namespace lightning {

uint64_t byte_size(int64_t elements, uint64_t element_size, std::string_view what) {
  uint64_t bytes = 0;
  if (elements < 0 ||
      __builtin_mul_overflow(static_cast<uint64_t>(elements), element_size, &bytes) ||
      bytes > kMaxBytes)
    throw Error(ErrorKind::kInvalidArgument,
                std::string(what) + " holds " + std::to_string(elements) + " elements of " +
                    std::to_string(element_size) + " bytes: more than 2^63 - 1 bytes");
  return bytes;
}

}  // namespace lightning
