// The launch domain of a ported CUDA kernel (jit::PortedLaunch): grid × block threads, axis 0
// being x; what every device allows it; and the CUDA grid that runs one superblock of it.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/point.hpp"
#include "core/rect.hpp"
#include "lightning_kokkos/device/ported_launch.hpp"

namespace lightning::kernel {

/// The threads of the launch: [0, grid[a] · block[a]) on each axis a < rank.
Rect domain_of(const jit::PortedLaunch& launch);
/// Its thread blocks' extent: block[a] on each axis a < rank.
Point block_size_of(const jit::PortedLaunch& launch);

/// Empty when `launch` is within BlockLimits (threads per block and axis, grid, and dynamic
/// shared memory no GPU has more of), else what is wrong, e.g. "a block (32, 64) of 2048
/// threads is more than 1024"; `max_threads` (> 0) is the kernel's own bound (its
/// __launch_bounds__).
std::string limit_violation(const jit::PortedLaunch& launch, int64_t max_threads);

/// The blocks of `superblock` (whole blocks of `launch`) per axis x, y, z: the CUDA grid that
/// runs it, one CUDA block per block; the first of them is block `superblock.lo / block`.
std::array<uint32_t, 3> superblock_grid(const jit::PortedLaunch& launch, const Rect& superblock);
/// The index in the whole grid of `superblock`'s first block per axis x, y, z (0 beyond the
/// launch's rank): what its blocks add to their own blockIdx.
std::array<uint32_t, 3> superblock_first_block(const jit::PortedLaunch& launch,
                                               const Rect& superblock);

/// "grid (64, 64) of blocks (16, 16)" (the launch's rank of axes), for messages.
std::string to_string(const jit::PortedLaunch& launch);

}  // namespace lightning::kernel
