#include "worker/region_ops.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/error.hpp"

namespace lightning::worker {
namespace {

// ---- brute-force reference -------------------------------------------------------------------

/// Row-major index of p in box, computed the long way.
size_t index_in(const Rect& box, const Point& p) {
  size_t index = 0;
  for (int a = 0; a < box.rank(); ++a)
    index = index * static_cast<size_t>(box.hi()[a] - box.lo()[a]) +
            static_cast<size_t>(p[a] - box.lo()[a]);
  return index;
}

struct Buf {
  Rect box;
  size_t elem;
  std::vector<unsigned char> bytes;
  Buf(Rect b, size_t e, std::mt19937_64& rng) : box(b), elem(e) {
    bytes.resize(static_cast<size_t>(box.volume()) * elem);
    for (auto& c : bytes) c = static_cast<unsigned char>(rng());
  }
  BoxBuffer buffer() { return {bytes.empty() ? nullptr : bytes.data(), box, elem}; }
  unsigned char* at(const Point& p) { return bytes.data() + index_in(box, p) * elem; }
};

Rect random_box(std::mt19937_64& rng, int rank, int64_t max_extent = 6) {
  Point lo = Point::filled(rank, 0), hi = Point::filled(rank, 0);
  for (int a = 0; a < rank; ++a) {
    lo[a] = static_cast<int64_t>(rng() % 11) - 5;
    hi[a] = lo[a] + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(max_extent));
  }
  return {lo, hi};
}

/// A random region inside `outer`: often all of it or whole rows (the coalesced paths),
/// sometimes empty.
Rect random_region(std::mt19937_64& rng, const Rect& outer) {
  const int rank = outer.rank();
  if (outer.empty()) return Rect::empty_of_rank(rank);
  switch (rng() % 6) {
    case 0:
      return outer;
    case 1:
      return Rect::empty_of_rank(rank);
    default:
      break;
  }
  Point lo = outer.lo(), hi = outer.hi();
  const bool full_inner = rng() % 2 == 0;
  for (int a = 0; a < rank; ++a) {
    if (full_inner && a > 0) continue;
    const int64_t n = outer.hi()[a] - outer.lo()[a];
    const int64_t x = static_cast<int64_t>(rng() % static_cast<uint64_t>(n));
    const int64_t y = static_cast<int64_t>(rng() % static_cast<uint64_t>(n + 1));
    lo[a] = outer.lo()[a] + std::min(x, y);
    hi[a] = outer.lo()[a] + std::max(x + 1, y);
  }
  return {lo, hi};
}

/// Two boxes that overlap (a source and a destination), possibly identical.
std::pair<Rect, Rect> overlapping_boxes(std::mt19937_64& rng, int rank) {
  for (;;) {
    Rect a = random_box(rng, rank);
    Rect b = rng() % 4 == 0 ? a : random_box(rng, rank);
    if (a.intersects(b) || rank == 0) return {a, b};
  }
}

constexpr size_t kElemSizes[] = {1, 2, 4, 8, 12, 16};

TEST(RegionOps, CopyMatchesBruteForce) {
  std::mt19937_64 rng(1);
  for (int iter = 0; iter < 4000; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    auto [dbox, sbox] = overlapping_boxes(rng, rank);
    const Rect region = random_region(rng, dbox.intersection(sbox));
    Buf dst(dbox, elem, rng), src(sbox, elem, rng);
    Buf expected = dst;
    region.for_each_point([&](const Point& p) { std::memcpy(expected.at(p), src.at(p), elem); });
    copy_region(dst.buffer(), src.buffer(), region);
    ASSERT_EQ(dst.bytes, expected.bytes)
        << "iteration " << iter << " region " << region.to_string() << " dst " << dbox.to_string()
        << " src " << sbox.to_string() << " elem " << elem;
  }
}

TEST(RegionOps, FillMatchesBruteForce) {
  std::mt19937_64 rng(2);
  for (int iter = 0; iter < 3000; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    const Rect box = random_box(rng, rank);
    const Rect region = random_region(rng, box);
    Buf dst(box, elem, rng);
    std::vector<unsigned char> value(elem);
    for (auto& c : value) c = static_cast<unsigned char>(rng());
    if (rng() % 4 == 0) std::fill(value.begin(), value.end(), value[0]);  // the memset path
    Buf expected = dst;
    region.for_each_point([&](const Point& p) { std::memcpy(expected.at(p), value.data(), elem); });
    fill_region(dst.buffer(), region, value.data());
    ASSERT_EQ(dst.bytes, expected.bytes)
        << "iteration " << iter << " region " << region.to_string() << " box " << box.to_string();
  }
}

TEST(RegionOps, PackAndUnpackMatchBruteForce) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 3000; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    auto [sbox, dbox] = overlapping_boxes(rng, rank);
    const Rect region = random_region(rng, sbox.intersection(dbox));
    Buf src(sbox, elem, rng), dst(dbox, elem, rng);

    std::vector<unsigned char> packed(static_cast<size_t>(region.volume()) * elem, 0xEE),
        expected_packed;
    region.for_each_point([&](const Point& p) {
      expected_packed.insert(expected_packed.end(), src.at(p), src.at(p) + elem);
    });
    pack_region(packed.empty() ? nullptr : packed.data(), src.buffer(), region);
    ASSERT_EQ(packed, expected_packed) << "iteration " << iter;

    Buf expected = dst;
    region.for_each_point([&](const Point& p) { std::memcpy(expected.at(p), src.at(p), elem); });
    unpack_region(dst.buffer(), packed.empty() ? nullptr : packed.data(), region);
    ASSERT_EQ(dst.bytes, expected.bytes) << "iteration " << iter;
  }
}

// contiguous_block: non-null exactly when the region's row-major indices in the box form one
// interval, and then it points at the region's first element, where the packed bytes lie.
TEST(RegionOps, ContiguousBlockMatchesBruteForce) {
  std::mt19937_64 rng(5);
  int found = 0, not_found = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    const int rank = static_cast<int>(rng() % 4);
    const size_t elem = kElemSizes[rng() % std::size(kElemSizes)];
    const Rect box = random_box(rng, rank);
    const Rect region = random_region(rng, box);
    Buf buf(box, elem, rng);
    size_t lo = SIZE_MAX, hi = 0;
    region.for_each_point([&](const Point& p) {
      lo = std::min(lo, index_in(box, p));
      hi = std::max(hi, index_in(box, p));
    });
    const bool contiguous = !region.empty() && hi - lo + 1 == static_cast<size_t>(region.volume());
    void* block = contiguous_block(buf.buffer(), region);
    ASSERT_EQ(block != nullptr, contiguous)
        << "iteration " << iter << " region " << region.to_string() << " box " << box.to_string();
    if (!block) {
      ++not_found;
      continue;
    }
    ++found;
    std::vector<unsigned char> packed(static_cast<size_t>(region.volume()) * elem);
    pack_region(packed.data(), buf.buffer(), region);
    ASSERT_EQ(std::memcmp(block, packed.data(), packed.size()), 0) << "iteration " << iter;
  }
  EXPECT_GT(found, 100);  // both outcomes were exercised
  EXPECT_GT(not_found, 100);
  const Rect box(Point{0, 0}, Point{4, 4});
  EXPECT_THROW(contiguous_block({nullptr, box, 4}, Rect(Point{2, 2}, Point{5, 3})), Error);
}

// ---- fold ------------------------------------------------------------------------------------

/// The reference semantics, written independently of the implementation.
template <class T>
T reference_fold(ReduceOp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case ReduceOp::kSum:
        return a + b;
      case ReduceOp::kProd:
        return a * b;
      case ReduceOp::kMin:
      case ReduceOp::kMax: {
        if (a != a) return a;  // NaN: dst's first
        if (b != b) return b;
        if (a == 0 && b == 0) {  // -0 < +0
          const bool a_neg = std::signbit(a);
          if (op == ReduceOp::kMin) return a_neg ? a : b;
          return a_neg ? b : a;
        }
        if (op == ReduceOp::kMin) return a < b ? a : b;
        return a > b ? a : b;
      }
      default:
        break;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case ReduceOp::kSum: {  // modulo 2^bits, via the unsigned type of the same width
        U r = static_cast<U>(static_cast<U>(a) + static_cast<U>(b));
        T out;
        std::memcpy(&out, &r, sizeof(T));
        return out;
      }
      case ReduceOp::kProd: {
        // Unsigned multiplication without promotion surprises: uint64_t, then truncate.
        uint64_t r =
            static_cast<uint64_t>(static_cast<U>(a)) * static_cast<uint64_t>(static_cast<U>(b));
        U r_narrow = static_cast<U>(r);
        T out;
        std::memcpy(&out, &r_narrow, sizeof(T));
        return out;
      }
      case ReduceOp::kMin:
        return a < b ? a : b;
      case ReduceOp::kMax:
        return a > b ? a : b;
      default:
        break;
    }
  }
  ADD_FAILURE() << "bad op";
  return a;
}

template <class T>
T random_value(std::mt19937_64& rng) {
  if constexpr (std::is_floating_point_v<T>) {
    using L = std::numeric_limits<T>;
    switch (rng() % 10) {
      case 0:
        return L::quiet_NaN();
      case 1:
        return -L::quiet_NaN();
      case 2:
        return T(0);
      case 3:
        return -T(0);
      case 4:
        return L::infinity();
      case 5:
        return -L::infinity();
      default:
        return static_cast<T>(static_cast<int64_t>(rng() % 2001) - 1000) / T(8);
    }
  } else {
    using L = std::numeric_limits<T>;
    switch (rng() % 6) {
      case 0:
        return L::max();
      case 1:
        return L::min();
      default: {
        T v;
        uint64_t bits = rng();
        std::memcpy(&v, &bits, sizeof(T));
        return v;
      }
    }
  }
}

template <class T>
bool same_bits_or_both_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) && std::isnan(b)) return true;
  }
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void check_fold_type(uint64_t seed) {
  std::mt19937_64 rng(seed);
  const DataType type = data_type_of<T>();
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax}) {
    for (int iter = 0; iter < 300; ++iter) {
      const int rank = static_cast<int>(rng() % 4);
      auto [dbox, sbox] = overlapping_boxes(rng, rank);
      const Rect region = random_region(rng, dbox.intersection(sbox));
      Buf dst(dbox, sizeof(T), rng), src(sbox, sizeof(T), rng);
      for (Buf* b : {&dst, &src})
        b->box.for_each_point([&](const Point& p) {
          const T v = random_value<T>(rng);
          std::memcpy(b->at(p), &v, sizeof(T));
        });
      Buf expected = dst;
      region.for_each_point([&](const Point& p) {
        T a, b;
        std::memcpy(&a, expected.at(p), sizeof(T));
        std::memcpy(&b, src.at(p), sizeof(T));
        const T r = reference_fold(op, a, b);
        std::memcpy(expected.at(p), &r, sizeof(T));
      });
      fold_region(dst.buffer(), src.buffer(), region, Reduction::builtin(op, type));
      bool ok = true;
      dbox.for_each_point([&](const Point& p) {
        T got, want;
        std::memcpy(&got, dst.at(p), sizeof(T));
        std::memcpy(&want, expected.at(p), sizeof(T));
        if (!same_bits_or_both_nan(got, want)) ok = false;
      });
      ASSERT_TRUE(ok) << name_of(type) << " op " << static_cast<int>(op) << " iteration " << iter
                      << " region " << region.to_string();
    }
  }
}

TEST(RegionOps, FoldMatchesBruteForceForEveryType) {
  check_fold_type<int8_t>(10);
  check_fold_type<int16_t>(11);
  check_fold_type<int32_t>(12);
  check_fold_type<int64_t>(13);
  check_fold_type<uint8_t>(14);
  check_fold_type<uint16_t>(15);
  check_fold_type<uint32_t>(16);
  check_fold_type<uint64_t>(17);
  check_fold_type<float>(18);
  check_fold_type<double>(19);
}

template <class T>
T fold1(ReduceOp op, T a, T b) {
  const Rect box = Rect::from_extent(Point{1});
  fold_region({&a, box, sizeof(T)}, ConstBoxBuffer{&b, box, sizeof(T)}, box,
              Reduction::builtin(op, data_type_of<T>()));
  return a;
}

TEST(RegionOps, FloatMinMaxPropagateNaNAndOrderSignedZeros) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ReduceOp op : {ReduceOp::kMin, ReduceOp::kMax}) {
    EXPECT_TRUE(std::isnan(fold1(op, nan, 1.0)));
    EXPECT_TRUE(std::isnan(fold1(op, 1.0, nan)));  // unlike std::min(1.0, nan) == 1.0
    EXPECT_TRUE(std::isnan(fold1(op, nan, nan)));
    EXPECT_TRUE(std::isnan(fold1<float>(op, 2.0f, std::nanf(""))));
  }
  EXPECT_TRUE(std::signbit(fold1(ReduceOp::kMin, 0.0, -0.0)));
  EXPECT_TRUE(std::signbit(fold1(ReduceOp::kMin, -0.0, 0.0)));
  EXPECT_FALSE(std::signbit(fold1(ReduceOp::kMax, 0.0, -0.0)));
  EXPECT_FALSE(std::signbit(fold1(ReduceOp::kMax, -0.0, 0.0)));
  // The planner's identities (+inf for min, -inf for max) are neutral.
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(fold1(ReduceOp::kMin, inf, 3.5), 3.5);
  EXPECT_EQ(fold1(ReduceOp::kMax, -inf, 3.5), 3.5);
  EXPECT_EQ(fold1(ReduceOp::kMin, 1.0, 2.0), 1.0);
  EXPECT_EQ(fold1(ReduceOp::kMax, 1.0, 2.0), 2.0);
}

TEST(RegionOps, IntegerSumAndProductWrapAround) {
  EXPECT_EQ(fold1<int32_t>(ReduceOp::kSum, std::numeric_limits<int32_t>::max(), 1),
            std::numeric_limits<int32_t>::min());
  EXPECT_EQ(fold1<int8_t>(ReduceOp::kSum, 127, 1), -128);
  EXPECT_EQ(fold1<uint16_t>(ReduceOp::kProd, 65535, 65535), 1);  // no int promotion overflow
  EXPECT_EQ(fold1<int64_t>(ReduceOp::kProd, std::numeric_limits<int64_t>::min(), -1),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(fold1<int16_t>(ReduceOp::kMin, -3, 2), -3);
  EXPECT_EQ(fold1<uint64_t>(ReduceOp::kMax, 3, ~uint64_t{0}), ~uint64_t{0});
}

TEST(RegionOps, FoldNeedsNoAlignment) {
  std::vector<unsigned char> d(1 + 4 * sizeof(double)), s(1 + 4 * sizeof(double));
  const double dv[4] = {1, 2, 3, 4}, sv[4] = {10, 20, 30, 40};
  std::memcpy(d.data() + 1, dv, sizeof dv);
  std::memcpy(s.data() + 1, sv, sizeof sv);
  const Rect box = Rect::from_extent(Point{4});
  fold_region({d.data() + 1, box, 8}, ConstBoxBuffer{s.data() + 1, box, 8}, box,
              Reduction::builtin(ReduceOp::kSum, DataType::kFloat64));
  double out[4];
  std::memcpy(out, d.data() + 1, sizeof out);
  EXPECT_EQ(out[0], 11);
  EXPECT_EQ(out[3], 44);
}

TEST(RegionOps, RankZeroHoldsOneValue) {
  const Rect scalar{Point{}, Point{}};
  ASSERT_EQ(scalar.volume(), 1);
  int64_t a = 5, b = 7;
  fold_region({&a, scalar, 8}, ConstBoxBuffer{&b, scalar, 8}, scalar,
              Reduction::builtin(ReduceOp::kSum, DataType::kInt64));
  EXPECT_EQ(a, 12);
  copy_region({&a, scalar, 8}, ConstBoxBuffer{&b, scalar, 8}, scalar);
  EXPECT_EQ(a, 7);
  const int64_t v = -1;
  fill_region({&a, scalar, 8}, scalar, &v);
  EXPECT_EQ(a, -1);
  int64_t packed = 0;
  pack_region(&packed, ConstBoxBuffer{&b, scalar, 8}, scalar);
  EXPECT_EQ(packed, 7);
}

TEST(RegionOps, EmptyRegionsTouchNothing) {
  std::vector<int> d(12, 1), s(12, 2);
  const Rect box = Rect::from_extent(Point{3, 4});
  const Rect empty = Rect::empty_of_rank(2);
  copy_region({d.data(), box, 4}, ConstBoxBuffer{s.data(), box, 4}, empty);
  fold_region({d.data(), box, 4}, ConstBoxBuffer{s.data(), box, 4}, empty,
              Reduction::builtin(ReduceOp::kSum, DataType::kInt32));
  const int v = 9;
  fill_region({d.data(), box, 4}, empty, &v);
  pack_region(nullptr, ConstBoxBuffer{s.data(), box, 4}, empty);
  unpack_region({d.data(), box, 4}, nullptr, empty);
  EXPECT_EQ(d, std::vector<int>(12, 1));
  // Empty boxes need no data.
  copy_region({nullptr, empty, 4}, ConstBoxBuffer{nullptr, empty, 4}, empty);
}

/// Runs f, expects Error(kInternal) whose message contains every one of `parts`.
template <class F>
void expect_internal_error(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
    for (const std::string& part : parts)
      EXPECT_NE(e.message().find(part), std::string::npos) << e.message() << "\nlacks: " << part;
  }
}

TEST(RegionOps, ContractViolationsNameBothBoxes) {
  std::vector<int> d(100), s(100);
  const Rect dbox{Point{0, 0}, Point{4, 5}};
  const Rect sbox{Point{2, 0}, Point{10, 5}};
  BoxBuffer dst{d.data(), dbox, 4};
  ConstBoxBuffer src{s.data(), sbox, 4};
  const std::string dtext = dbox.to_string(), stext = sbox.to_string();

  expect_internal_error(
      [&] {
        copy_region(dst, src, Rect{Point{0, 0}, Point{4, 5}});
      },
      {"copy_region", "not inside the source box", dtext, stext});
  expect_internal_error(
      [&] {
        copy_region(dst, src, Rect{Point{2, 0}, Point{6, 5}});
      },
      {"not inside the destination box", dtext, stext});
  expect_internal_error(
      [&] {
        copy_region(dst, src, Rect{Point{2}, Point{3}});
      },
      {"rank mismatch", dtext, stext});
  expect_internal_error(
      [&] {
        copy_region(dst, ConstBoxBuffer{s.data(), sbox, 8}, Rect{Point{2, 0}, Point{3, 1}});
      },
      {"element size mismatch", dtext, stext});
  expect_internal_error(
      [&] {
        fold_region(dst, src, Rect{Point{2, 0}, Point{3, 1}},
                    Reduction::builtin(ReduceOp::kSum, DataType::kInt64));
      },
      {"fold_region", "int64_t", dtext, stext});
  expect_internal_error(
      [&] {
        fold_region(dst, src, Rect{Point{2, 0}, Point{3, 1}}, Reduction::custom(8));
      },
      {"reducer/8", dtext, stext});
  const int v = 0;
  expect_internal_error(
      [&] {
        fill_region(dst, Rect{Point{0, 0}, Point{5, 5}}, &v);
      },
      {"fill_region", dtext});
  expect_internal_error(
      [&] {
        pack_region(d.data(), src, Rect{Point{0, 0}, Point{3, 1}});
      },
      {"pack_region", stext});
  expect_internal_error(
      [&] {
        copy_region({d.data(), dbox, 0}, ConstBoxBuffer{s.data(), sbox, 0},
                    Rect{Point{2, 0}, Point{3, 1}});
      },
      {"zero element size"});
  expect_internal_error(
      [&] {
        copy_region({nullptr, dbox, 4}, src, Rect{Point{2, 0}, Point{3, 1}});
      },
      {"null destination data"});
}

TEST(RegionOps, LargeContiguousCopyIsFast) {
  // Full rows of both boxes: one memcpy of 64 MiB, not 2^24 small ones.
  const Rect box = Rect::from_extent(Point{4096, 4096});
  std::vector<float> a(static_cast<size_t>(box.volume()), 1.0f), b(a.size(), 2.0f);
  const auto t0 = std::chrono::steady_clock::now();
  copy_region({a.data(), box, 4}, ConstBoxBuffer{b.data(), box, 4}, box);
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_EQ(a.back(), 2.0f);
  std::printf("copy of 64 MiB (one block): %.2f ms\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count());
}

}  // namespace
}  // namespace lightning::worker
