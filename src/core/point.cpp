#include "core/point.hpp"

namespace lightning {

std::string Point::to_string() const {
  std::string s = "(";
  for (int a = 0; a < rank(); ++a) {
    if (a) s += ", ";
    s += std::to_string(c_[a]);
  }
  return s + ")";
}

}  // namespace lightning
