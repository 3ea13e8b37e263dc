// The check of a kernel's bytes for host addresses that cannot go where the kernel runs.
#pragma once

#include <cstddef>
#include <string>

namespace lightning::detail {

class KokkosToolHooks;

/// Throws Error(kInvalidArgument) naming the culprit when the `size` bytes at `closure` (a
/// functor's or a lambda's, as the runtime will copy them to every device and rank) hold the
/// address of a live Kokkos allocation (a captured plain Kokkos::View, or a pointer into
/// one; `hooks` knows them, null: not checked) or of the calling thread's stack (a capture
/// by reference, or a pointer to a local variable). `what` names the kernel for the message.
/// Pointers to other heap memory cannot be told from numbers and pass.
void check_closure(const std::string& what, const void* closure, std::size_t size,
                   const KokkosToolHooks* hooks);

}  // namespace lightning::detail
