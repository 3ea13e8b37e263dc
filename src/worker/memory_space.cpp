#include "worker/memory_space.hpp"

namespace lightning::worker {

std::string MemorySpace::to_string() const {
  switch (kind) {
    case Kind::kDevice:
      return device.to_string() + " memory";
    case Kind::kHost:
      return "host";
    case Kind::kDisk:
      return "disk";
  }
  return "?";
}

}  // namespace lightning::worker
