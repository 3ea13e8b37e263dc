// A run of bytes within one buffer: the unit the memory manager copies and skips.
#pragma once

#include <algorithm>
#include <cstdint>

namespace lightning::worker {

/// Bytes [begin, end) of a buffer (a chunk's copy); empty when end <= begin.
struct ByteRange {
  uint64_t begin = 0;
  uint64_t end = 0;

  bool empty() const { return end <= begin; }
  uint64_t size() const { return empty() ? 0 : end - begin; }
  /// The bytes in both (empty when they do not meet).
  ByteRange intersection(const ByteRange& o) const {
    return {std::max(begin, o.begin), std::min(end, o.end)};
  }
  friend bool operator==(const ByteRange& a, const ByteRange& b) {
    return a.begin == b.begin && a.end == b.end;
  }
};

}  // namespace lightning::worker
