#include "worker/fragment_context.hpp"

#include "core/error.hpp"

namespace lightning::worker {

bool operator==(const LaunchData& a, const LaunchData& b) {
  if (a.kernel != b.kernel || a.name != b.name || a.functor != b.functor ||
      a.extents != b.extents || !(a.reduction == b.reduction) || a.arrays.size() != b.arrays.size())
    return false;
  for (size_t i = 0; i < a.arrays.size(); ++i) {
    const kernel::ArraySlot& x = a.arrays[i];
    const kernel::ArraySlot& y = b.arrays[i];
    if (x.param != y.param || x.byte_offset != y.byte_offset || x.rank != y.rank) return false;
  }
  return true;
}
namespace {

// The value stored under `key` in a small list of pairs (const or not), or nullptr.
template <class List, class Key>
auto find_in(List& list, Key key) -> decltype(&list.front().second) {
  for (auto& [id, value] : list)
    if (id == key) return &value;
  return nullptr;
}

// Stores `value` under `key`, replacing what was there.
template <class Key, class Value>
void put_in(std::vector<std::pair<Key, Value>>& list, Key key, Value value) {
  if (Value* known = find_in(list, key))
    *known = std::move(value);
  else
    list.emplace_back(key, std::move(value));
}

}  // namespace

void FragmentContext::add_launch(LaunchId launch, std::shared_ptr<const LaunchData> data) {
  put_in(launches_, launch, std::move(data));
}

void FragmentContext::add_host_buffer(uint64_t buffer, HostBuffer host) {
  put_in(host_buffers_, buffer, host);
}

const std::shared_ptr<const LaunchData>* FragmentContext::find_launch(LaunchId launch) const {
  return find_in(launches_, launch);
}

const std::shared_ptr<const LaunchData>& FragmentContext::launch(LaunchId launch) const {
  if (const auto* data = find_launch(launch)) return *data;
  throw Error(ErrorKind::kInternal,
              "a fragment's task names launch " + launch.to_string() + ", which it does not carry");
}

const HostBuffer& FragmentContext::host_buffer(uint64_t buffer) const {
  if (const HostBuffer* host = find_in(host_buffers_, buffer)) return *host;
  throw Error(ErrorKind::kInternal, "a fragment's task names host buffer " +
                                        std::to_string(buffer) + ", which it does not carry");
}

}  // namespace lightning::worker
