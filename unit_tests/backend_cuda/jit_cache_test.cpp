#include "backend/cuda/jit_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "core/error.hpp"

namespace lightning::cuda {
namespace {

namespace fs = std::filesystem;
using kernel::DeviceCodeKind;
using kernel::KernelInfo;

KernelInfo scale_info(const std::string& name, const std::string& body) {
  KernelInfo info;
  info.name = name;
  info.functor_size = 48;  // ArrayHandle<float, 1>, a control pointer, a float and padding
  info.description.signature.add_array("x", DataType::kFloat32, 1)
      .add_scalar("s", DataType::kFloat32);
  info.device.kind = DeviceCodeKind::kFunctorBody;
  info.device.source = body;
  info.device.param_offsets = {0, 40};
  info.device.index_rank = 1;
  return info;
}

const char* kBody = "void operator()(int64_t i) const { x(i) *= s; }";

// A fresh directory per test, removed afterwards.
class JitCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("lightning_jit_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<fs::path> cubin_files() const {
    std::vector<fs::path> files;
    if (fs::exists(dir_))
      for (const auto& e : fs::directory_iterator(dir_)) files.push_back(e.path());
    return files;
  }
  fs::path dir_;
};

TEST_F(JitCacheTest, CompilesOnceThenServesFromMemory) {
  JitCache cache(dir_.string());
  const KernelInfo info = scale_info("jit::Scale", kBody);
  const KernelImage& a = cache.get(info, 9, 0);
  const KernelImage& b = cache.get(info, 9, 0);
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(a.entry, "lightning_entry");
  EXPECT_EQ(cache.stats().compiled, 1u);
  ASSERT_EQ(cubin_files().size(), 1u);
  EXPECT_EQ(cubin_files()[0].extension(), ".cubin");
}

TEST_F(JitCacheTest, ASecondCacheOnTheDirectoryReadsTheFile) {
  const KernelInfo info = scale_info("jit::Scale", kBody);
  std::vector<char> first;
  {
    JitCache cache(dir_.string());
    first = cache.get(info, 9, 0).cubin;
  }
  JitCache again(dir_.string());
  EXPECT_EQ(again.get(info, 9, 0).cubin, first);
  EXPECT_EQ(again.stats().compiled, 0u);
  EXPECT_EQ(again.stats().from_disk, 1u);
}

TEST_F(JitCacheTest, ArchitectureAndSpecialisationAreSeparateImages) {
  JitCache cache(dir_.string());
  const KernelInfo info = scale_info("jit::Scale", kBody);
  cache.get(info, 9, 0);
  cache.get(info, 8, 0);
  KernelSpecialization spec;
  spec.block_size = 128;
  cache.get(info, 9, 0, spec);
  EXPECT_EQ(cache.stats().compiled, 3u);
  EXPECT_EQ(cubin_files().size(), 3u);
}

TEST_F(JitCacheTest, DamagedFileIsIgnoredAndRewritten) {
  const KernelInfo info = scale_info("jit::Scale", kBody);
  std::vector<char> good;
  {
    JitCache cache(dir_.string());
    good = cache.get(info, 9, 0).cubin;
  }
  const fs::path file = cubin_files().at(0);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(file) - 10));
    f.put('\x5a').put('\x5b');
  }
  JitCache cache(dir_.string());
  EXPECT_EQ(cache.get(info, 9, 0).cubin, good);
  EXPECT_EQ(cache.stats().disk_errors, 1u);
  EXPECT_EQ(cache.stats().compiled, 1u);
  JitCache third(dir_.string());
  third.get(info, 9, 0);
  EXPECT_EQ(third.stats().from_disk, 1u) << "the rewritten file is whole again";
}

TEST_F(JitCacheTest, ConcurrentRequestsCompileOnce) {
  JitCache cache(dir_.string());
  const KernelInfo info = scale_info("jit::Scale", kBody);
  std::vector<std::thread> threads;
  std::vector<const KernelImage*> got(8);
  for (int t = 0; t < 8; ++t) threads.emplace_back([&, t] { got[t] = &cache.get(info, 9, 0); });
  for (auto& t : threads) t.join();
  for (const KernelImage* k : got) EXPECT_EQ(k, got[0]);
  EXPECT_EQ(cache.stats().compiled, 1u);
}

TEST_F(JitCacheTest, CompileErrorsNameTheKernelAndAreRetried) {
  JitCache cache("");  // memory only
  const KernelInfo info =
      scale_info("jit::Broken", "void operator()(int64_t i) const { y(i) = 1; }");
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      cache.get(info, 9, 0);
      FAIL() << "expected a compile error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kCuda);
      const std::string what = e.what();
      EXPECT_NE(what.find("jit::Broken"), std::string::npos) << what;
      EXPECT_NE(what.find("identifier \"y\" is undefined"), std::string::npos) << what;
      EXPECT_NE(what.find("members the kernel lists: x, s"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(cache.stats().compiled, 0u);
}

TEST(JitCacheDirectory, ConfigThenXdgThenHome) {
  std::map<std::string, std::string> env;
  const Config::EnvLookup lookup = [&](const std::string& name) -> std::optional<std::string> {
    auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  };
  Config config;
  EXPECT_EQ(JitCache::directory_for(config, lookup), "");
  env["HOME"] = "/home/u";
  EXPECT_EQ(JitCache::directory_for(config, lookup), "/home/u/.cache/lightning_kokkos");
  env["XDG_CACHE_HOME"] = "/xdg";
  EXPECT_EQ(JitCache::directory_for(config, lookup), "/xdg/lightning_kokkos");
  config.jit_cache = "/chosen";
  EXPECT_EQ(JitCache::directory_for(config, lookup), "/chosen");
}

TEST(JitCacheKey, DependsOnSourceAndOptions) {
  const std::string k = JitCache::disk_key("a", {"--gpu-architecture=sm_90"});
  EXPECT_EQ(k.size(), 32u);
  EXPECT_EQ(k, JitCache::disk_key("a", {"--gpu-architecture=sm_90"}));
  EXPECT_NE(k, JitCache::disk_key("b", {"--gpu-architecture=sm_90"}));
  EXPECT_NE(k, JitCache::disk_key("a", {"--gpu-architecture=sm_80"}));
  EXPECT_NE(JitCache::disk_key("ab", {"c"}), JitCache::disk_key("a", {"bc"}));
}

}  // namespace
}  // namespace lightning::cuda
