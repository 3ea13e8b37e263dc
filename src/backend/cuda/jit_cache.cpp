// The JIT cache: a map of compiled entry points, backed by one file per image.
#include "backend/cuda/jit_cache.hpp"

#include <unistd.h>
#include <xxhash.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backend/cuda/nvrtc_compiler.hpp"
#include "core/error.hpp"
#include "core/log.hpp"

namespace lightning::cuda {

namespace {

namespace fs = std::filesystem;

// File layout: magic, key (32 hex digits), cubin size (8 bytes), XXH64 of the cubin (8
// bytes), cubin. A file whose key, size or checksum disagree is ignored and rewritten.
constexpr char kMagic[8] = {'L', 'K', 'J', 'I', 'T', '0', '0', '1'};

void hash_string(XXH3_state_t* state, const std::string& s) {
  const uint64_t size = s.size();
  XXH3_128bits_update(state, &size, sizeof(size));  // lengths keep "ab"+"c" != "a"+"bc"
  XXH3_128bits_update(state, s.data(), s.size());
}

}  // namespace

JitCache::JitCache(std::string directory) : directory_(std::move(directory)) {}

std::string JitCache::directory_for(const Config& config, const Config::EnvLookup& env) {
  if (!config.jit_cache.empty()) return config.jit_cache;
  if (auto xdg = env("XDG_CACHE_HOME"); xdg && !xdg->empty()) return *xdg + "/lightning_kokkos";
  if (auto home = env("HOME"); home && !home->empty()) return *home + "/.cache/lightning_kokkos";
  return {};
}

std::string JitCache::disk_key(const std::string& source, const std::vector<std::string>& options) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  hash_string(state, source);
  for (const std::string& o : options) hash_string(state, o);
  for (const EmbeddedHeader& h : embedded_device_headers()) {
    hash_string(state, h.name);
    hash_string(state, h.text);
  }
  hash_string(state, nvrtc_version());
  const XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return hex;
}

const KernelImage& JitCache::get(const kernel::KernelInfo& info, int sm_major, int sm_minor) {
  return get(info, sm_major, sm_minor, KernelSpecialization{});
}

const KernelImage& JitCache::get(const kernel::KernelInfo& info, int sm_major, int sm_minor,
                                 const KernelSpecialization& spec) {
  const std::string key = info.name + "|sm_" + std::to_string(sm_major) + std::to_string(sm_minor) +
                          "|" + spec.key(info.reduction.has_value());
  Entry* entry = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& slot = entries_[key];
    if (!slot) slot = std::make_unique<Entry>();
    entry = slot.get();
  }
  // A failed build throws and leaves `built` unset: the next get() tries again.
  std::lock_guard<std::mutex> lock(entry->mutex);
  if (!entry->built) {
    entry->kernel = build(info, sm_major, sm_minor, spec);
    entry->built = true;
  }
  return entry->kernel;
}

KernelImage JitCache::build(const kernel::KernelInfo& info, int sm_major, int sm_minor,
                            const KernelSpecialization& spec) {
  const GeneratedKernel generated = generate_kernel(info, spec);
  const std::vector<std::string> options = nvrtc_options(sm_major, sm_minor);
  const std::string key = disk_key(generated.source, options);
  KernelImage kernel;
  kernel.entry = generated.entry;
  if (read_file(key, kernel.cubin)) return kernel;
  try {
    kernel.cubin =
        compile_to_cubin({info.name, generated.file_name, generated.source}, options).cubin;
  } catch (Error& e) {
    // The usual mistake in a functor: using a member the macro does not list.
    const bool functor = info.device.kind == kernel::DeviceCodeKind::kFunctorBody ||
                         info.device.kind == kernel::DeviceCodeKind::kTeamFunctorBody;
    if (functor && e.message().find("is undefined") != std::string::npos) {
      std::string names;
      for (const auto& p : info.description.signature.params)
        names += (names.empty() ? "" : ", ") + p.name;
      throw e.with_context("GPU code sees only the members the kernel lists: " + names +
                           " (add the others to LIGHTNING_KERNEL's member list), and of the "
                           "types the operator names only Kokkos' and lightning's (declare "
                           "the others inside LIGHTNING_KERNEL's last argument)");
    }
    throw;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.compiled;
  }
  write_file(key, kernel.cubin);
  return kernel;
}

bool JitCache::read_file(const std::string& key, std::vector<char>& cubin) {
  if (directory_.empty()) return false;
  const fs::path path = fs::path(directory_) / (key + ".cubin");
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  char magic[sizeof(kMagic)];
  char stored_key[32];
  uint64_t size = 0;
  uint64_t checksum = 0;
  bool ok = static_cast<bool>(in.read(magic, sizeof(magic))
                                  .read(stored_key, sizeof(stored_key))
                                  .read(reinterpret_cast<char*>(&size), sizeof(size))
                                  .read(reinterpret_cast<char*>(&checksum), sizeof(checksum)));
  ok = ok && std::memcmp(magic, kMagic, sizeof(kMagic)) == 0 &&
       std::string(stored_key, sizeof(stored_key)) == key && size > 0 && size < (1ull << 32);
  if (ok) {
    cubin.resize(size);
    ok = in.read(cubin.data(), static_cast<std::streamsize>(size)) &&
         in.peek() == std::ifstream::traits_type::eof() &&
         XXH64(cubin.data(), cubin.size(), 0) == checksum;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (ok) {
    ++stats_.from_disk;
    return true;
  }
  ++stats_.disk_errors;
  log().warn("JIT cache: ignoring damaged file {}", path.string());
  cubin.clear();
  return false;
}

void JitCache::write_file(const std::string& key, const std::vector<char>& cubin) {
  if (directory_.empty()) return;
  static std::atomic<uint64_t> counter{0};
  const fs::path dir(directory_);
  const fs::path path = dir / (key + ".cubin");
  const fs::path temp = dir / (key + ".tmp." + std::to_string(::getpid()) + "." +
                               std::to_string(counter.fetch_add(1)));
  std::error_code ec;
  fs::create_directories(dir, ec);
  bool ok = !ec;
  if (ok) {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    const uint64_t size = cubin.size();
    const uint64_t checksum = XXH64(cubin.data(), cubin.size(), 0);
    out.write(kMagic, sizeof(kMagic))
        .write(key.data(), static_cast<std::streamsize>(key.size()))
        .write(reinterpret_cast<const char*>(&size), sizeof(size))
        .write(reinterpret_cast<const char*>(&checksum), sizeof(checksum))
        .write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    out.close();
    ok = static_cast<bool>(out);
  }
  // rename() replaces atomically: a reader sees the old file, the new one, or none.
  if (ok) fs::rename(temp, path, ec);
  if (!ok || ec) {
    fs::remove(temp, ec);
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.disk_errors;
    log().warn("JIT cache: cannot write {} (compiled kernels stay in memory)", path.string());
  }
}

JitCache::Stats JitCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

}  // namespace lightning::cuda
