#include "kernel/reducer_registry.hpp"

#include <xxhash.h>

#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/error.hpp"

namespace lightning::kernel {

namespace {

// Registration happens at static initialisation, in any order, and a lambda's first use may
// register later: one mutex.
struct Reducers {
  std::mutex mutex;
  std::unordered_map<uint64_t, std::unique_ptr<ReducerInfo>> by_id;
};
Reducers& reducers() {
  static Reducers r;
  return r;
}

}  // namespace

uint64_t ReducerRegistry::add(ReducerInfo info) {
  const uint64_t id = XXH3_64bits(info.name.data(), info.name.size()) | 1u;  // never 0
  Reducers& r = reducers();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (auto it = r.by_id.find(id); it != r.by_id.end()) {
    if (it->second->name != info.name)
      throw Error(ErrorKind::kInvalidArgument,
                  "reducers '" + info.name + "' and '" + it->second->name + "' have the same id");
    return id;
  }
  r.by_id.emplace(id, std::make_unique<ReducerInfo>(std::move(info)));
  return id;
}

const ReducerInfo& ReducerRegistry::get(uint64_t id) {
  Reducers& r = reducers();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.by_id.find(id);
  if (it == r.by_id.end())
    throw Error(ErrorKind::kInvalidArgument,
                "no reducer of id " + std::to_string(id) +
                    " is registered in this process (every rank must run the same binary)");
  return *it->second;
}

Reduction ReducerRegistry::reduction(uint64_t id) {
  const ReducerInfo& info = get(id);
  Reduction r = Reduction::custom(info.value_size, info.init, info.join);
  r.reducer = id;
  return r;
}

}  // namespace lightning::kernel
