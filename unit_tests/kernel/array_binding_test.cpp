#include "kernel/array_binding.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::kernel {
namespace {

// A kernel's bytes: a scalar, a rank-2 handle, a rank-1 handle, guard bytes after each.
struct Bytes {
  int64_t before = -1;
  ArrayHandle<double, 2> matrix;
  int64_t guard = -2;
  ArrayHandle<float, 1> vector;
  int64_t after = -3;
};

const ArraySlot kMatrix{1, offsetof(Bytes, matrix), 2};
const ArraySlot kVector{2, offsetof(Bytes, vector), 1};

TEST(ArrayBinding, HandleSizeIsTheLayoutsOneStatement) {
  EXPECT_EQ(handle_size(kVector), sizeof(ArrayHandle<float, 1>));
  EXPECT_EQ(handle_size(kMatrix), sizeof(ArrayHandle<double, 2>));
  EXPECT_EQ(array_handle_size(3), sizeof(ArrayHandle<int, 3>));
}

// A chunk holding rows [2, 4) x columns [1, 4) of a 10 x 8 array: global (i, j) lands at
// (i - 2) * 3 + (j - 1) of the chunk's storage, and nothing outside the handle is touched.
TEST(ArrayBinding, BindsGlobalIndicesToAChunksStorage) {
  Bytes b;
  std::vector<double> chunk(6);
  for (size_t k = 0; k < chunk.size(); ++k) chunk[k] = static_cast<double>(k);
  bind_array(reinterpret_cast<uint8_t*>(&b), kMatrix, chunk.data(), Rect(Point{2, 1}, Point{4, 4}),
             Point{10, 8});
  EXPECT_EQ(b.matrix.stride[0], 3);
  EXPECT_EQ(b.matrix.stride[1], 1);
  EXPECT_EQ(b.matrix.extent[0], 10);
  EXPECT_EQ(b.matrix.extent[1], 8);
  EXPECT_EQ(b.matrix(2, 1), 0.0);
  EXPECT_EQ(b.matrix(3, 3), 5.0);
  EXPECT_EQ(b.before, -1);
  EXPECT_EQ(b.guard, -2);
}

TEST(ArrayBinding, FoldsChunkOffsetsIntoTheDataPointer) {
  Bytes b;
  std::vector<float> chunk = {10, 11, 12, 13};
  bind_array(reinterpret_cast<uint8_t*>(&b), kVector, chunk.data(), Rect(Point{100}, Point{104}),
             Point{1000});
  ASSERT_EQ(b.vector.offset, 100);
  annotation::KernelSignature signature;
  signature.add_scalar("n", DataType::kInt64);
  signature.add_array("m", DataType::kFloat64, 2);
  signature.add_array("v", DataType::kFloat32, 1);
  fold_chunk_offsets({kVector}, signature, reinterpret_cast<uint8_t*>(&b));
  EXPECT_EQ(b.vector.offset, 0);
  // The same elements, now addressed as data[i] (what generated GPU code does).
  EXPECT_EQ(b.vector.data + 102, chunk.data() + 2);
  EXPECT_EQ(b.after, -3);
  // A slot naming a scalar parameter is a broken invariant, not silent corruption.
  EXPECT_THROW(fold_chunk_offsets({ArraySlot{0, offsetof(Bytes, vector), 1}}, signature,
                                  reinterpret_cast<uint8_t*>(&b)),
               Error);
}

TEST(ArrayBinding, ClearsEveryHandleAndNothingElse) {
  Bytes b;
  std::vector<float> chunk(4);
  bind_array(reinterpret_cast<uint8_t*>(&b), kVector, chunk.data(), Rect(Point{0}, Point{4}),
             Point{4});
  clear_arrays(reinterpret_cast<uint8_t*>(&b), {kMatrix, kVector});
  EXPECT_EQ(b.vector.data, nullptr);
  EXPECT_EQ(b.vector.extent[0], 0);
  EXPECT_EQ(b.matrix.data, nullptr);
  EXPECT_EQ(b.before, -1);
  EXPECT_EQ(b.guard, -2);
  EXPECT_EQ(b.after, -3);
}

}  // namespace
}  // namespace lightning::kernel
