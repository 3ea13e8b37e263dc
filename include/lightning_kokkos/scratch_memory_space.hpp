// Kokkos::ScratchMemorySpace<lightning::Distributed>: a team's scratch memory, the interface
// of Kokkos' own (scratch Views allocate from it), except that a View that does not fit in
// the bytes the launch set with TeamPolicy::set_scratch_size fails the launch with an error
// naming the level and the sizes, where Kokkos' would hand the View a null pointer.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

namespace lightning {
class Distributed;
namespace detail {
/// Throws the error of a scratch allocation of `asked` bytes at `level` when `left` of the
/// team's `capacity` bytes remain.
[[noreturn]] void throw_scratch_exhausted(int level, uint64_t asked, uint64_t left,
                                          uint64_t capacity);
}  // namespace detail
}  // namespace lightning

namespace Kokkos {

template <>
class ScratchMemorySpace<lightning::Distributed> {
 public:
  using memory_space = ScratchMemorySpace<lightning::Distributed>;
  using execution_space = lightning::Distributed;
  using device_type = Kokkos::Device<execution_space, memory_space>;
  using array_layout = Kokkos::LayoutRight;
  using size_type = int64_t;

  /// The alignment scratch Views ask for at least (Kokkos' value).
  static constexpr int ALIGN = 8;
  static constexpr const char* name() { return "ScratchMemorySpace"; }

  template <class Int>
  static constexpr Int align(const Int& size) {
    return (size + ALIGN - 1) & ~Int(ALIGN - 1);
  }

  ScratchMemorySpace() = default;
  template <class Int>
  ScratchMemorySpace(void* level0, const Int& size0, void* level1 = nullptr, const Int& size1 = 0)
      : begin_{static_cast<char*>(level0), static_cast<char*>(level1)},
        iter_{static_cast<char*>(level0), static_cast<char*>(level1)},
        end_{static_cast<char*>(level0) + size0, static_cast<char*>(level1) + size1} {}

  template <class Int>
  void* get_shmem(const Int& size, int level = -1) const {
    return allocate(static_cast<uint64_t>(size), 1, level);
  }
  template <class Int>
  void* get_shmem_aligned(const Int& size, const ptrdiff_t alignment, int level = -1) const {
    return allocate(static_cast<uint64_t>(size), static_cast<uint64_t>(alignment), level);
  }

  /// Allocations that follow are from `level`, `multiplier` slices of each size of which this
  /// thread gets slice `offset` (team scratch: 1 and 0; thread scratch: team size and rank).
  const ScratchMemorySpace& set_team_thread_mode(const int& level, const int& multiplier,
                                                 const int& offset) const {
    level_ = level;
    multiplier_ = multiplier;
    offset_ = offset;
    return *this;
  }

 private:
  void* allocate(uint64_t size, uint64_t alignment, int level) const {
    if (level == -1) level = level_;
    const int l = level == 0 ? 0 : 1;
    const auto at = reinterpret_cast<uintptr_t>(iter_[l]);
    const uint64_t skip = alignment > 1 && at % alignment ? alignment - at % alignment : 0;
    const uint64_t left = static_cast<uint64_t>(end_[l] - iter_[l]);
    const uint64_t need = skip + size * static_cast<uint64_t>(multiplier_);
    if (need > left)
      lightning::detail::throw_scratch_exhausted(l, need, left,
                                                 static_cast<uint64_t>(end_[l] - begin_[l]));
    char* slice = iter_[l] + skip + size * static_cast<uint64_t>(offset_);
    iter_[l] += need;
    return slice;
  }

  char* begin_[2] = {nullptr, nullptr};
  mutable char* iter_[2] = {nullptr, nullptr};
  char* end_[2] = {nullptr, nullptr};
  mutable int level_ = 0;
  mutable int multiplier_ = 1;
  mutable int offset_ = 0;
};

}  // namespace Kokkos
