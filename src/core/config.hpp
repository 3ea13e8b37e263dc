// Runtime configuration, in one place. Precedence: command line `--lightning-<key>=<value>`
// over environment `LIGHTNING_<KEY>` (dashes become underscores, upper case) over defaults,
// as Kokkos does with `--kokkos-*` and `KOKKOS_*`.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lightning {

/// Which devices a process drives: `auto` (GPUs if any, else one host device), `host:N`
/// (N emulated host devices), `cuda` (every GPU) or `cuda:0,2` (those ordinals).
struct DeviceSelection {
  enum class Kind { kAuto, kHost, kCuda };
  Kind kind = Kind::kAuto;
  int host_count = 0;              ///< for kHost: at least 1
  std::vector<int> cuda_ordinals;  ///< for kCuda: empty means every GPU

  /// Parses the text forms above; empty on malformed text.
  static std::optional<DeviceSelection> parse(std::string_view text);
  std::string to_string() const;
  friend bool operator==(const DeviceSelection& a, const DeviceSelection& b) {
    return a.kind == b.kind && a.host_count == b.host_count && a.cuda_ordinals == b.cuda_ordinals;
  }
};

/// Verbosity of the runtime's log.
enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

/// Every setting of the runtime. Sizes are bytes; an absent cap means "all there is".
struct Config {
  DeviceSelection devices;                 ///< key `devices`
  std::optional<uint64_t> device_memory;   ///< key `device-memory`: cap per device
  std::optional<uint64_t> host_memory;     ///< key `host-memory`: cap for spilled/staged data
  std::string spill_dir;                   ///< key `spill-dir`: empty = a fresh temporary dir
  uint64_t staging_limit = 2'000'000'000;  ///< key `staging-limit`: bytes staged ahead per device
  std::string trace;                       ///< key `trace`: Chrome trace file; empty = off
  LogLevel log = LogLevel::kWarn;          ///< key `log`: trace, debug, info, warn, error, off
  std::string jit_cache;                   ///< key `jit-cache`: empty = the user's cache dir
  /// Key `compile-check`: a GPU architecture (sm_90, 90 or 9.0). The runtime then compiles
  /// every registered kernel's GPU code for it with NVRTC (no GPU needed), reports, and ends
  /// the process: 0 when every kernel compiled. Empty: off.
  std::string compile_check;
  /// Under MPI. Key `heartbeat-interval`: how often a rank tells the ranks watching it that it
  /// lives; key `peer-timeout`: silence after which a watched rank counts as lost.
  std::chrono::microseconds heartbeat_interval{500'000};
  std::chrono::microseconds peer_timeout{5'000'000};
  /// Key `direct-receive-wait`: how long a large payload waits at its sender for the receiving
  /// task to name its destination (then it lands there, no copy) before the receiving rank
  /// takes it into a buffer of its own (see comm::MpiTransport).
  std::chrono::microseconds direct_receive_wait{2'000};
  /// Key `comm-poll`: how long the communication thread keeps polling MPI after its last
  /// message before it sleeps 50 microseconds at a time (an arriving message does not wake it,
  /// so a reply that comes later waits for the sleep to end).
  std::chrono::microseconds comm_poll{10'000};
  /// Key `gpu-poll`: how long a thread waiting for a GPU's work (the program's for a value,
  /// the runtime's on the way of a launch) keeps polling before it sleeps (WaitPolicy); 0:
  /// 50 microseconds only, as when no GPU works.
  std::chrono::microseconds gpu_poll{10'000};
  /// Key `check-access` (on/off; `--lightning-check-access` alone is on): checked mode, in
  /// which every element a kernel on a host device touches through a View is checked
  /// against its annotation (docs/annotations.md, "Checked mode"). On by default in a
  /// library built without NDEBUG (Debug).
  bool check_access = check_access_by_default();

  /// Whether the library was built without NDEBUG (checked mode's default).
  static bool check_access_by_default();

  /// Looks up an environment variable; empty when unset.
  using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

  /// Defaults, then `env`, then the `--lightning-*` arguments of argv, which are removed from
  /// argv (argc updated) so the application never sees them. Throws Error(kConfig) naming the
  /// key, the value and where it came from when a key is unknown or a value is bad.
  static Config load(int* argc, char** argv, const EnvLookup& env);
  /// The process's own environment (std::getenv), as an EnvLookup.
  static EnvLookup process_environment();
  /// load() with the process environment.
  static Config load_from_process(int* argc, char** argv);

  /// Sets one key from text; `origin` (e.g. "LIGHTNING_DEVICES") appears in error messages.
  void set(std::string_view key, std::string_view value, std::string_view origin);

  /// The keys, in the order describe() prints them.
  static const std::vector<std::string>& keys();
  /// One "key = value" line per key, for print_configuration and lightning-info.
  std::string describe() const;
};

std::string_view name_of(LogLevel level);

}  // namespace lightning
