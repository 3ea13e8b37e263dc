// Compiled GPU entry points, in memory and on disk, so that each kernel is compiled once per
// machine (not per process, launch or superblock).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "backend/cuda/kernel_codegen.hpp"
#include "backend/cuda/kernel_image.hpp"
#include "core/config.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::cuda {

/// Kernels compiled by NVRTC, by kernel, architecture and specialisation. Thread-safe: a
/// kernel is compiled once even when several threads ask for it at the same time (others
/// wait for it; different kernels compile in parallel). The disk copy is keyed by a hash of
/// what decides the image: generated source, options (architecture among them), embedded
/// headers and NVRTC version; files are written to a temporary name and renamed, so
/// concurrent processes sharing the directory see whole files or none. It is the runtime's
/// KernelImageSource: kernels without GPU code and reductions with a custom reducer fail with
/// Error(kCuda) naming the kernel.
class JitCache final : public KernelImageSource {
 public:
  /// What the cache did, for tests and logs.
  struct Stats {
    size_t compiled = 0;     ///< NVRTC runs
    size_t from_disk = 0;    ///< images read from the directory
    size_t disk_errors = 0;  ///< unreadable, corrupt or unwritable files (then compiled)
  };

  /// `directory` empty: memory only. It is created when first written.
  explicit JitCache(std::string directory);

  /// The directory of `config` (key jit-cache / LIGHTNING_JIT_CACHE) or, unset, the user's:
  /// $XDG_CACHE_HOME/lightning_kokkos, else $HOME/.cache/lightning_kokkos; empty when none
  /// is known (memory only).
  static std::string directory_for(const Config& config, const Config::EnvLookup& env);

  /// The kernel `info` compiled for sm_<major><minor> with `spec` (reduction kernels need
  /// theirs). Compiles on first use; throws Error(kCuda) with NVRTC's log when that fails.
  /// The reference stays valid for the cache's lifetime. Kernels are told apart by name
  /// (unique in a process, see KernelRegistry).
  const KernelImage& get(const kernel::KernelInfo& info, int sm_major, int sm_minor,
                         const KernelSpecialization& spec);
  /// The same with the default specialisation (256 threads per block).
  const KernelImage& get(const kernel::KernelInfo& info, int sm_major, int sm_minor);
  /// get(), as a KernelImageSource.
  const KernelImage& image(const kernel::KernelInfo& kernel, int sm_major, int sm_minor,
                           const KernelSpecialization& spec) override {
    return get(kernel, sm_major, sm_minor, spec);
  }

  /// The disk key of a generated source compiled with `options`: 32 hex digits.
  static std::string disk_key(const std::string& source, const std::vector<std::string>& options);

  const std::string& directory() const { return directory_; }
  Stats stats() const;

 private:
  // Not std::call_once: a build that throws must leave the entry to be retried, and an
  // exception out of call_once hangs the next caller under some pthread_once implementations
  // (ThreadSanitizer's among them).
  struct Entry {
    std::mutex mutex;  // held while compiling: others asking for this kernel wait for it
    bool built = false;
    KernelImage kernel;
  };

  KernelImage build(const kernel::KernelInfo& info, int sm_major, int sm_minor,
                    const KernelSpecialization& spec);
  bool read_file(const std::string& key, std::vector<char>& cubin);
  void write_file(const std::string& key, const std::vector<char>& cubin);

  std::string directory_;
  mutable std::mutex mutex_;  // guards entries_ and stats_, never held while compiling
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  Stats stats_;
};

}  // namespace lightning::cuda
