#include "worker/spill_store.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <vector>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

namespace fs = std::filesystem;

/// A fresh parent directory for one test, removed afterwards.
struct TempParent {
  fs::path path;
  TempParent() {
    std::string templ = (fs::temp_directory_path() / "lk-spill-test-XXXXXX").string();
    path = ::mkdtemp(templ.data());
  }
  ~TempParent() { fs::remove_all(path); }
  bool empty() const { return fs::is_empty(path); }
};

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
  return v;
}

TEST(SpillStore, RoundTripAndCleanup) {
  TempParent parent;
  std::string dir;
  {
    SpillStore store(parent.path.string());
    dir = store.directory();
    EXPECT_EQ(fs::path(dir).parent_path(), parent.path);
    EXPECT_NE(fs::path(dir).filename().string().find("lightning-spill-"), std::string::npos);
    auto a = pattern(10000, 1);
    auto b = pattern(0, 2);
    store.write(ChunkId(4), a.data(), a.size());
    store.write(ChunkId(5), b.data(), b.size());
    EXPECT_EQ(store.file_count(), 2u);
    EXPECT_TRUE(store.contains(ChunkId(4)));
    EXPECT_EQ(fs::file_size(store.path_of(ChunkId(4))), SpillStore::kHeaderSize + a.size());
    std::vector<unsigned char> back(a.size());
    store.read(ChunkId(4), back.data(), back.size());
    EXPECT_EQ(back, a);
    store.read(ChunkId(5), nullptr, 0);
    // Rewrite with other contents.
    auto a2 = pattern(10000, 9);
    store.write(ChunkId(4), a2.data(), a2.size());
    store.read(ChunkId(4), back.data(), back.size());
    EXPECT_EQ(back, a2);
    store.remove(ChunkId(5));
    EXPECT_FALSE(fs::exists(store.path_of(ChunkId(5))));
    EXPECT_EQ(store.file_count(), 1u);
  }
  EXPECT_FALSE(fs::exists(dir));
  EXPECT_TRUE(parent.empty());
}

TEST(SpillStore, DefaultDirectoryIsUnderTmpdir) {
  TempParent parent;
  const char* old = std::getenv("TMPDIR");
  std::string saved = old ? old : "";
  ::setenv("TMPDIR", parent.path.c_str(), 1);
  std::string dir;
  {
    SpillStore store("");
    dir = store.directory();
  }
  if (old)
    ::setenv("TMPDIR", saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  EXPECT_EQ(fs::path(dir).parent_path(), parent.path);
  EXPECT_TRUE(parent.empty());
}

TEST(SpillStore, MissingParentIsCreated) {
  TempParent parent;
  SpillStore store((parent.path / "a" / "b").string());
  EXPECT_TRUE(fs::is_directory(store.directory()));
}

std::string read_error(const SpillStore& store, ChunkId chunk, size_t bytes) {
  std::vector<unsigned char> back(bytes);
  try {
    store.read(chunk, back.data(), bytes);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kTask);
    return e.message();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(SpillStore, CorruptPayloadIsDetected) {
  TempParent parent;
  SpillStore store(parent.path.string());
  auto a = pattern(4096, 3);
  store.write(ChunkId(7), a.data(), a.size());
  const std::string path = store.path_of(ChunkId(7));
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(SpillStore::kHeaderSize + 1000);
    char c = static_cast<char>(a[1000] ^ 0x10);
    f.write(&c, 1);
  }
  const std::string msg = read_error(store, ChunkId(7), a.size());
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("C7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("checksum 0x"), std::string::npos) << msg;
  EXPECT_NE(msg.find("header checksum 0x"), std::string::npos) << msg;
}

TEST(SpillStore, CorruptHeaderAndTruncationAreDetected) {
  TempParent parent;
  SpillStore store(parent.path.string());
  auto a = pattern(1000, 4);
  store.write(ChunkId(1), a.data(), a.size());
  const std::string path = store.path_of(ChunkId(1));
  // Wrong expected size.
  EXPECT_NE(read_error(store, ChunkId(1), 999).find("header says 1000 bytes"), std::string::npos);
  // Bad magic.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.write("X", 1);
  }
  EXPECT_NE(read_error(store, ChunkId(1), a.size()).find("bad magic"), std::string::npos);
  // Truncated payload.
  store.write(ChunkId(1), a.data(), a.size());
  fs::resize_file(path, SpillStore::kHeaderSize + 10);
  EXPECT_NE(read_error(store, ChunkId(1), a.size()).find("truncated"), std::string::npos);
  // Another chunk's file under this chunk's name.
  store.write(ChunkId(2), a.data(), a.size());
  fs::copy_file(store.path_of(ChunkId(2)), path, fs::copy_options::overwrite_existing);
  EXPECT_NE(read_error(store, ChunkId(1), a.size()).find("names chunk C2"), std::string::npos);
  // Missing file.
  fs::remove(path);
  EXPECT_NE(read_error(store, ChunkId(1), a.size()).find("cannot open"), std::string::npos);
}

TEST(SpillStore, UncreatableDirectoryIsAConfigError) {
  TempParent parent;
  std::ofstream(parent.path / "file") << "x";
  try {
    SpillStore store((parent.path / "file" / "sub").string());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kConfig);
    EXPECT_NE(e.message().find("file/sub"), std::string::npos) << e.message();
  }
}

// A child process makes a store, spills a chunk, reports its directory through a pipe and
// then ends by `signal`; returns the directory. (The child has the handlers its first store
// installs, or inherits them from this process's first store.)
std::string spill_then_die(const fs::path& parent, int signal) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    SpillStore store(parent.string());
    const auto bytes = pattern(4096, 3);
    store.write(ChunkId(1), bytes.data(), bytes.size());
    const std::string dir = store.directory() + "\n";
    if (::write(fds[1], dir.data(), dir.size()) < 0) ::_exit(3);
    ::close(fds[1]);
    ::raise(signal);
    ::_exit(2);  // not reached
  }
  ::close(fds[1]);
  std::string dir;
  char c;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') dir += c;
  ::close(fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "status " << status;
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), signal);
  }
  return dir;
}

TEST(SpillStore, SigintAndSigtermRemoveTheDirectory) {
  for (int signal : {SIGINT, SIGTERM}) {
    TempParent parent;
    const std::string dir = spill_then_die(parent.path, signal);
    ASSERT_FALSE(dir.empty());
    EXPECT_FALSE(fs::exists(dir)) << strsignal(signal) << " left " << dir;
  }
}

TEST(SpillStore, TheNextStoreRemovesTheDirectoryOfAKilledProcess) {
  TempParent parent;
  const std::string dir = spill_then_die(parent.path, SIGKILL);
  ASSERT_TRUE(fs::exists(fs::path(dir) / "C1.spill"));  // SIGKILL runs no handler
  SpillStore live(parent.path.string());
  {
    SpillStore next(parent.path.string());  // sweeps the dead one's, not the live one's
    EXPECT_FALSE(fs::exists(dir));
    EXPECT_TRUE(fs::exists(live.directory()));
  }
  EXPECT_TRUE(fs::exists(live.directory()));
}

TEST(SpillStore, OnlyOldDirectoriesWithoutALockAreSwept) {
  TempParent parent;
  const fs::path fresh = parent.path / "lightning-spill-fresh0";
  const fs::path old = parent.path / "lightning-spill-old000";
  const fs::path other = parent.path / "not-a-spill-dir";
  for (const fs::path& d : {fresh, old, other}) fs::create_directory(d);
  const auto hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(old, hour_ago);
  fs::last_write_time(other, hour_ago);
  { SpillStore store(parent.path.string()); }
  EXPECT_TRUE(fs::exists(fresh));  // its owner may be about to lock it
  EXPECT_FALSE(fs::exists(old));
  EXPECT_TRUE(fs::exists(other));
}

}  // namespace
}  // namespace lightning::worker
