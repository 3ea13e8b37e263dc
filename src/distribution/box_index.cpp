#include "distribution/box_index.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"

namespace lightning {

namespace {

// A box overlapping more cells than this goes to the side list: filing it everywhere would
// cost memory proportional to cells x such boxes.
constexpr std::size_t kMaxCellsPerBox = 64;

}  // namespace

BoxIndex::BoxIndex(std::vector<Rect> boxes) : boxes_(std::move(boxes)) {
  if (boxes_.empty()) return;
  if (boxes_.size() >= std::numeric_limits<uint32_t>::max())
    throw Error(ErrorKind::kInvalidArgument,
                "cannot index " + std::to_string(boxes_.size()) + " boxes (ids are 32-bit)");
  rank_ = boxes_.front().rank();
  for (std::size_t i = 0; i < boxes_.size(); ++i)
    if (boxes_[i].rank() != rank_)
      throw Error(ErrorKind::kInvalidArgument, "box " + std::to_string(i) + " " +
                                                   boxes_[i].to_string() + " has rank " +
                                                   std::to_string(boxes_[i].rank()) +
                                                   ", box 0 has rank " + std::to_string(rank_));

  // Cuts: the distinct lower edges per axis. For a grid of chunks these are exactly the grid
  // lines, giving one cell per chunk.
  for (int a = 0; a < rank_; ++a) {
    std::vector<int64_t>& c = cuts_[a];
    c.reserve(boxes_.size());
    for (const Rect& b : boxes_)
      if (!b.empty()) c.push_back(b.lo()[a]);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
  }
  // Irregular boxes can make the product of cuts explode (n^3 cells for n boxes in 3-D):
  // thin the axis with most cuts until the cells number about the boxes.
  const double budget = 2.0 * static_cast<double>(boxes_.size()) + 16.0;
  for (;;) {
    double cells = 1;
    int widest = 0;
    for (int a = 0; a < rank_; ++a) {
      cells *= static_cast<double>(std::max<std::size_t>(1, cuts_[a].size()));
      if (cuts_[a].size() > cuts_[widest].size()) widest = a;
    }
    if (cells <= budget) break;
    std::vector<int64_t>& c = cuts_[widest];
    std::size_t kept = 0;
    for (std::size_t j = 0; j < c.size(); j += 2) c[kept++] = c[j];
    c.resize(kept);
  }
  std::size_t cells = 1;
  for (int a = rank_ - 1; a >= 0; --a) {
    stride_[a] = cells;
    cells *= std::max<std::size_t>(1, cuts_[a].size());
  }

  // File each box under the cells it overlaps: count, prefix-sum, fill (CSR).
  auto cell_range = [&](const Rect& b, std::array<std::size_t, kMaxRank>& lo,
                        std::array<std::size_t, kMaxRank>& hi) {
    std::size_t n = 1;
    for (int a = 0; a < rank_; ++a) {
      lo[a] = cell_of(a, b.lo()[a]);
      hi[a] = cell_of(a, b.hi()[a] - 1);
      n *= hi[a] - lo[a] + 1;
    }
    return n;
  };
  auto for_each_cell = [&](const std::array<std::size_t, kMaxRank>& lo,
                           const std::array<std::size_t, kMaxRank>& hi, auto&& f) {
    std::array<std::size_t, kMaxRank> cell = lo;
    for (;;) {
      std::size_t linear = 0;
      for (int a = 0; a < rank_; ++a) linear += cell[a] * stride_[a];
      f(linear);
      int a = rank_ - 1;
      while (a >= 0 && cell[a] == hi[a]) {
        cell[a] = lo[a];
        --a;
      }
      if (a < 0) return;
      ++cell[a];
    }
  };
  cell_begin_.assign(cells + 1, 0);
  std::vector<char> filed(boxes_.size(), 0);
  std::array<std::size_t, kMaxRank> lo{}, hi{};
  for (std::size_t i = 0; i < boxes_.size(); ++i) {
    if (boxes_[i].empty()) continue;
    if (cell_range(boxes_[i], lo, hi) > kMaxCellsPerBox) {
      spanning_.push_back(static_cast<uint32_t>(i));
      continue;
    }
    filed[i] = 1;
    for_each_cell(lo, hi, [&](std::size_t c) { ++cell_begin_[c + 1]; });
  }
  for (std::size_t c = 0; c < cells; ++c) cell_begin_[c + 1] += cell_begin_[c];
  entries_.resize(cell_begin_[cells]);
  std::vector<uint32_t> next(cell_begin_.begin(), cell_begin_.end() - 1);
  for (std::size_t i = 0; i < boxes_.size(); ++i) {
    if (!filed[i]) continue;
    cell_range(boxes_[i], lo, hi);
    for_each_cell(lo, hi, [&](std::size_t c) { entries_[next[c]++] = static_cast<uint32_t>(i); });
  }
}

}  // namespace lightning
