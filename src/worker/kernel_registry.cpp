#include "worker/kernel_registry.hpp"

#include <xxhash.h>

#include <memory>
#include <unordered_map>

#include "core/error.hpp"

namespace lightning::worker {

namespace {

// The one registry of the process (see KernelRegistry): node-based, so references handed
// out stay valid as kernels are added.
std::unordered_map<KernelId, std::unique_ptr<KernelInfo>>& kernels() {
  static std::unordered_map<KernelId, std::unique_ptr<KernelInfo>> map;
  return map;
}

}  // namespace

KernelId KernelRegistry::id_of(const std::string& name) {
  return KernelId(XXH3_64bits(name.data(), name.size()));
}

KernelId KernelRegistry::add(KernelInfo info) {
  const KernelId id = id_of(info.name);
  auto& map = kernels();
  if (auto it = map.find(id); it != map.end())
    throw Error(ErrorKind::kInvalidArgument,
                it->second->name == info.name
                    ? "kernel '" + info.name + "' is registered twice: kernel names must be unique"
                    : "kernels '" + info.name + "' and '" + it->second->name +
                          "' have the same id " + id.to_string() + ": rename one");
  map.emplace(id, std::make_unique<KernelInfo>(std::move(info)));
  return id;
}

const KernelInfo& KernelRegistry::get(KernelId id) {
  auto it = kernels().find(id);
  if (it == kernels().end())
    throw Error(ErrorKind::kInvalidArgument,
                "no kernel with id " + id.to_string() + " is registered in this process");
  return *it->second;
}

bool KernelRegistry::contains(KernelId id) {
  return kernels().count(id) != 0;
}

std::vector<KernelId> KernelRegistry::ids() {
  std::vector<KernelId> result;
  result.reserve(kernels().size());
  for (const auto& entry : kernels()) result.push_back(entry.first);
  return result;
}

}  // namespace lightning::worker
