// Counting the allocations of a piece of code: a test binary that links allocation_count.cpp
// has its global operator new replaced by one that counts, per thread.
#pragma once

namespace lightning::testing {

/// Allocations made so far by the calling thread (operator new, every form that reaches it).
long allocations_on_this_thread();

/// Whether allocations are counted at all (a binary without allocation_count.cpp linked in,
/// or an allocator that bypasses it, would make every "allocates nothing" test pass).
bool allocations_are_counted();

}  // namespace lightning::testing
