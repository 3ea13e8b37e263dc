#include "core/config.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace lightning {
namespace {

Config::EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// argv as a program gets it: mutable strings with a trailing null.
struct Args {
  explicit Args(std::vector<std::string> a) : storage(std::move(a)) {
    for (auto& s : storage) ptrs.push_back(s.data());
    ptrs.push_back(nullptr);
    argc = static_cast<int>(storage.size());
  }
  std::vector<std::string> storage;
  std::vector<char*> ptrs;
  int argc;
  char** argv() { return ptrs.data(); }
};

TEST(Config, Defaults) {
  Args args({"app"});
  Config c = Config::load(&args.argc, args.argv(), env_of({}));
  EXPECT_EQ(c.devices.kind, DeviceSelection::Kind::kAuto);
  EXPECT_FALSE(c.device_memory.has_value());
  EXPECT_EQ(c.staging_limit, 2'000'000'000u);  // the paper's 2 GB
  EXPECT_EQ(c.log, LogLevel::kWarn);
  EXPECT_TRUE(c.trace.empty());
  EXPECT_EQ(c.heartbeat_interval, std::chrono::milliseconds(500));
  EXPECT_EQ(c.peer_timeout, std::chrono::seconds(5));
  EXPECT_EQ(c.direct_receive_wait, std::chrono::milliseconds(2));
  EXPECT_EQ(c.gpu_poll, std::chrono::milliseconds(10));
}

TEST(Config, DurationsUnderMpi) {
  Args args({"app", "--lightning-peer-timeout=10s"});
  Config c = Config::load(
      &args.argc, args.argv(),
      env_of({{"LIGHTNING_DIRECT_RECEIVE_WAIT", "0"}, {"LIGHTNING_HEARTBEAT_INTERVAL", "250ms"}}));
  EXPECT_EQ(c.direct_receive_wait, std::chrono::microseconds(0));
  EXPECT_EQ(c.heartbeat_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(c.peer_timeout, std::chrono::seconds(10));
}

TEST(Config, EnvironmentThenCommandLineWins) {
  Args args({"app", "--kokkos-num-threads=2", "--lightning-devices=host:4", "input.dat",
             "--lightning-device-memory=64MiB"});
  Config c = Config::load(&args.argc, args.argv(),
                          env_of({{"LIGHTNING_DEVICES", "host:2"},
                                  {"LIGHTNING_STAGING_LIMIT", "1GiB"},
                                  {"LIGHTNING_SPILL_DIR", "/scratch/spill"}}));
  EXPECT_EQ(c.devices.kind, DeviceSelection::Kind::kHost);
  EXPECT_EQ(c.devices.host_count, 4);  // command line over environment
  EXPECT_EQ(c.device_memory, 64ull << 20);
  EXPECT_EQ(c.staging_limit, 1ull << 30);
  EXPECT_EQ(c.spill_dir, "/scratch/spill");
  // Our arguments are removed; the others keep their order.
  ASSERT_EQ(args.argc, 3);
  EXPECT_STREQ(args.argv()[0], "app");
  EXPECT_STREQ(args.argv()[1], "--kokkos-num-threads=2");
  EXPECT_STREQ(args.argv()[2], "input.dat");
  EXPECT_EQ(args.argv()[3], nullptr);
}

TEST(Config, DeviceSelections) {
  auto d = DeviceSelection::parse("cuda:0,2");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, DeviceSelection::Kind::kCuda);
  EXPECT_EQ(d->cuda_ordinals, (std::vector<int>{0, 2}));
  EXPECT_EQ(d->to_string(), "cuda:0,2");
  for (const char* text : {"auto", "cuda", "host:3", "cuda:1"})
    EXPECT_EQ(DeviceSelection::parse(text)->to_string(), text);
  EXPECT_EQ(DeviceSelection::parse("host")->to_string(), "host:1");
  for (const char* bad :
       {"", "gpu", "host:0", "host:-1", "host:x", "cuda:", "cuda:1,,2", "cuda:1,1", "cuda:a"})
    EXPECT_FALSE(DeviceSelection::parse(bad).has_value()) << bad;
}

void expect_config_error(std::vector<std::string> argv, std::map<std::string, std::string> env,
                         const std::string& expected_message) {
  Args args(std::move(argv));
  try {
    Config::load(&args.argc, args.argv(), env_of(std::move(env)));
    ADD_FAILURE() << "no error, expected: " << expected_message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_EQ(e.message(), expected_message);
  }
}

TEST(Config, BadValuesNameKeyValueAndOrigin) {
  expect_config_error({"app"}, {{"LIGHTNING_DEVICE_MEMORY", "lots"}},
                      "bad value 'lots' for LIGHTNING_DEVICE_MEMORY: expected a size above 0 "
                      "such as 64MiB or 2GB");
  // A cap of 0 holds nothing.
  expect_config_error({"app"}, {{"LIGHTNING_DEVICE_MEMORY", "0"}},
                      "bad value '0' for LIGHTNING_DEVICE_MEMORY: expected a size above 0 such "
                      "as 64MiB or 2GB");
  expect_config_error({"app", "--lightning-host-memory=0KiB"}, {},
                      "bad value '0KiB' for --lightning-host-memory: expected a size above 0 "
                      "such as 64MiB or 2GB");
  expect_config_error({"app", "--lightning-devices=gpu:2"}, {},
                      "bad value 'gpu:2' for --lightning-devices: expected auto, host:N, cuda "
                      "or cuda:I,J,...");
  expect_config_error({"app", "--lightning-log=loud"}, {},
                      "bad value 'loud' for --lightning-log: expected trace, debug, info, warn, "
                      "error or off");
  expect_config_error({"app", "--lightning-staging-limit=0"}, {},
                      "bad value '0' for --lightning-staging-limit: expected a size above 0 such "
                      "as 2GB");
  expect_config_error(
      {"app", "--lightning-devcies=host:2"}, {},
      "unknown configuration key 'devcies' in --lightning-devcies (known keys: "
      "devices, device-memory, host-memory, spill-dir, staging-limit, trace, log, "
      "jit-cache, compile-check, heartbeat-interval, peer-timeout, direct-receive-wait, "
      "comm-poll, gpu-poll, check-access)");
  expect_config_error({"app", "--lightning-compile-check="}, {},
                      "bad value '' for --lightning-compile-check: expected a GPU architecture "
                      "such as sm_90");
  expect_config_error({"app", "--lightning-peer-timeout=5"}, {},
                      "bad value '5' for --lightning-peer-timeout: expected a duration such as 5s "
                      "(units us, ms, s)");
  expect_config_error({"app"}, {{"LIGHTNING_HEARTBEAT_INTERVAL", "0"}},
                      "bad value '0' for LIGHTNING_HEARTBEAT_INTERVAL: expected a duration such "
                      "as 500ms (units us, ms, s)");
  expect_config_error({"app", "--lightning-trace"}, {},
                      "argument '--lightning-trace' has no value: write --lightning-<key>=<value>");
}

TEST(Config, GpuPollIsADuration) {
  Args args({"app", "--lightning-gpu-poll=2ms"});
  EXPECT_EQ(Config::load(&args.argc, args.argv(), env_of({})).gpu_poll,
            std::chrono::milliseconds(2));
  Args off({"app"});
  EXPECT_EQ(Config::load(&off.argc, off.argv(), env_of({{"LIGHTNING_GPU_POLL", "0"}})).gpu_poll,
            std::chrono::microseconds(0));
  expect_config_error({"app", "--lightning-gpu-poll=soon"}, {},
                      "bad value 'soon' for --lightning-gpu-poll: expected a duration such as "
                      "10ms (units us, ms, s; 0: sleep soon)");
}

TEST(Config, CommPollIsADuration) {
  Args defaults({"app"});
  EXPECT_EQ(Config::load(&defaults.argc, defaults.argv(), env_of({})).comm_poll,
            std::chrono::milliseconds(10));
  Args args({"app", "--lightning-comm-poll=2ms"});
  EXPECT_EQ(Config::load(&args.argc, args.argv(), env_of({})).comm_poll,
            std::chrono::milliseconds(2));
  expect_config_error({"app", "--lightning-comm-poll=often"}, {},
                      "bad value 'often' for --lightning-comm-poll: expected a duration such as "
                      "10ms (units us, ms, s; 0: sleep at once)");
}

TEST(Config, CheckedModeIsASwitch) {
  {
    Args args({"app"});
    EXPECT_EQ(Config::load(&args.argc, args.argv(), env_of({})).check_access,
              Config::check_access_by_default());
  }
  {
    Args args({"app", "--lightning-check-access", "input"});  // alone: on
    Config c = Config::load(&args.argc, args.argv(), env_of({{"LIGHTNING_CHECK_ACCESS", "off"}}));
    EXPECT_TRUE(c.check_access);
    EXPECT_EQ(args.argc, 2);  // the switch is removed
    EXPECT_EQ(std::string(args.argv()[1]), "input");
  }
  for (const char* off : {"off", "0", "false", "no"}) {
    Args args({"app", std::string("--lightning-check-access=") + off});
    EXPECT_FALSE(Config::load(&args.argc, args.argv(), env_of({})).check_access) << off;
  }
  Args args({"app"});
  EXPECT_TRUE(Config::load(&args.argc, args.argv(), env_of({{"LIGHTNING_CHECK_ACCESS", "on"}}))
                  .check_access);
  expect_config_error({"app"}, {{"LIGHTNING_CHECK_ACCESS", "maybe"}},
                      "bad value 'maybe' for LIGHTNING_CHECK_ACCESS: expected on or off");
}

TEST(Config, DescribeListsEveryKey) {
  Config c;
  c.set("device-memory", "64MiB", "test");
  const std::string text = c.describe();
  for (const auto& key : Config::keys())
    EXPECT_NE(text.find(key + " = "), std::string::npos) << key;
  EXPECT_NE(text.find("device-memory = 64 MiB"), std::string::npos);
  EXPECT_NE(text.find("staging-limit = 1.9 GiB"), std::string::npos);
}

}  // namespace
}  // namespace lightning
