#include "distribution/tiling.hpp"

#include "core/error.hpp"

namespace lightning {

Tiling::Tiling(const Rect& domain, const Point& shape) : domain_(domain), shape_(shape) {
  const int rank = domain.rank();
  if (rank < 1 || rank > kMaxRank || shape.rank() != rank)
    throw Error(ErrorKind::kInvalidArgument,
                "cannot cut " + domain.to_string() + " into cells of " + shape.to_string() +
                    ": ranks must be equal and 1 to " + std::to_string(kMaxRank));
  for (int a = 0; a < rank; ++a) {
    if (shape[a] <= 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "cell extent " + shape.to_string() + " must be positive on every axis");
    if (!domain.empty() && domain.lo()[a] < 0)
      throw Error(ErrorKind::kInvalidArgument,
                  "cannot cut " + domain.to_string() + ": indices must be 0 or more");
  }
  first_ = last_ = grid_dims_ = Point::filled(rank, 0);
  if (domain.empty()) return;
  count_ = 1;
  grid_count_ = 1;
  for (int a = 0; a < rank; ++a) {
    first_[a] = domain.lo()[a] / shape[a];
    last_[a] = (domain.hi()[a] - 1) / shape[a];
    grid_dims_[a] = last_[a] + 1;
    count_ *= static_cast<uint64_t>(last_[a] - first_[a] + 1);  // <= volume: cannot overflow
    if (__builtin_mul_overflow(grid_count_, static_cast<uint64_t>(grid_dims_[a]), &grid_count_))
      throw Error(ErrorKind::kInvalidArgument, "cutting " + domain.to_string() + " into cells of " +
                                                   shape.to_string() +
                                                   " numbers more than 2^64 cells");
  }
}

}  // namespace lightning
