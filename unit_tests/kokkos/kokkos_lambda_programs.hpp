// Kokkos programs written with lambdas, as the Kokkos tutorials write them, once for any
// execution space: LIGHTNING_LAMBDA in place of KOKKOS_LAMBDA, with Views of lightning::ViewOf.
// The tests run each on Kokkos' host space and on lightning::Distributed and compare.
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>

#include "lightning_kokkos/lightning_kokkos.hpp"

namespace lk_lambda {

template <class Space, class T>
using ViewOf = lightning::ViewOf<Space, T>;

/// y = a x + y, the scalar `a` captured.
template <class Space>
void axpy(const Space& space, const ViewOf<Space, const float*>& x, const ViewOf<Space, float*>& y,
          float a) {
  Kokkos::parallel_for("axpy",
                       Kokkos::RangePolicy<Space>(space, 0, static_cast<int64_t>(y.extent(0))),
                       LIGHTNING_LAMBDA(
                           "global i => read x[i], readwrite y[i]", (x, y, a),
                           (const int64_t i) { y(i) = a * x(i) + y(i); }));
}

/// s(i) = scale * sum of row i of m: the captured integer `cols` bounds the annotation's rows.
template <class Space>
void row_sums(const Space& space, const ViewOf<Space, const double**>& m,
              const ViewOf<Space, double*>& s, int64_t cols, double scale) {
  Kokkos::parallel_for(
      "row sums", Kokkos::RangePolicy<Space>(space, 0, static_cast<int64_t>(m.extent(0))),
      LIGHTNING_LAMBDA(
          "global i => read m[i, 0:cols-1], write s[i]", (m, s, cols, scale), (const int i) {
            double sum = 0;
            for (int64_t j = 0; j < cols; ++j) sum += m(i, j);
            s(i) = scale * sum;
          }));
}

/// b(i, j) = a(i, j) * (i + 1) - j over a 2-D range.
template <class Space>
void scale_2d(const ViewOf<Space, const double**>& a, const ViewOf<Space, double**>& b) {
  Kokkos::parallel_for(
      "scale 2d",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(
          {0, 0}, {static_cast<int64_t>(a.extent(0)), static_cast<int64_t>(a.extent(1))}),
      LIGHTNING_LAMBDA(
          "global [i, j] => read a[i, j], write b[i, j]", (a, b),
          (const int i, const int j) { b(i, j) = a(i, j) * (i + 1) - j; }));
}

/// t(j, i) = a(i, j): t column-major (LayoutLeft), through ViewOf's layout.
template <class Space>
void transpose(const ViewOf<Space, const double**>& a,
               const lightning::ViewOf<Space, double**, Kokkos::LayoutLeft>& t) {
  Kokkos::parallel_for(
      "transpose",
      Kokkos::MDRangePolicy<Space, Kokkos::Rank<2>>(
          {0, 0}, {static_cast<int64_t>(a.extent(0)), static_cast<int64_t>(a.extent(1))}),
      LIGHTNING_LAMBDA(
          "global [i, j] => read a[i, j], write t[j, i]", (a, t),
          (const int i, const int j) { t(j, i) = a(i, j); }));
}

/// x · y, a sum into a scalar.
template <class Space>
double dot(const Space& space, const ViewOf<Space, const double*>& x,
           const ViewOf<Space, const double*>& y) {
  double result = 0;
  Kokkos::parallel_reduce("dot",
                          Kokkos::RangePolicy<Space>(space, 0, static_cast<int64_t>(x.extent(0))),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i], read y[i]", (x, y),
                              (const int i, double& sum) { sum += x(i) * y(i); }),
                          result);
  return result;
}

/// The largest x(i) + offset, through Kokkos::Max.
template <class Space>
int64_t largest(const ViewOf<Space, const int64_t*>& x, int64_t offset) {
  int64_t result = 0;
  Kokkos::parallel_reduce("largest",
                          Kokkos::RangePolicy<Space>(0, static_cast<int64_t>(x.extent(0))),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x, offset),
                              (const int i, int64_t& top) {
                                if (x(i) + offset > top) top = x(i) + offset;
                              }),
                          Kokkos::Max<int64_t>(result));
  return result;
}

/// How many x(i) equal `value`, into a host View.
template <class Space>
int64_t count_equal(const Space& space, const ViewOf<Space, const int64_t*>& x, int64_t value) {
  Kokkos::View<int64_t, Kokkos::HostSpace> result("count");
  Kokkos::parallel_reduce("count", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)),
                          LIGHTNING_LAMBDA(
                              "global i => read x[i]", (x, value),
                              (const int64_t i, int64_t& count) {
                                if (x(i) == value) ++count;
                              }),
                          result);
  Kokkos::fence();
  return result();
}

/// The tutorial's y^T·A·x (Exercise 3): a thread per row, no work distribution given (the
/// launch follows y, the first array of its rank).
template <class Space>
double yax(const ViewOf<Space, const double**>& A, const ViewOf<Space, const double*>& x,
           const ViewOf<Space, const double*>& y) {
  const int M = static_cast<int>(A.extent(1));
  double result = 0;
  Kokkos::parallel_reduce("yAx", Kokkos::RangePolicy<Space>(0, static_cast<int>(A.extent(0))),
                          LIGHTNING_LAMBDA(
                              "global j => read A[j, :], read x[:], read y[j]", (A, x, y, M),
                              (int j, double& update) {
                                double temp2 = 0;
                                for (int i = 0; i < M; ++i) temp2 += A(j, i) * x(i);
                                update += y(j) * temp2;
                              }),
                          result);
  return result;
}

/// The tutorial's y^T·A·x with a team per row, its nested reduction a lambda in the body.
template <class Space>
double team_yax(const ViewOf<Space, const double**>& A, const ViewOf<Space, const double*>& x,
                const ViewOf<Space, const double*>& y, int team_size) {
  using member_type = typename Kokkos::TeamPolicy<Space>::member_type;
  const int cols = static_cast<int>(A.extent(1));
  double result = 0;
  Kokkos::parallel_reduce(
      "team yax", Kokkos::TeamPolicy<Space>(static_cast<int>(A.extent(0)), team_size),
      LIGHTNING_LAMBDA(
          "block j => read A[j, :], read x[:], read y[j]", (A, x, y, cols),
          (const member_type& team, double& update) {
            const int j = team.league_rank();
            double row = 0;
            Kokkos::parallel_reduce(
                Kokkos::TeamThreadRange(team, cols),
                [&](const int i, double& inner) { inner += A(j, i) * x(i); }, row);
            Kokkos::single(Kokkos::PerTeam(team), [&]() { update += y(j) * row; });
          }),
      result);
  return result;
}

/// A parallel_scan (Exercise parallel_scan): excl(i) = x(0) + ... + x(i-1),
/// incl(i) = x(0) + ... + x(i); returns the total.
template <class Space, class T>
T prefix_sums(const Space& space, const ViewOf<Space, const T*>& x, const ViewOf<Space, T*>& excl,
              const ViewOf<Space, T*>& incl) {
  const int64_t n = static_cast<int64_t>(x.extent(0));
  T total = 0;
  Kokkos::parallel_scan("prefix sums", Kokkos::RangePolicy<Space>(space, 0, n),
                        LIGHTNING_LAMBDA(
                            "global i => read x[i], write excl[i], write incl[i]", (x, excl, incl),
                            (const int64_t i, T& update, const bool final) {
                              if (final) excl(i) = update;
                              update += x(i);
                              if (final) incl(i) = update;
                            }),
                        total);
  return total;
}

/// s(i) = the sum of squares of row i of m, the row a subview taken inside the lambda.
template <class Space>
void row_squares(const ViewOf<Space, const double**>& m, const ViewOf<Space, double*>& s,
                 int64_t cols) {
  Kokkos::parallel_for(
      "row squares", Kokkos::RangePolicy<Space>(0, static_cast<int64_t>(m.extent(0))),
      LIGHTNING_LAMBDA(
          "global i => read m[i, 0:cols-1], write s[i]", (m, s, cols), (const int64_t i) {
            const auto row = Kokkos::subview(m, i, Kokkos::ALL);
            double sum = 0;
            for (int64_t j = 0; j < cols; ++j) sum += row(j) * row(j);
            s(i) = sum;
          }));
}

}  // namespace lk_lambda
