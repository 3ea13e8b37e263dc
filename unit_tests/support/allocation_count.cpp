#include "allocation_count.hpp"

#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

namespace {
thread_local long allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace lightning::testing {

long allocations_on_this_thread() {
  return allocations;
}

bool allocations_are_counted() {
  const long before = allocations;
  auto probe = std::make_unique<std::vector<int>>(100);
  return probe->size() == 100 && allocations >= before + 2;
}

}  // namespace lightning::testing
