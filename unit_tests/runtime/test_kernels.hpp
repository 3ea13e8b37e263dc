// Native kernels for the end-to-end tests, registered at static initialisation like
// LIGHTNING_KERNEL kernels are.
#pragma once

#include "core/ids.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::runtime_test {

/// out(i) = in(i - 1) + in(i) + in(i + 1): the paper's stencil.
struct Stencil1D {
  ArrayHandle<const double, 1> in;
  ArrayHandle<double, 1> out;
  void operator()(int64_t i) const { out(i) = in(i - 1) + in(i) + in(i + 1); }
};
extern const KernelId kStencil1D;
/// The same kernel declaring `overwrite out[i]`: what it writes needs no old contents.
extern const KernelId kStencil1DOverwrite;

/// C(i, j) = sum_k A(i, k) * B(k, j).
struct Matmul {
  ArrayHandle<const double, 2> A;
  ArrayHandle<const double, 2> B;
  ArrayHandle<double, 2> C;
  int64_t n;
  void operator()(int64_t i, int64_t j) const {
    double acc = 0;
    for (int64_t k = 0; k < n; ++k) acc += A(i, k) * B(k, j);
    C(i, j) = acc;
  }
};
extern const KernelId kMatmul;

/// s(i) += A(i, j): a row sum through `reduce(+)`.
struct RowSum {
  ArrayHandle<const double, 2> A;
  ArrayHandle<double, 1> s;
  void operator()(int64_t i, int64_t j) const { s(i) += A(i, j); }
};
extern const KernelId kRowSum;

/// sum of a(i) * b(i): a dot product reduced to one value.
struct Dot {
  ArrayHandle<const double, 1> a;
  ArrayHandle<const double, 1> b;
  void operator()(int64_t i, double& acc) const { acc += a(i) * b(i); }
};
extern const KernelId kDot;

/// The largest a(i) * scale, folded with a built-in operator the launch names (max, min, ...).
struct ScaledMax {
  ArrayHandle<const int32_t, 1> a;
  int32_t scale;
  void operator()(int64_t i, int32_t& acc) const {
    const int32_t v = a(i) * scale;
    if (v > acc) acc = v;
  }
};
extern const KernelId kScaledMax;

/// y(i) = alpha * x(i) + y(i); fails on purpose at index `fail_at` (if >= 0).
struct Saxpy {
  ArrayHandle<const double, 1> x;
  ArrayHandle<double, 1> y;
  double alpha;
  int64_t fail_at;
  void operator()(int64_t i) const;
};
extern const KernelId kSaxpy;

}  // namespace lightning::runtime_test
