// Pointing a kernel's array handles at chunks: the one place that writes ArrayHandle fields
// into a kernel's bytes (include/lightning_kokkos/device/array_handle.hpp has the layout).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "annotation/kernel_signature.hpp"
#include "core/point.hpp"
#include "core/rect.hpp"
#include "kernel/kernel_description.hpp"

namespace lightning::kernel {

/// Bytes of the handle in `slot` (array_handle_size of its rank).
size_t handle_size(const ArraySlot& slot);

/// Points the handle in `slot` of `functor` at a chunk holding `box` row-major at `data`:
/// `data`, `offset` = the linear index of the box's first element, row-major strides over
/// the box, and the whole array's `extent`, so the kernel indexes with global indices.
void bind_array(uint8_t* functor, const ArraySlot& slot, void* data, const Rect& box,
                const Point& extent);

/// Zeroes every handle of `arrays` in `functor` (arrays the superblock does not touch: a
/// stray access faults instead of reaching another launch's memory).
void clear_arrays(uint8_t* functor, const std::vector<ArraySlot>& arrays);

/// Folds each handle's chunk offset into its data pointer (`data -= offset` elements,
/// `offset = 0`), as generated GPU code expects: it indexes `data` with global indices and
/// never reads `offset`. The handles still address the same elements. `data` may then point
/// outside its allocation: the arithmetic is done on integers and the result is only
/// dereferenced on the GPU at valid global indices. Error(kInternal) for a slot naming no
/// array parameter of `signature`.
void fold_chunk_offsets(const std::vector<ArraySlot>& arrays,
                        const annotation::KernelSignature& signature, uint8_t* functor);

}  // namespace lightning::kernel
