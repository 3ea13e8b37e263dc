// A ported kernel's source as the runtime reads it: launch bounds and gridDim, outside
// comments and literals; and its launch shape (domain, blocks, limits, superblock grids).
#include "kernel/ported_source.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "kernel/ported_launch.hpp"

namespace lightning::kernel {
namespace {

TEST(PortedSource, TheFunctionsLaunchBoundsAreBlankedAndKept) {
  const std::string source =
      "// __launch_bounds__(32) gridDim: a comment\n"
      "const char* s = \"__launch_bounds__(64) gridDim\";\n"
      "__device__ void __launch_bounds__(64) other(dim3 blockIdx) {}\n"
      "__launch_bounds__(256u,\n 2) __device__ static void k(dim3 blockIdx) {}\n";
  const PortedSource p = read_ported_source(source, "k");
  EXPECT_EQ(p.launch_bounds, "256u,\n 2");
  EXPECT_EQ(p.max_threads, 256);
  EXPECT_FALSE(p.uses_grid_dim);
  ASSERT_EQ(p.text.size(), source.size());
  EXPECT_EQ(p.text.find("__launch_bounds__(64) other"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("// __launch_bounds__(32)"), std::string::npos) << p.text;
  EXPECT_NE(p.text.find("\"__launch_bounds__(64) gridDim\""), std::string::npos) << p.text;
  // Lines stay where they were, so compiler messages point at the user's lines.
  for (size_t i = 0; i < source.size(); ++i)
    ASSERT_EQ(p.text[i] == '\n', source[i] == '\n') << "at " << i;
}

TEST(PortedSource, BoundsThatAreNotALiteralAreKeptButNotChecked) {
  const PortedSource p = read_ported_source(
      "#define T 128\n__device__ void __launch_bounds__(T) k(dim3 b) { (void)gridDim.x; }", "k");
  EXPECT_EQ(p.launch_bounds, "T");
  EXPECT_EQ(p.max_threads, 0);
  EXPECT_TRUE(p.uses_grid_dim);
  EXPECT_EQ(read_ported_source("__device__ void k(dim3 b) {}", "k").launch_bounds, "");
  EXPECT_FALSE(read_ported_source("// __constant__\nvoid k() {}", "k").uses_constant_memory);
  EXPECT_TRUE(
      read_ported_source("__constant__ float c[4];\nvoid k() {}", "k").uses_constant_memory);
}

TEST(PortedSource, FindsBlockIdxReadOutsideTheKernelsFunction) {
  const auto elsewhere = [](const std::string& source, const std::string& function) {
    return read_ported_source(source, function).uses_block_index_elsewhere;
  };
  const std::string kernel = "__device__ void k(dim3 blockIdx, int n) { if (blockIdx.x < n) {} }\n";
  EXPECT_FALSE(elsewhere(kernel, "k"));
  EXPECT_FALSE(elsewhere("// blockIdx\n__device__ int h() { return 1; }\n" + kernel, "k"));
  EXPECT_FALSE(elsewhere("__device__ void k(dim3 blockIdx, int n);\n" + kernel, "k"));
  EXPECT_TRUE(elsewhere("__device__ int h() { return blockIdx.x; }\n" + kernel, "k"));
  EXPECT_TRUE(elsewhere(kernel + "__device__ int h() { return blockIdx.y; }\n", "k"));
  // A declaration is no definition: what follows it is elsewhere.
  EXPECT_TRUE(elsewhere("__device__ void k(dim3 blockIdx, int n);\nint x = blockIdx.x;", "k"));
  // Templates and qualified names: their base name; launch bounds and qualifiers between the
  // parameters and the body.
  EXPECT_FALSE(
      elsewhere("template <int B> __device__ void __launch_bounds__(B) "
                "mm(dim3 blockIdx) { int b = blockIdx.x * B; }",
                "mm<16>"));
  EXPECT_FALSE(
      elsewhere("namespace s { __device__ void k(dim3 blockIdx) noexcept "
                "{ { int b = blockIdx.x; } int c = blockIdx.y; } }",
                "s::k"));
  // A call is no declaration: a helper that passes blockIdx on reads it.
  EXPECT_TRUE(elsewhere(kernel + "__device__ void wrap(int n) { k(blockIdx, n); }\n", "k"));
  // Not found at all: blockIdx is taken to be read elsewhere.
  EXPECT_TRUE(elsewhere("__device__ void other(dim3 blockIdx) { int b = blockIdx.x; }", "k"));
}

jit::PortedLaunch shape(uint32_t rank, std::array<uint32_t, 3> grid,
                        std::array<uint32_t, 3> block) {
  jit::PortedLaunch l{};
  l.rank = rank;
  for (int a = 0; a < 3; ++a) {
    l.grid[a] = grid[static_cast<size_t>(a)];
    l.block[a] = block[static_cast<size_t>(a)];
  }
  return l;
}

TEST(PortedLaunchShape, DomainIsGridTimesBlockWithXFirst) {
  const jit::PortedLaunch l = shape(2, {8, 4, 1}, {16, 32, 1});
  EXPECT_EQ(domain_of(l), Rect(Point{0, 0}, Point{128, 128}));
  EXPECT_EQ(block_size_of(l), (Point{16, 32}));
  EXPECT_EQ(to_string(l), "grid (8, 4) of blocks (16, 32)");
  // Superblock x in [32, 96), y in [64, 128): 4 x 2 blocks.
  const auto g = superblock_grid(l, Rect(Point{32, 64}, Point{96, 128}));
  EXPECT_EQ(g, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_THROW(superblock_grid(l, Rect(Point{8, 0}, Point{32, 32})), Error);
  EXPECT_EQ(domain_of(shape(3, {2, 3, 4}, {4, 2, 1})), Rect(Point{0, 0, 0}, Point{8, 6, 4}));
}

TEST(PortedLaunchShape, LimitsAreCudas) {
  EXPECT_EQ(limit_violation(shape(3, {(1u << 31) - 1, 65535, 65535}, {1024, 1, 1}), 0), "");
  EXPECT_EQ(limit_violation(shape(1, {1u << 31, 1, 1}, {1024, 1, 1}), 0),
            "a grid of 2147483648 blocks along x is more than 2147483647");
  EXPECT_EQ(limit_violation(shape(2, {1, 1, 1}, {32, 33, 1}), 0),
            "a block (32, 33) of 1056 threads is more than 1024");
  EXPECT_EQ(limit_violation(shape(2, {1, 1, 1}, {16, 16, 1}), 128),
            "a block (16, 16) of 256 threads is more than the kernel's __launch_bounds__ allow "
            "(128)");
  jit::PortedLaunch shared = shape(2, {4, 4, 1}, {16, 16, 1});
  shared.shared_bytes = 227 * 1024;  // what an H100 or H200 lets a block opt into
  EXPECT_EQ(limit_violation(shared, 0), "");
  shared.shared_bytes += 1;
  EXPECT_EQ(limit_violation(shared, 0),
            "232449 bytes of dynamic shared memory per block are more than the 232448 (227 KiB) "
            "a block may have on any GPU");
  EXPECT_NE(limit_violation(shape(1, {1, 2, 1}, {1, 1, 1}), 0), "");  // an axis beyond rank
  EXPECT_NE(limit_violation(shape(0, {1, 1, 1}, {1, 1, 1}), 0), "");
}

}  // namespace
}  // namespace lightning::kernel
