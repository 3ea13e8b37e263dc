#include "test_kernels.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>

#include "kernel/native_kernel.hpp"

namespace lightning::runtime_test {

using annotation::KernelSignature;
using kernel::ArraySlot;
using kernel::KernelRegistry;
using kernel::native_kernel;

void Saxpy::operator()(int64_t i) const {
  if (i == fail_at) throw std::runtime_error("element " + std::to_string(i) + " is cursed");
  y(i) = alpha * x(i) + y(i);
}

namespace {

// Stencil1D registered under `name` with `annotation`.
KernelId add_stencil(const char* name, const char* annotation) {
  return KernelRegistry::add(native_kernel<Stencil1D, 1>(
      name, annotation,
      KernelSignature()
          .add_array("in", DataType::kFloat64, 1)
          .add_array("out", DataType::kFloat64, 1),
      {{0, offsetof(Stencil1D, in), 1}, {1, offsetof(Stencil1D, out), 1}}));
}

}  // namespace

const KernelId kStencil1D =
    add_stencil("runtime_test::stencil", "global i => read in[i-1:i+1], write out[i]");
const KernelId kStencil1DOverwrite = add_stencil("runtime_test::stencil_overwrite",
                                                 "global i => read in[i-1:i+1], overwrite out[i]");

const KernelId kMatmul = KernelRegistry::add(native_kernel<Matmul, 2>(
    "runtime_test::matmul", "global [i, j] => read A[i, :], read B[:, j], write C[i, j]",
    KernelSignature()
        .add_array("A", DataType::kFloat64, 2)
        .add_array("B", DataType::kFloat64, 2)
        .add_array("C", DataType::kFloat64, 2)
        .add_scalar("n", DataType::kInt64),
    {{0, offsetof(Matmul, A), 2}, {1, offsetof(Matmul, B), 2}, {2, offsetof(Matmul, C), 2}},
    {{3, offsetof(Matmul, n), DataType::kInt64}}));

const KernelId kRowSum = KernelRegistry::add(native_kernel<RowSum, 2>(
    "runtime_test::row_sum", "global [i, j] => read A[i, j], reduce(+) s[i]",
    KernelSignature().add_array("A", DataType::kFloat64, 2).add_array("s", DataType::kFloat64, 1),
    {{0, offsetof(RowSum, A), 2}, {1, offsetof(RowSum, s), 1}}));

const KernelId kDot = KernelRegistry::add(kernel::native_reduce_kernel<Dot, 1, double>(
    "runtime_test::dot", "global i => read a[i], read b[i]",
    KernelSignature().add_array("a", DataType::kFloat64, 1).add_array("b", DataType::kFloat64, 1),
    {{0, offsetof(Dot, a), 1}, {1, offsetof(Dot, b), 1}}));

const KernelId kScaledMax = KernelRegistry::add(kernel::native_reduce_kernel<ScaledMax, 1, int32_t>(
    "runtime_test::scaled_max", "global i => read a[i]",
    KernelSignature().add_array("a", DataType::kInt32, 1).add_scalar("scale", DataType::kInt32),
    {{0, offsetof(ScaledMax, a), 1}}, {{1, offsetof(ScaledMax, scale), DataType::kInt32}}));

const KernelId kSaxpy = KernelRegistry::add(
    native_kernel<Saxpy, 1>("runtime_test::saxpy", "global i => read x[i], readwrite y[i]",
                            KernelSignature()
                                .add_array("x", DataType::kFloat64, 1)
                                .add_array("y", DataType::kFloat64, 1)
                                .add_scalar("alpha", DataType::kFloat64)
                                .add_scalar("fail_at", DataType::kInt64),
                            {{0, offsetof(Saxpy, x), 1}, {1, offsetof(Saxpy, y), 1}}));

}  // namespace lightning::runtime_test
