#include "core/config.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/duration_text.hpp"
#include "core/error.hpp"
#include "core/size_text.hpp"

namespace lightning {

namespace {

struct KeySpec {
  const char* name;
  const char* expects;                             // for error messages
  void (*apply)(Config&, std::string_view value);  // returns normally or throws "bad value"
  std::string (*show)(const Config&);
  const char* bare = nullptr;  // the value of `--lightning-<key>` without `=value` (switches)
};

struct BadValue {};

uint64_t size_or_throw(std::string_view v) {
  auto s = parse_size_text(v);
  if (!s) throw BadValue{};
  return *s;
}

// A memory cap: 0 would hold nothing (every chunk's staging would fail), so it is refused.
uint64_t cap_or_throw(std::string_view v) {
  const uint64_t s = size_or_throw(v);
  if (s == 0) throw BadValue{};
  return s;
}

bool switch_or_throw(std::string_view v) {
  for (const char* on : {"on", "1", "true", "yes"})
    if (v == on) return true;
  for (const char* off : {"off", "0", "false", "no"})
    if (v == off) return false;
  throw BadValue{};
}

std::chrono::microseconds duration_or_throw(std::string_view v) {
  auto d = parse_duration_text(v);
  if (!d) throw BadValue{};
  return *d;
}

std::string show_cap(const std::optional<uint64_t>& cap) {
  return cap ? format_size(*cap) : std::string("unlimited");
}

std::string or_default(const std::string& s, const char* fallback) {
  return s.empty() ? std::string(fallback) : s;
}

const KeySpec kKeys[] = {
    {"devices", "auto, host:N, cuda or cuda:I,J,...",
     [](Config& c, std::string_view v) {
       auto d = DeviceSelection::parse(v);
       if (!d) throw BadValue{};
       c.devices = *d;
     },
     [](const Config& c) { return c.devices.to_string(); }},
    {"device-memory", "a size above 0 such as 64MiB or 2GB",
     [](Config& c, std::string_view v) { c.device_memory = cap_or_throw(v); },
     [](const Config& c) { return show_cap(c.device_memory); }},
    {"host-memory", "a size above 0 such as 64MiB or 2GB",
     [](Config& c, std::string_view v) { c.host_memory = cap_or_throw(v); },
     [](const Config& c) { return show_cap(c.host_memory); }},
    {"spill-dir", "a directory",
     [](Config& c, std::string_view v) { c.spill_dir = std::string(v); },
     [](const Config& c) { return or_default(c.spill_dir, "(temporary directory)"); }},
    {"staging-limit", "a size above 0 such as 2GB",
     [](Config& c, std::string_view v) { c.staging_limit = cap_or_throw(v); },
     [](const Config& c) { return format_size(c.staging_limit); }},
    {"trace", "a file name for the Chrome trace",
     [](Config& c, std::string_view v) { c.trace = std::string(v); },
     [](const Config& c) { return or_default(c.trace, "off"); }},
    {"log", "trace, debug, info, warn, error or off",
     [](Config& c, std::string_view v) {
       for (auto l : {LogLevel::kTrace, LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn,
                      LogLevel::kError, LogLevel::kOff})
         if (v == name_of(l)) {
           c.log = l;
           return;
         }
       throw BadValue{};
     },
     [](const Config& c) { return std::string(name_of(c.log)); }},
    {"jit-cache", "a directory",
     [](Config& c, std::string_view v) { c.jit_cache = std::string(v); },
     [](const Config& c) { return or_default(c.jit_cache, "(user cache directory)"); }},
    {"compile-check", "a GPU architecture such as sm_90",
     [](Config& c, std::string_view v) {
       if (v.empty()) throw BadValue{};
       c.compile_check = std::string(v);
     },
     [](const Config& c) { return or_default(c.compile_check, "off"); }},
    {"heartbeat-interval", "a duration such as 500ms (units us, ms, s)",
     [](Config& c, std::string_view v) {
       c.heartbeat_interval = duration_or_throw(v);
       if (c.heartbeat_interval.count() == 0) throw BadValue{};
     },
     [](const Config& c) { return format_duration(c.heartbeat_interval); }},
    {"peer-timeout", "a duration such as 5s (units us, ms, s)",
     [](Config& c, std::string_view v) {
       c.peer_timeout = duration_or_throw(v);
       if (c.peer_timeout.count() == 0) throw BadValue{};
     },
     [](const Config& c) { return format_duration(c.peer_timeout); }},
    {"direct-receive-wait", "a duration such as 2ms (units us, ms, s; 0: never wait)",
     [](Config& c, std::string_view v) { c.direct_receive_wait = duration_or_throw(v); },
     [](const Config& c) { return format_duration(c.direct_receive_wait); }},
    {"comm-poll", "a duration such as 10ms (units us, ms, s; 0: sleep at once)",
     [](Config& c, std::string_view v) { c.comm_poll = duration_or_throw(v); },
     [](const Config& c) { return format_duration(c.comm_poll); }},
    {"gpu-poll", "a duration such as 10ms (units us, ms, s; 0: sleep soon)",
     [](Config& c, std::string_view v) { c.gpu_poll = duration_or_throw(v); },
     [](const Config& c) { return format_duration(c.gpu_poll); }},
    {"check-access", "on or off",
     [](Config& c, std::string_view v) { c.check_access = switch_or_throw(v); },
     [](const Config& c) { return std::string(c.check_access ? "on" : "off"); }, "on"},
};

const KeySpec* find_key(std::string_view name) {
  for (const auto& k : kKeys)
    if (name == k.name) return &k;
  return nullptr;
}

std::string known_keys() {
  std::string s;
  for (const auto& k : kKeys) {
    if (!s.empty()) s += ", ";
    s += k.name;
  }
  return s;
}

std::string env_name(std::string_view key) {
  std::string s = "LIGHTNING_";
  for (char c : key)
    s += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool parse_int(std::string_view s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<DeviceSelection> DeviceSelection::parse(std::string_view text) {
  DeviceSelection d;
  if (text == "auto") return d;
  if (text == "cuda") {
    d.kind = Kind::kCuda;
    return d;
  }
  if (text.rfind("host:", 0) == 0) {
    d.kind = Kind::kHost;
    if (!parse_int(text.substr(5), &d.host_count) || d.host_count < 1) return std::nullopt;
    return d;
  }
  if (text == "host") {
    d.kind = Kind::kHost;
    d.host_count = 1;
    return d;
  }
  if (text.rfind("cuda:", 0) == 0) {
    d.kind = Kind::kCuda;
    std::string_view rest = text.substr(5);
    while (true) {
      const size_t comma = rest.find(',');
      int ordinal = 0;
      if (!parse_int(rest.substr(0, comma), &ordinal)) return std::nullopt;
      for (int o : d.cuda_ordinals)
        if (o == ordinal) return std::nullopt;  // a GPU named twice is a typo, not a wish
      d.cuda_ordinals.push_back(ordinal);
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
    return d;
  }
  return std::nullopt;
}

std::string DeviceSelection::to_string() const {
  switch (kind) {
    case Kind::kAuto:
      return "auto";
    case Kind::kHost:
      return "host:" + std::to_string(host_count);
    case Kind::kCuda: {
      if (cuda_ordinals.empty()) return "cuda";
      std::string s = "cuda:";
      for (size_t i = 0; i < cuda_ordinals.size(); ++i)
        s += (i ? "," : "") + std::to_string(cuda_ordinals[i]);
      return s;
    }
  }
  return "?";
}

std::string_view name_of(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace:
      return "trace";
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "?";
}

void Config::set(std::string_view key, std::string_view value, std::string_view origin) {
  const KeySpec* spec = find_key(key);
  if (!spec)
    throw Error(ErrorKind::kConfig, "unknown configuration key '" + std::string(key) + "' in " +
                                        std::string(origin) + " (known keys: " + known_keys() +
                                        ")");
  try {
    spec->apply(*this, value);
  } catch (const BadValue&) {
    throw Error(ErrorKind::kConfig, "bad value '" + std::string(value) + "' for " +
                                        std::string(origin) + ": expected " + spec->expects);
  }
}

bool Config::check_access_by_default() {
#ifdef NDEBUG
  return false;
#else
  return true;
#endif
}

Config Config::load(int* argc, char** argv, const EnvLookup& env) {
  Config c;
  for (const auto& k : kKeys) {
    const std::string name = env_name(k.name);
    if (auto v = env(name)) c.set(k.name, *v, name);
  }
  if (!argc || !argv) return c;
  constexpr std::string_view kPrefix = "--lightning-";
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.rfind(kPrefix, 0) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::string_view body = arg.substr(kPrefix.size());
    const size_t eq = body.find('=');
    if (eq == std::string_view::npos) {
      const KeySpec* spec = find_key(body);
      if (spec && spec->bare) {
        c.set(body, spec->bare, arg);
        continue;
      }
      throw Error(ErrorKind::kConfig, "argument '" + std::string(arg) +
                                          "' has no value: write --lightning-<key>=<value>");
    }
    c.set(body.substr(0, eq), body.substr(eq + 1), arg.substr(0, kPrefix.size() + eq));
  }
  for (int i = kept; i < *argc; ++i) argv[i] = nullptr;
  *argc = kept;
  return c;
}

Config::EnvLookup Config::process_environment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

Config Config::load_from_process(int* argc, char** argv) {
  return load(argc, argv, process_environment());
}

const std::vector<std::string>& Config::keys() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& k : kKeys) n.emplace_back(k.name);
    return n;
  }();
  return names;
}

std::string Config::describe() const {
  std::ostringstream os;
  for (const auto& k : kKeys) os << k.name << " = " << k.show(*this) << "\n";
  return os.str();
}

}  // namespace lightning
