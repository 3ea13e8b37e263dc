#include "closure_check.hpp"

#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"
#include "kokkos_tool_hooks.hpp"

namespace lightning::detail {

namespace {

/// The calling thread's stack, [low, high); empty when the system does not say.
struct StackRange {
  uintptr_t low = 0, high = 0;
};

StackRange this_thread_stack() {
  thread_local const StackRange range = [] {
    StackRange r;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return r;
    void* base = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &base, &size) == 0) {
      r.low = reinterpret_cast<uintptr_t>(base);
      r.high = r.low + size;
    }
    pthread_attr_destroy(&attr);
    return r;
  }();
  return range;
}

}  // namespace

void check_closure(const std::function<std::string()>& what, const void* closure, std::size_t size,
                   const std::vector<std::pair<std::size_t, std::size_t>>& listed,
                   const std::vector<std::pair<std::size_t, std::size_t>>* padding,
                   const KokkosToolHooks* hooks) {
  const auto* bytes = static_cast<const unsigned char*>(closure);
  // Only the live part of the stack counts: what a reference capture points at is a local of
  // a caller, above this frame. Below it lie dead frames, whose old addresses are what the
  // padding of a closure (after a captured float, say) holds by chance; counting the whole
  // stack took such a padding word for a reference now and then (about one word in 500).
  StackRange stack = this_thread_stack();
  stack.low = std::max(stack.low, reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  // Addresses sit at pointer-aligned places of the closure (its members are aligned).
  const auto start = reinterpret_cast<uintptr_t>(bytes);
  const std::size_t first = (sizeof(void*) - start % sizeof(void*)) % sizeof(void*);
  for (std::size_t at = first; at + sizeof(uintptr_t) <= size; at += sizeof(uintptr_t)) {
    const auto overlaps = [&](const std::pair<std::size_t, std::size_t>& m) {
      return m.first < at + sizeof(uintptr_t) && at < m.second;
    };
    if (std::any_of(listed.begin(), listed.end(), overlaps)) continue;
    uintptr_t word = 0;
    std::memcpy(&word, bytes + at, sizeof word);
    if (padding)
      for (const auto& [begin, end] : *padding)
        for (std::size_t b = std::max(begin, at); b < std::min(end, at + sizeof word); ++b)
          reinterpret_cast<unsigned char*>(&word)[b - at] = 0;
    if (word == 0) continue;
    if (word >= stack.low && word < stack.high)
      throw Error(ErrorKind::kInvalidArgument,
                  what() + ": byte " + std::to_string(at) +
                      " of its closure holds an address on this thread's stack: it captures a "
                      "variable by reference ([&] or [&x]), a pointer to a local variable, or "
                      "`this` of an object on the stack. The runtime copies a kernel's bytes to "
                      "other threads and ranks, where that address means nothing: capture "
                      "values ([=], KOKKOS_LAMBDA) and lightning::Views");
    if (!hooks) continue;
    if (auto label = hooks->allocation_holding(word))
      throw Error(ErrorKind::kInvalidArgument,
                  what() + ": byte " + std::to_string(at) +
                      " of its closure holds an address inside Kokkos::View '" + *label +
                      "' (a captured plain Kokkos::View, or a pointer into one). Its memory "
                      "exists only in this process, on the host: make it a lightning::View "
                      "(lightning::ViewOf<lightning::Distributed, T*>) and name it in the "
                      "annotation");
  }
}

}  // namespace lightning::detail
