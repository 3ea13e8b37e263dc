// Helpers shared by the memory manager tests.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "backend/host/host_memory_backend.hpp"
#include "worker/memory_manager.hpp"

namespace lightning::worker::testing {

/// A fresh directory for one test's spill files, removed afterwards.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "lk-mm-test-XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  /// Spill files anywhere below the directory (not the owners' lock files).
  size_t file_count() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path))
      n += e.is_regular_file() && e.path().extension() == ".spill";
    return n;
  }
  bool empty() const { return std::filesystem::is_empty(path); }
};

/// Deterministic bytes of a chunk version.
inline std::vector<unsigned char> pattern(uint64_t bytes, uint64_t seed) {
  std::vector<unsigned char> v(bytes);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& b : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<unsigned char>(x);
  }
  return v;
}

inline MemorySpace dev(uint64_t d) {
  return MemorySpace::of_device(DeviceId(d));
}
inline MemorySpace host() {
  return MemorySpace::host();
}
inline MemorySpace disk() {
  return MemorySpace::disk();
}

inline StageRequest read(uint64_t chunk, MemorySpace where) {
  return {ChunkId(chunk), where, false};
}
inline StageRequest write(uint64_t chunk, MemorySpace where) {
  return {ChunkId(chunk), where, true};
}

/// Copies bytes into a staged copy (host-emulated devices are host-addressable).
inline void put(MemoryManager& mm, uint64_t chunk, MemorySpace where,
                const std::vector<unsigned char>& bytes) {
  if (!bytes.empty()) std::memcpy(mm.data(ChunkId(chunk), where), bytes.data(), bytes.size());
}

inline bool holds(const MemoryManager& mm, uint64_t chunk, MemorySpace where,
                  const std::vector<unsigned char>& bytes) {
  void* p = mm.data(ChunkId(chunk), where);  // throws when there is no copy
  return bytes.empty() || std::memcmp(p, bytes.data(), bytes.size()) == 0;
}

/// Host memory for emulated devices, every call forwarded to a HostMemoryBackend: tests
/// derive from it and change the one call they are about.
class HostBackedMemory : public MemoryBackend {
 public:
  void* allocate_device_pool(DeviceId d, uint64_t bytes) override {
    return host_.allocate_device_pool(d, bytes);
  }
  bool grow_device_pool(DeviceId d, void* pool, uint64_t bytes) override {
    return host_.grow_device_pool(d, pool, bytes);
  }
  void free_device_pool(DeviceId d, void* pool) override { host_.free_device_pool(d, pool); }
  void* allocate_host(uint64_t bytes) override { return host_.allocate_host(bytes); }
  void free_host(void* p) override { host_.free_host(p); }
  void copy(void* dst, MemorySpace ds, const void* src, MemorySpace ss, uint64_t bytes) override {
    host_.copy(dst, ds, src, ss, bytes);
  }
  void fill_zero(void* dst, MemorySpace space, uint64_t bytes) override {
    host_.fill_zero(dst, space, bytes);
  }

 private:
  host::HostMemoryBackend host_;
};

// Host-emulated device memory that runs out: a pool may be backed up to `device_left` bytes
// (another process holds the rest of the GPU); the growths asked for are recorded.
class FiniteDeviceBackend final : public HostBackedMemory {
 public:
  explicit FiniteDeviceBackend(uint64_t device_left) : left_(device_left) {}
  bool grow_device_pool(DeviceId d, void* pool, uint64_t bytes) override {
    asked.push_back(bytes);
    return bytes <= left_ && HostBackedMemory::grow_device_pool(d, pool, bytes);
  }
  std::vector<uint64_t> asked;

 private:
  uint64_t left_;
};

}  // namespace lightning::worker::testing
