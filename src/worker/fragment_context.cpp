#include "worker/fragment_context.hpp"

#include "core/error.hpp"

namespace lightning::worker {

void FragmentContext::add_launch(LaunchId launch, std::shared_ptr<const LaunchData> data) {
  for (auto& [id, known] : launches_)
    if (id == launch) {
      known = std::move(data);
      return;
    }
  launches_.emplace_back(launch, std::move(data));
}

void FragmentContext::add_host_buffer(uint64_t buffer, HostBuffer host) {
  for (auto& [id, known] : host_buffers_)
    if (id == buffer) {
      known = host;
      return;
    }
  host_buffers_.emplace_back(buffer, host);
}

const std::shared_ptr<const LaunchData>* FragmentContext::find_launch(LaunchId launch) const {
  for (const auto& [id, data] : launches_)
    if (id == launch) return &data;
  return nullptr;
}

const std::shared_ptr<const LaunchData>& FragmentContext::launch(LaunchId launch) const {
  if (const auto* data = find_launch(launch)) return *data;
  throw Error(ErrorKind::kInternal,
              "a fragment's task names launch " + launch.to_string() + ", which it does not carry");
}

const HostBuffer& FragmentContext::host_buffer(uint64_t buffer) const {
  for (const auto& [id, host] : host_buffers_)
    if (id == buffer) return host;
  throw Error(ErrorKind::kInternal, "a fragment's task names host buffer " +
                                        std::to_string(buffer) + ", which it does not carry");
}

}  // namespace lightning::worker
