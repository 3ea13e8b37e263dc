#include "core/rect.hpp"

namespace lightning {

std::string Rect::to_string() const {
  if (rank() == 0) return "[]";
  if (empty()) return "empty(" + std::to_string(rank()) + ")";
  std::string s;
  for (int a = 0; a < rank(); ++a) {
    if (a) s += " x ";
    s += "[" + std::to_string(lo_[a]) + ", " + std::to_string(hi_[a]) + ")";
  }
  return s;
}

}  // namespace lightning
