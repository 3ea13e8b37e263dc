#include "kokkos_test_tool.hpp"

#include <Kokkos_Core.hpp>
#include <atomic>
#include <mutex>

namespace lk_test {

namespace {

std::atomic<int> dispatches{0};
std::mutex label_mutex;
std::string last_label;

void begin_parallel_for(const char* label, uint32_t, uint64_t* id) {
  *id = static_cast<uint64_t>(++dispatches);
  std::lock_guard<std::mutex> lock(label_mutex);
  last_label = label ? label : "";
}

}  // namespace

void install_test_tool() {
  Kokkos::Tools::Experimental::set_begin_parallel_for_callback(&begin_parallel_for);
}

int tool_dispatches() {
  return dispatches.load();
}

std::string tool_last_label() {
  std::lock_guard<std::mutex> lock(label_mutex);
  return last_label;
}

}  // namespace lk_test
