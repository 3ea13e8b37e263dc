// One chunk of a data layout: a box of an array stored on one device.
#pragma once

#include <string>

#include "lightning_kokkos/internal/core/ids.hpp"
#include "lightning_kokkos/internal/core/rect.hpp"

namespace lightning {

/// A box of an array that one device stores. `box` is everything the chunk holds (its own
/// part plus halo, or a whole replica); `owned` (inside `box`) is the part for which this
/// chunk is the primary copy, empty for a pure replica. Across a layout the `owned` boxes are
/// disjoint and cover the array, so every element has exactly one home; the `box`es may
/// overlap, and overlapping copies are kept coherent by the planner.
struct Chunk {
  Rect box;
  Rect owned;
  DeviceId device;

  /// A chunk that owns all it stores (no halo).
  static Chunk primary(const Rect& box, DeviceId device) { return {box, box, device}; }
  /// A copy that owns nothing: another chunk is the home of each of its elements.
  static Chunk replica(const Rect& box, DeviceId device) {
    return {box, Rect::empty_of_rank(box.rank()), device};
  }

  /// True when this chunk is the home of some elements.
  bool is_primary() const { return !owned.empty(); }
  /// True when this chunk only copies elements whose home is elsewhere.
  bool is_replica() const { return owned.empty(); }

  /// "[0, 12) owns [1, 11) on D2" or "[0, 12) replica on D2".
  std::string to_string() const {
    return box.to_string() + (is_primary() ? " owns " + owned.to_string() : " replica") + " on " +
           device.to_string();
  }

  friend bool operator==(const Chunk& a, const Chunk& b) {
    return a.box == b.box && a.owned == b.owned && a.device == b.device;
  }
  friend bool operator!=(const Chunk& a, const Chunk& b) { return !(a == b); }
};

}  // namespace lightning
