#include "kernel/array_binding.hpp"

#include <cstddef>
#include <cstring>
#include <string>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::kernel {

size_t handle_size(const ArraySlot& slot) {
  return static_cast<size_t>(array_handle_size(slot.rank));
}

void bind_array(uint8_t* functor, const ArraySlot& slot, void* data, const Rect& box,
                const Point& extent) {
  RawArrayHandle h{};
  h.data = data;
  int64_t stride = 1;
  int64_t offset = 0;
  for (int a = slot.rank - 1; a >= 0; --a) {
    h.stride_and_extent[a] = stride;
    h.stride_and_extent[slot.rank + a] = extent[a];
    offset += box.lo()[a] * stride;
    stride *= box.extent()[a];
  }
  h.offset = offset;
  // Only the handle's own bytes: a RawArrayHandle has room for three axes.
  std::memcpy(functor + slot.byte_offset, &h, offsetof(RawArrayHandle, stride_and_extent));
  std::memcpy(functor + slot.byte_offset + offsetof(RawArrayHandle, stride_and_extent),
              h.stride_and_extent, 2 * sizeof(int64_t) * static_cast<size_t>(slot.rank));
}

void clear_arrays(uint8_t* functor, const std::vector<ArraySlot>& arrays) {
  for (const ArraySlot& slot : arrays)
    std::memset(functor + slot.byte_offset, 0, handle_size(slot));
}

void fold_chunk_offsets(const std::vector<ArraySlot>& arrays,
                        const annotation::KernelSignature& signature, uint8_t* functor) {
  const auto& params = signature.params;
  for (const ArraySlot& slot : arrays) {
    if (slot.param < 0 || static_cast<size_t>(slot.param) >= params.size() ||
        !params[static_cast<size_t>(slot.param)].is_array)
      throw Error(ErrorKind::kInternal, "array slot at byte " + std::to_string(slot.byte_offset) +
                                            " names no array parameter of its kernel");
    const uint64_t element = size_of(params[static_cast<size_t>(slot.param)].type);
    uint8_t* at = functor + slot.byte_offset;
    uintptr_t data = 0;
    int64_t offset = 0;
    std::memcpy(&data, at + offsetof(RawArrayHandle, data), sizeof data);
    std::memcpy(&offset, at + offsetof(RawArrayHandle, offset), sizeof offset);
    data = static_cast<uintptr_t>(folded_data(data, offset, element));
    offset = 0;
    std::memcpy(at + offsetof(RawArrayHandle, data), &data, sizeof data);
    std::memcpy(at + offsetof(RawArrayHandle, offset), &offset, sizeof offset);
  }
}

}  // namespace lightning::kernel
