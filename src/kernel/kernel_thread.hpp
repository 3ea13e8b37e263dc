// Whether the calling thread is running a kernel's body on a host device: a device's compute
// thread inside a superblock, or a member thread of a team. Array Views copied there (a
// subview, `auto b = a;`) are copies of a handle, not new owners: their reference count is
// the launching program's, which on another rank lives in another process (the kernel's bytes
// came over the network), so it must not be touched. Kokkos disables its View tracking inside
// parallel dispatch for the same reason.
#pragma once

namespace lightning::kernel {

/// True on a thread inside a KernelThreadScope.
bool in_kernel_body() noexcept;

/// Marks the calling thread as running a kernel's body for its lifetime (nests).
class KernelThreadScope {
 public:
  KernelThreadScope() noexcept;
  ~KernelThreadScope();
  KernelThreadScope(const KernelThreadScope&) = delete;
  KernelThreadScope& operator=(const KernelThreadScope&) = delete;

 private:
  bool outer_;
};

}  // namespace lightning::kernel
