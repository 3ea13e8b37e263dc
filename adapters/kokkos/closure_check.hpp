// The check of a kernel's bytes for host addresses that cannot go where the kernel runs.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace lightning::detail {

class KokkosToolHooks;

/// Throws Error(kInvalidArgument) naming the culprit when the `size` bytes at `closure` (a
/// functor's or a lambda's, as the runtime will copy them to every device and rank) hold the
/// address of a live Kokkos allocation (a captured plain Kokkos::View, or a pointer into
/// one; `hooks` knows them, null: not checked) or of the live part of the calling thread's
/// stack, above the check's own frame (a capture by reference, or a pointer to a local
/// variable; an old address in the dead part below, as padding may hold, is no reference). `what`
/// names the kernel for the message (called only then: a launch that passes builds no text).
/// Pointers to other heap memory cannot be told from numbers and pass. Words that overlap a
/// listed member (`listed`: byte ranges [begin, end) of the closure, a LIGHTNING_KERNEL's
/// members or a LIGHTNING_LAMBDA's captures) are not looked at: a number there, with the
/// padding beside it, may look like any address. The bytes of `padding` (ranges, null: none)
/// count as zeros: what they hold is left over from before the closure was made.
void check_closure(const std::function<std::string()>& what, const void* closure, std::size_t size,
                   const std::vector<std::pair<std::size_t, std::size_t>>& listed,
                   const std::vector<std::pair<std::size_t, std::size_t>>* padding,
                   const KokkosToolHooks* hooks);

}  // namespace lightning::detail
