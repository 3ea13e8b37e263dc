#include "kernel/kernel_registry.hpp"

#include <xxhash.h>

#include <memory>
#include <string>
#include <unordered_map>

#include "core/error.hpp"
#include "kernel/reducer_registry.hpp"

namespace lightning::kernel {

namespace {

// The one registry of the process (see KernelRegistry): node-based, so references handed
// out stay valid as kernels are added.
std::unordered_map<KernelId, std::unique_ptr<KernelInfo>>& kernels() {
  static std::unordered_map<KernelId, std::unique_ptr<KernelInfo>> map;
  return map;
}

}  // namespace

Reduction KernelInfo::resolve(const Reduction& launch, const std::vector<uint8_t>& functor) const {
  if (!reduction)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + name + "' does not reduce, but the launch asks for a reduction");
  if (launch.is_custom() && launch.reducer != 0) {
    // A registered reducer (Kokkos' MinLoc, ...) folds the kernel's values of its size.
    if (launch.value_size != reduction->value_size)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + name + "' reduces " + std::to_string(reduction->value_size) +
                      "-byte values, but the launch's reducer '" +
                      ReducerRegistry::get(launch.reducer).name + "' folds " +
                      std::to_string(launch.value_size) + "-byte ones");
    return ReducerRegistry::reduction(launch.reducer);
  }
  if (launch.is_custom()) {
    // value_size 0: an array reduction, sized by each launch (its functor's value_count).
    const bool sized_per_launch = reduction->value_size == 0;
    if (!reduction->is_custom() || !reduction->custom_join || launch.value_size == 0 ||
        (!sized_per_launch && launch.value_size != reduction->value_size))
      throw Error(ErrorKind::kInvalidArgument, "kernel '" + name + "' has no custom reducer of " +
                                                   std::to_string(launch.value_size) +
                                                   "-byte values");
    if (functor.size() != functor_size)
      throw Error(ErrorKind::kInvalidArgument,
                  "kernel '" + name + "' has " + std::to_string(functor_size) +
                      "-byte functors, but the launch gives " + std::to_string(functor.size()));
    Reduction own = *reduction;
    own.value_size = launch.value_size;
    auto bytes = std::make_shared<const std::vector<uint8_t>>(functor);
    own.functor = std::shared_ptr<const void>(bytes, bytes->data());
    return own;
  }
  // A built-in operator folds the kernel's partials as values of the launch's type: another
  // type, even of the same size, would read the kernel's bytes as something they are not.
  if (reduction->is_custom() || launch.type != reduction->type ||
      launch.value_size != reduction->value_size)
    throw Error(ErrorKind::kInvalidArgument,
                "kernel '" + name + "' reduces " +
                    (reduction->is_custom() ? std::string("values of its own type")
                                            : std::string(name_of(reduction->type)) + " values") +
                    " (" + std::to_string(reduction->value_size) +
                    " bytes), but the launch folds " + std::string(name_of(launch.type)) + " (" +
                    std::to_string(launch.value_size) + " bytes) with '" +
                    std::string(name_of(launch.op)) + "'");
  return launch;
}

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

}  // namespace lightning::kernel
