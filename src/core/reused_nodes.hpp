// Entries of a node-based map that come and go with every task: their nodes are kept and
// reused instead of freed and allocated again.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace lightning {

/// Up to `Keep` nodes extracted from a `std::unordered_map` (or any map with node handles),
/// reused for the next keys. A reused node's value is as its last user left it: vectors in it
/// keep their storage, so a caller that clears them allocates nothing in steady state. The
/// default keeps enough for a loop that issues a thousand launches before it waits (each
/// launch's tasks live until they finish); 64 left such a chain allocating a node, and its
/// vectors, for most tasks (docs/results.md, "Nodes kept for a backlog of launches").
template <class Map, size_t Keep = 1024>
class ReusedNodes {
 public:
  /// The entry of `key`: the existing one, else a reused node (its value as left), else a
  /// value-initialised one. `fresh` (optional) tells whether the key was not there before.
  typename Map::iterator find_or_insert(Map& map, const typename Map::key_type& key,
                                        bool* fresh = nullptr) {
    auto it = map.find(key);
    if (fresh) *fresh = it == map.end();
    if (it != map.end()) return it;
    if (spare_.empty()) return map.emplace(key, typename Map::mapped_type()).first;
    auto node = std::move(spare_.back());
    spare_.pop_back();
    node.key() = key;
    return map.insert(std::move(node)).position;
  }

  /// Removes the entry at `it`, keeping its node for reuse while fewer than `Keep` are kept.
  void erase(Map& map, typename Map::iterator it) {
    if (spare_.size() < Keep)
      spare_.push_back(map.extract(it));
    else
      map.erase(it);
  }

 private:
  std::vector<typename Map::node_type> spare_;
};

}  // namespace lightning
