// Every kernel registered in this binary (the Kokkos adapter's test functors, team kernels and
// ported kernels, the examples' functors and the ported examples) compiled to a cubin for sm_90 by
// NVRTC, as a GPU worker would compile it (a kernel whose value its launch's Kokkos reducer folds,
// with that reducer). The few kernels that are host-only by design must fail with the expected
// message.
#include <gtest/gtest.h>

#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "../kokkos/kokkos_lambda_programs.hpp"
#include "../kokkos/kokkos_ported_kernels.hpp"
#include "../kokkos/kokkos_team_kernels.hpp"
#include "../kokkos/kokkos_test_kernels.hpp"
#include "backend/cuda/kernel_codegen.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"
#include "core/error.hpp"
#include "kernel/reducer_registry.hpp"
#include "ported_kernels.hpp"

namespace lightning::cuda {
namespace {

template <class D>
using LView = lightning::View<D>;
using Exec = lightning::Distributed;

// The functors the adapter's tests launch. Naming their registrations makes the compiler
// emit them (registered at static initialisation); read only once main() runs, since static
// initialisation of template members is unordered.
std::set<std::string> adapter_test_kernels() {
  std::set<std::string> names = {
      lightning::kernel_registration<lk_test::Saxpy<LView<const float*>, LView<float*>>>().name,
      lightning::kernel_registration<lk_test::Stencil<LView<const float*>, LView<float*>>>().name,
      lightning::kernel_registration<lk_test::RowSum<LView<const double**>, LView<double*>>>().name,
      lightning::kernel_registration<lk_test::Twice3<LView<const float***>, LView<float***>>>()
          .name,
      lightning::kernel_registration<lk_test::Dot<LView<double*>, LView<double*>>>().name,
      lightning::kernel_registration<lk_test::Extreme<LView<int64_t*>>>().name,
      lightning::kernel_registration<lk_test::ScaleAddTransposed<
          lightning::View<float**, Kokkos::LayoutLeft>, LView<float**>>>()
          .name,
      lightning::kernel_registration<lk_test::Rank3<LView<int64_t***>, LView<int64_t***>>>().name,
      lightning::kernel_registration<lk_test::Rank3Sum<LView<int64_t***>>>().name,
      // A reduction with its own init and join inside the macro.
      lightning::kernel_registration<lk_test::Spread<LView<double*>>>().name,
      // Array reductions (value_type T[]): the default init and join, and their own.
      lightning::kernel_registration<lk_test::Histogram<LView<int64_t*>>>().name,
      lightning::kernel_registration<lk_test::ColumnRanges<LView<double**>>>().name,
      // Subviews inside kernels.
      lightning::kernel_registration<
          lk_test::RowDot<LView<const double**>, LView<const double*>, LView<double*>>>()
          .name,
      lightning::kernel_registration<lk_test::Window<LView<const int64_t*>, LView<int64_t*>>>()
          .name,
      lightning::kernel_registration<
          lk_test::PlaneColumns<LView<const int64_t***>, LView<int64_t**>>>()
          .name,
      lightning::kernel_registration<
          lk_test::ColumnSums<lightning::View<const float**, Kokkos::LayoutLeft>, LView<float*>>>()
          .name,
      lightning::kernel_registration<lk_test::SubviewPastTheEnd<LView<int*>>>().name,
      // Work tags: one kernel per tag, the tags declared for GPU code.
      lightning::kernel_registration<lk_test::Phases<LView<int64_t*>, LView<int64_t*>>>().name,
      lightning::kernel_registration<lk_test::Phases<LView<int64_t*>, LView<int64_t*>>,
                                     lk_test::FillTag>()
          .name,
      lightning::kernel_registration<lk_test::Phases<LView<int64_t*>, LView<int64_t*>>,
                                     lk_test::tags::Smooth>()
          .name,
      lightning::kernel_registration<
          lk_test::Phases<LView<int64_t*>, LView<int64_t*>>,
          lk_test::Phases<LView<int64_t*>, LView<int64_t*>>::WeightedSum>()
          .name,
      lightning::kernel_registration<lk_test::Phases<LView<int64_t*>, LView<int64_t*>>,
                                     lk_test::Phases<LView<int64_t*>, LView<int64_t*>>::Prefix>()
          .name,
      lightning::kernel_registration<lk_test::GridPhases<LView<int64_t**>>,
                                     lk_test::GridPhases<LView<int64_t**>>::Mark>()
          .name,
      lightning::kernel_registration<lk_test::GridPhases<LView<int64_t**>>,
                                     lk_test::GridPhases<LView<int64_t**>>::CountAbove>()
          .name,
      lightning::kernel_registration<
          lk_test::ComplexMultiply<LView<const lightning::float2*>, LView<const lightning::float2*>,
                                   LView<lightning::float2*>>>()
          .name,
      lightning::kernel_registration<
          lk_team::TeamYAx<Exec, LView<const double**>, LView<const double*>>>()
          .name,
      lightning::kernel_registration<
          lk_team::ScratchSmooth<Exec, LView<const double**>, LView<double**>>>()
          .name,
      lightning::kernel_registration<
          lk_team::Collectives<Exec, LView<double**>, LView<int64_t**>>>()
          .name,
      lightning::kernel_registration<lk_team::TeamMax<Exec, LView<const double**>>>().name,
      lightning::kernel_registration<lk_team::TeamSpread<Exec, LView<const double**>>>().name,
      lightning::kernel_registration<lk_team::ThrowingMember<Exec, LView<double*>>>().name,
      // Work tags on team operators: the untagged one beside tagged ones, and each tag (the
      // MinLoc one folds with its launch's reducer).
      lightning::kernel_registration<
          lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>>()
          .name,
      lightning::kernel_registration<lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>,
                                     lk_team::FillRows>()
          .name,
      lightning::kernel_registration<
          lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>,
          lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>::RowSums>()
          .name,
      lightning::kernel_registration<lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>,
                                     lk_team::tags::Spread>()
          .name,
      lightning::kernel_registration<
          lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>,
          lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>::Largest>()
          .name,
      lightning::kernel_registration<
          lk_team::TaggedReadsTheNextRow<Exec, LView<const double**>, LView<double*>>,
          lk_team::NextRow>()
          .name,
      lightning::kernel_registration<
          lk_team::BroadcastsAndGlobalScans<Exec, LView<int64_t***>, LView<int64_t*>>>()
          .name,
      lightning::kernel_registration<lk_team::VectorRanges<Exec, LView<const int64_t***>,
                                                           LView<int64_t***>, LView<int64_t**>>>()
          .name,
      lightning::kernel_registration<lk_team::TeamVectorRanges<
          Exec, LView<const int64_t**>, LView<int64_t**>, LView<int64_t**>>>()
          .name,
      lightning::kernel_registration<lk_team::TwoLocalAxes<Exec, LView<double*>>>().name,
      lightning::kernel_registration<lk_team::MemberAtomics<Exec, LView<int64_t**>>>().name,
      lightning::kernel_registration<lk_team::GlobalInTeams<Exec, LView<double*>>>().name,
      lightning::kernel_registration<
          lk_team::ReadsTheNextRow<Exec, LView<const double**>, LView<double*>>>()
          .name,
      lightning::kernel_registration<lk_team::SkipsTheBarrier<Exec, LView<double*>>>().name,
      // deep_copy's copy kernels between distributed Views (one per rank).
      lightning::kernel_registration<
          lightning::detail::CopyRank1<LView<int64_t*>, lightning::View<const int64_t*>>>()
          .name,
      lightning::kernel_registration<lightning::detail::CopyRank2<
          lightning::View<double**, Kokkos::LayoutLeft>, LView<double**>>>()
          .name,
      lightning::kernel_registration<
          lightning::detail::CopyRank3<LView<float***>, LView<float***>>>()
          .name,
      // ... of vector elements.
      lightning::kernel_registration<
          lightning::detail::CopyRank1<LView<lightning::float3*>, LView<lightning::float3*>>>()
          .name,
      lightning::kernel_registration<lightning::detail::CopyRank2<
          lightning::View<lightning::double2**, Kokkos::LayoutLeft>, LView<lightning::double2**>>>()
          .name,
      lightning::kernel_registration<lk_test::Misnamed>().name,
      lightning::kernel_registration<lk_test::Cursed>().name,
      lightning::kernel_registration<lk_test::Unlisted>().name,
  };
#if KOKKOS_VERSION >= 40000
  // Kokkos 4's nested MD ranges (under Kokkos 3.4, kernel_codegen_test compiles them as text).
  names.insert(lightning::kernel_registration<
                   lk_team::Kokkos4Ranges<Exec, LView<double***>, LView<double**>>>()
                   .name);
#endif
  return names;
}

// The lambda programs (LIGHTNING_LAMBDA) on lightning::Distributed: instantiating them
// registers their lambdas, each named after the function it is written in.
const void* const kLambdaPrograms[] = {
    reinterpret_cast<const void*>(&lk_lambda::axpy<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::row_sums<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::scale_2d<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::transpose<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::dot<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::largest<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::count_equal<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::team_yax<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::yax<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::row_squares<Exec>),
    reinterpret_cast<const void*>(&lk_lambda::prefix_sums<Exec, int64_t>),
    reinterpret_cast<const void*>(&lk_lambda::prefix_sums<Exec, uint8_t>),
    reinterpret_cast<const void*>(&lk_lambda::prefix_sums<Exec, float>),
};

// Kernels whose value only their launch's Kokkos reducer folds, with the reducer the adapter's
// tests launch them with: location reducers and several reducers in one parallel_reduce, in
// range, MD-range and team launches.
std::map<std::string, Reduction> launch_reducers() {
  using lightning::detail::RegisteredReducer;
  using Team = lk_team::TeamPhases<Exec, LView<int64_t**>, LView<int64_t**>>;
  return {
      {lightning::kernel_registration<Team, Team::Smallest>().name,
       kernel::ReducerRegistry::reduction(RegisteredReducer<Kokkos::MinLoc<int64_t, int>>::id)},
      {lightning::kernel_registration<lk_test::SignAndNegatives<LView<double**>>>().name,
       kernel::ReducerRegistry::reduction(
           RegisteredReducer<Kokkos::Impl::CombinedReducer<Kokkos::HostSpace, Kokkos::Prod<double>,
                                                           Kokkos::Sum<int>>>::id)},
      {lightning::kernel_registration<lk_team::TeamSumMaxMin<Exec, LView<const int64_t**>>>().name,
       kernel::ReducerRegistry::reduction(
           RegisteredReducer<
               Kokkos::Impl::CombinedReducer<Kokkos::HostSpace, Kokkos::Sum<int64_t>,
                                             Kokkos::Max<int64_t>, Kokkos::Min<int64_t>>>::id)},
  };
}

// Kernels that cannot run on a GPU, and what NVRTC must say about them.
const std::map<std::string, std::string> kHostOnly = {
    {"lk_test::Cursed", "runtime_error"},  // throws an exception
    {"lk_team::ThrowingMember<lightning::Distributed, lightning::View<double*, "
     "Kokkos::LayoutRight> >",
     "runtime_error"},                                       // a member throws
    {"lk_test::Unlisted", "identifier \"y\" is undefined"},  // uses a member it does not list
};

TEST(RegisteredKernels, EveryKernelCompilesToACubinForSm90) {
  const std::vector<std::string> options = nvrtc_options(9, 0);
  const std::map<std::string, Reduction> reducers = launch_reducers();
  std::set<std::string> compiled;
  std::set<std::string> failed_as_expected;
  for (KernelId id : kernel::KernelRegistry::ids()) {
    const kernel::KernelInfo& info = kernel::KernelRegistry::get(id);
    if (info.device.kind == kernel::DeviceCodeKind::kNone) {
      std::printf("host only (no GPU source): %s\n", info.name.c_str());
      continue;
    }
    KernelSpecialization spec;
    if (info.reduction) spec.reduction = *info.reduction;
    // A value that folds only with the Kokkos reducer its launch names (MinLoc, ...): the
    // launch gives the specialisation, here the one the adapter's tests launch it with.
    if (info.reduction && info.reduction->awaits_launch_reducer()) {
      const auto reducer = reducers.find(info.name);
      if (reducer == reducers.end()) {
        std::printf("folds with its launch's reducer: %s\n", info.name.c_str());
        continue;
      }
      spec.reduction = reducer->second;
    }
    const GeneratedKernel g = generate_kernel(info, spec);
    const auto host_only = kHostOnly.find(info.name);
    try {
      const NvrtcOutput out = compile_to_cubin({info.name, g.file_name, g.source}, options);
      std::printf("compiled %-70s %8zu bytes of cubin\n", info.name.c_str(), out.cubin.size());
      EXPECT_TRUE(host_only == kHostOnly.end())
          << info.name << " compiled, but is expected to fail: update kHostOnly";
      compiled.insert(info.name);
    } catch (const Error& e) {
      if (host_only == kHostOnly.end()) {
        ADD_FAILURE() << e.what();
      } else {
        EXPECT_NE(std::string(e.what()).find(host_only->second), std::string::npos) << e.what();
        std::printf("host only, failed as expected: %s\n", info.name.c_str());
        failed_as_expected.insert(info.name);
      }
    }
  }
  for (const std::string& name : adapter_test_kernels())
    EXPECT_TRUE(compiled.count(name) || kHostOnly.count(name)) << name;
  for (const auto& [name, reduction] : reducers) EXPECT_TRUE(compiled.count(name)) << name;
  std::size_t lambdas = 0;
  for (const std::string& name : compiled) lambdas += name.rfind("lk_lambda::", 0) == 0;
  EXPECT_EQ(lambdas, std::size(kLambdaPrograms));
  EXPECT_TRUE(compiled.count(ported::stencil_kernel().name()));
  EXPECT_TRUE(compiled.count(ported::kmeans_assign_kernel().name()));
  // The ported kernels of the adapter's PortedBlocks tests: every block shape they launch.
  for (const lightning::CudaKernel* k :
       {&lk_ported::kReverse, &lk_ported::kBlockSums, &lk_ported::kWhere,
        &lk_ported::kWhereByBlocks, &lk_ported::kFromHelper, &lk_ported::kWarpOps,
        &lk_ported::kWarpLeaver, &lk_ported::kDivergent, &lk_ported::kLeaver,
        &lk_ported::kReadsAhead, &lk_ported::kTransposeTiles, &lk_ported::kBlockSum1024,
        &lk_ported::kHistogramReduce, &lk_ported::kHistogramReadwrite, &lk_ported::kSumAll,
        &lk_ported::kTwoLocalAxes})
    EXPECT_TRUE(compiled.count(k->name())) << k->name();
  // The examples' functors (their sources are part of this test, main() renamed).
  for (const char* name : {"Stencil", "Saxpy", "Dot", "Largest", "Matmul", "YAx"})
    EXPECT_TRUE(compiled.count(name)) << name;
  EXPECT_EQ(failed_as_expected.size(), kHostOnly.size());
}

}  // namespace
}  // namespace lightning::cuda
