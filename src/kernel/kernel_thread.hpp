// Whether the calling thread is running a kernel's body on a host device: a device's compute
// thread inside a superblock, or a member thread of a team. Array Views copied there (a
// subview, `auto b = a;`) are copies of a handle, not new owners: their reference count is
// the launching program's, which on another rank lives in another process (the kernel's bytes
// came over the network), so it must not be touched. Kokkos disables its View tracking inside
// parallel dispatch for the same reason.
//
// The scope also knows the kernel's bytes and description, so that an error at an access can
// name the parameter it went through: on a rank other than the launching one, a View's own
// name is not known.
#pragma once

#include <string>

namespace lightning::kernel {

struct KernelDescription;

/// The kernel a thread runs: its bytes (as the thread sees them) and description.
struct KernelBytes {
  const void* functor = nullptr;
  const KernelDescription* description = nullptr;
};

/// True on a thread inside a KernelThreadScope.
bool in_kernel_body() noexcept;

/// The calling thread's kernel (empty outside a kernel, or where the scope was not told).
KernelBytes current_kernel() noexcept;

/// The name of the array parameter whose ArrayHandle lies at `handle` in the calling thread's
/// kernel's bytes; empty when none does (outside a kernel, or a copy of the View made in the
/// body).
std::string array_parameter_at(const void* handle);

/// Marks the calling thread as running a kernel's body for its lifetime (nests).
class KernelThreadScope {
 public:
  /// Keeps the thread's kernel as it is.
  KernelThreadScope() noexcept;
  /// Running `kernel` (a team's member threads pass their caller's current_kernel()).
  explicit KernelThreadScope(KernelBytes kernel) noexcept;
  ~KernelThreadScope();
  KernelThreadScope(const KernelThreadScope&) = delete;
  KernelThreadScope& operator=(const KernelThreadScope&) = delete;

 private:
  bool outer_;
  KernelBytes outer_kernel_;
};

}  // namespace lightning::kernel
