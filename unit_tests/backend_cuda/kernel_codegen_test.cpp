#include "backend/cuda/kernel_codegen.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/cuda/nvrtc_compiler.hpp"
#include "core/error.hpp"
#include "kernel/array_binding.hpp"
#include "kernel/reducer_registry.hpp"
#include "lightning_kokkos/cuda_kernel.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/team_launch.hpp"
#include "lightning_kokkos/device/vector_types.hpp"

namespace lightning::cuda {
namespace {

using kernel::DeviceCodeKind;
using kernel::KernelInfo;
using lightning::CudaParam;

// The bytes of a functor with two rank-1 Views and a float, as the Kokkos adapter lays them
// out: each View is its ArrayHandle followed by a control-block pointer.
struct HostSaxpy {
  ArrayHandle<const float, 1> x;
  void* x_control;
  ArrayHandle<float, 1> y;
  void* y_control;
  float a;
};

KernelInfo saxpy_info(const std::string& body) {
  KernelInfo info;
  info.name = "test::Saxpy";
  info.functor_size = sizeof(HostSaxpy);
  info.description.signature.add_array("x", DataType::kFloat32, 1)
      .add_array("y", DataType::kFloat32, 1)
      .add_scalar("a", DataType::kFloat32);
  info.device.kind = DeviceCodeKind::kFunctorBody;
  info.device.source = body;
  info.device.param_offsets = {offsetof(HostSaxpy, x), offsetof(HostSaxpy, y),
                               offsetof(HostSaxpy, a)};
  info.device.index_rank = 1;
  info.device.includes = {"lightning_kokkos/device/kokkos_macros.hpp"};
  return info;
}

const char* kSaxpyBody =
    "KOKKOS_INLINE_FUNCTION void operator()(const int i) const { y(i) = a * x(i) + y(i); }";

void compile(const GeneratedKernel& g, const std::string& name = "test") {
  const NvrtcOutput out = compile_to_cubin({name, g.file_name, g.source}, nvrtc_options(9, 0));
  EXPECT_GT(out.cubin.size(), 4u);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A functor over a column-major (LayoutLeft) matrix `a` and a row-major `b`.
KernelInfo transpose_info() {
  struct HostTranspose {
    ArrayHandle<const double, 2> a;
    void* a_control;
    ArrayHandle<double, 2> b;
    void* b_control;
  };
  KernelInfo info;
  info.name = "test::Transpose";
  info.functor_size = sizeof(HostTranspose);
  info.description.signature.add_array("a", DataType::kFloat64, 2, /*axes_reversed=*/true)
      .add_array("b", DataType::kFloat64, 2);
  info.device.kind = DeviceCodeKind::kFunctorBody;
  info.device.source =
      "KOKKOS_INLINE_FUNCTION void operator()(const int i, const int j) const { b(i, j) = a(j, "
      "i) + a.extent(0); }";
  info.device.param_offsets = {offsetof(HostTranspose, a), offsetof(HostTranspose, b)};
  info.device.index_rank = 2;
  info.device.includes = {"lightning_kokkos/device/kokkos_macros.hpp"};
  return info;
}

// A column-major (LayoutLeft) matrix: its device type indexes the reversed storage.
TEST(KernelCodegen, ColumnMajorViewsIndexTheirReversedStorage) {
  const KernelInfo info = transpose_info();
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_TRUE(contains(g.source, "lightning::ReversedDeviceArray<double, 2> a;")) << g.source;
  EXPECT_TRUE(contains(g.source, "lightning::DeviceArray<double, 2> b;")) << g.source;
  compile(g);
}

TEST(KernelCodegen, FunctorStructHasHostLayoutWithGapsAndChecks) {
  const GeneratedKernel g = generate_kernel(saxpy_info(kSaxpyBody), {});
  EXPECT_EQ(g.entry, "lightning_entry");
  EXPECT_EQ(g.file_name, "test__Saxpy.cu");
  const std::string& s = g.source;
  EXPECT_TRUE(contains(s, "lightning::DeviceArray<float, 1> x;  // bytes [0, 32)")) << s;
  EXPECT_TRUE(contains(s, "unsigned char lightning_gap_0[8];")) << s;
  EXPECT_TRUE(contains(s, "lightning::DeviceArray<float, 1> y;  // bytes [40, 72)")) << s;
  EXPECT_TRUE(contains(s, "float a;  // bytes [80, 84)")) << s;
  EXPECT_TRUE(contains(s, "unsigned char lightning_gap_2[4];")) << s;  // tail up to 88
  EXPECT_TRUE(contains(s, "static_assert(sizeof(Functor) == 88")) << s;
  EXPECT_TRUE(contains(s,
                       "static_assert(sizeof(lightning::DeviceArray<float, 1>) == 32 && 40 % "
                       "alignof(lightning::DeviceArray<float, 1>) == 0, \"y must sit at byte "
                       "40 as in the host's kernel\");"))
      << s;
  EXPECT_TRUE(contains(s, "static_assert(sizeof(float) == 4 && 80 % alignof(float) == 0")) << s;
  EXPECT_TRUE(contains(s,
                       "extern \"C\" __global__ void __launch_bounds__(256) lightning_entry("
                       "const lightning_generated::Functor f, const lightning::jit::LaunchBox "
                       "box, void* partials)"))
      << s;
  // The operator runs on the parameter: offsets come folded in, nothing is copied.
  EXPECT_FALSE(contains(s, "rebase")) << s;
  EXPECT_FALSE(contains(s, "Functor g")) << s;
  // Rank 1: a grid-stride loop in 64 bits, no 32-bit check.
  EXPECT_TRUE(contains(s,
                       "  for (int64_t i = box.lo[0] + static_cast<int64_t>(blockIdx.x) * "
                       "blockDim.x + threadIdx.x; i < hi;\n       i += step)\n    f(i);"))
      << s;
  EXPECT_FALSE(contains(s, "limit")) << s;
  EXPECT_FALSE(contains(s, "partials)[")) << "no reduction epilogue for parallel_for";
  // ... and the one-index-per-thread entry, shaped like a hand-written kernel.
  EXPECT_EQ(g.cover_entry, "lightning_entry_cover");
  EXPECT_TRUE(contains(s,
                       "extern \"C\" __global__ void __launch_bounds__(256) "
                       "lightning_entry_cover(const lightning_generated::Functor f, const "
                       "lightning::jit::LaunchBox box, void* partials) {\n"
                       "  const int64_t i = box.lo[0] + static_cast<int64_t>(blockIdx.x) * "
                       "blockDim.x + threadIdx.x;\n"
                       "  if (i < box.hi[0]) f(i);\n}"))
      << s;
  compile(g);
}

// What the runtime does to a kernel's bytes before a GPU launch.
TEST(KernelCodegen, FoldingChunkOffsetsKeepsTheAddressedElements) {
  KernelInfo info = saxpy_info(kSaxpyBody);
  info.description.arrays = {{0, offsetof(HostSaxpy, x), 1}, {1, offsetof(HostSaxpy, y), 1}};
  std::vector<float> storage(100);
  HostSaxpy f{};
  f.x.data = storage.data();
  f.x.offset = 1000;  // a chunk whose first element is global element 1000
  f.x.stride[0] = 1;
  f.x.extent[0] = 5000;
  f.y.data = nullptr;  // an unbound array stays null
  f.a = 2;
  const uintptr_t x_data = reinterpret_cast<uintptr_t>(f.x.data);
  kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                             reinterpret_cast<uint8_t*>(&f));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.x.data), x_data - 1000 * sizeof(float));
  EXPECT_EQ(f.x.offset, 0);
  EXPECT_EQ(f.x.stride[0], 1);
  EXPECT_EQ(f.x.extent[0], 5000);
  EXPECT_EQ(f.y.data, nullptr);
  EXPECT_EQ(f.a, 2.0f);
  // The slot must name an array parameter of the signature.
  info.description.arrays = {{2, offsetof(HostSaxpy, a), 1}};
  EXPECT_THROW(kernel::fold_chunk_offsets(info.description.arrays, info.description.signature,
                                          reinterpret_cast<uint8_t*>(&f)),
               Error);
}

TEST(KernelCodegen, MembersListedOutOfOrderAreLaidOutByOffset) {
  KernelInfo info = saxpy_info(kSaxpyBody);
  info.description.signature = {};
  info.description.signature.add_scalar("a", DataType::kFloat32)
      .add_array("y", DataType::kFloat32, 1)
      .add_array("x", DataType::kFloat32, 1);
  info.device.param_offsets = {offsetof(HostSaxpy, a), offsetof(HostSaxpy, y),
                               offsetof(HostSaxpy, x)};
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_LT(g.source.find(" x;"), g.source.find(" y;"));
  EXPECT_LT(g.source.find(" y;"), g.source.find(" a;"));
  compile(g);
}

TEST(KernelCodegen, LayoutChecksCatchABodyThatAddsMembers) {
  // A data member in the pasted text would shift nothing here but grows the struct: the
  // generated static_assert on sizeof must stop it.
  const GeneratedKernel g =
      generate_kernel(saxpy_info(std::string("double extra;\n") + kSaxpyBody), {});
  try {
    compile(g, "test::Saxpy");
    FAIL() << "expected the layout check to fail";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "Functor must have the 88 bytes of the host's kernel"))
        << e.what();
  }
}

TEST(KernelCodegen, RejectsOverlapsMisalignmentAndMissingSource) {
  KernelInfo info = saxpy_info(kSaxpyBody);
  info.device.param_offsets[1] = 16;  // y inside x
  EXPECT_THROW(generate_kernel(info, {}), Error);
  info = saxpy_info(kSaxpyBody);
  info.device.param_offsets[2] = 82;  // float at an odd place
  EXPECT_THROW(generate_kernel(info, {}), Error);
  info = saxpy_info(kSaxpyBody);
  info.device.kind = DeviceCodeKind::kNone;
  try {
    generate_kernel(info, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCuda);
    EXPECT_TRUE(contains(e.what(), "test::Saxpy")) << e.what();
    EXPECT_TRUE(contains(e.what(), "host devices only")) << e.what();
  }
}

TEST(KernelCodegen, RankTwoAndThreeIndicesFromTheLaunchBox) {
  struct Host2 {
    ArrayHandle<double, 2> m;
    void* control;
  };
  KernelInfo info;
  info.name = "test::Fill2";
  info.functor_size = sizeof(Host2);
  info.description.signature.add_array("m", DataType::kFloat64, 2);
  info.device.kind = DeviceCodeKind::kFunctorBody;
  info.device.source =
      "void operator()(const int64_t i, const int64_t j) const { m(i, j) = i * m.extent(1) + j; "
      "}";
  info.device.param_offsets = {0};
  info.device.index_rank = 2;
  GeneratedKernel g = generate_kernel(info, {});
  EXPECT_TRUE(contains(g.source, "g(lo0 + t / n1, lo1 + t % n1);")) << g.source;
  EXPECT_TRUE(contains(g.source, "run_threads<int64_t>(f, box, volume, stride);")) << g.source;
  EXPECT_TRUE(contains(g.source,
                       "if (box.hi[0] <= limit && box.hi[1] <= limit && volume + "
                       "stride <= limit)"))
      << g.source;
  EXPECT_TRUE(g.cover_entry.empty()) << "rank 2 has the general entry only";
  EXPECT_FALSE(contains(g.source, "lightning_entry_cover")) << g.source;
  compile(g);

  info.name = "test::Fill3";
  info.description.signature = {};
  info.description.signature.add_array("m", DataType::kFloat64, 3);
  info.functor_size = 16 + 16 * 3 + 8;
  info.device.source =
      "void operator()(int i, int j, int k) const { m(i, j, k) = m.size() + i + j + k; }";
  info.device.index_rank = 3;
  g = generate_kernel(info, {});
  EXPECT_TRUE(contains(g.source, "g(lo0 + t / (n1 * n2), lo1 + r / n2, lo2 + r % n2);"))
      << g.source;
  compile(g);
}

KernelInfo sum_info() {
  KernelInfo info = saxpy_info("");
  info.name = "test::Dot";
  info.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  return info;
}

TEST(KernelCodegen, ReductionWritesOnePartialPerBlock) {
  KernelInfo info = sum_info();
  info.device.source = "void operator()(const int i, double& sum) const { sum += x(i) * y(i); }";
  KernelSpecialization spec;
  spec.block_size = 128;
  spec.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  const GeneratedKernel g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "__launch_bounds__(128)")) << g.source;
  EXPECT_TRUE(contains(g.source, "using Value = double;")) << g.source;
  EXPECT_TRUE(contains(g.source, "void init_value(const Functor&, Value& v) { v = double(0); }"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "  a = static_cast<double>(a + b);")) << g.source;
  EXPECT_TRUE(contains(g.source, "    f(i, value);")) << g.source;
  EXPECT_TRUE(g.cover_entry.empty()) << "reductions have the general entry only";
  EXPECT_TRUE(contains(g.source, "unsigned char scratch_bytes[128 * sizeof(Value)];")) << g.source;
  EXPECT_TRUE(contains(g.source, "static_cast<Value*>(partials)[blockIdx.x] = scratch[0];"))
      << g.source;
  // It ends on the GPU: the last block joins the partials into the target's result.
  EXPECT_TRUE(contains(g.source, "const lightning::jit::ReductionTarget target)")) << g.source;
  EXPECT_TRUE(contains(g.source, "if (!lightning::jit::last_block_to_finish(target.blocks_done))"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "*static_cast<Value*>(target.result) = scratch[0];")) << g.source;
  compile(g);
  EXPECT_NE(spec.key(true), KernelSpecialization{}.key(true));
  EXPECT_EQ(spec.key(false), "b128");
}

TEST(KernelCodegen, EveryBuiltInReducerOnEveryValueTypeCompiles) {
  const ReduceOp ops[] = {ReduceOp::kSum, ReduceOp::kProd, ReduceOp::kMin, ReduceOp::kMax};
  const DataType types[] = {DataType::kInt8,   DataType::kInt32,  DataType::kInt64,
                            DataType::kUInt16, DataType::kUInt64, DataType::kFloat32,
                            DataType::kFloat64};
  // One translation unit per value type, with every operator's entry renamed apart, to keep
  // the number of NVRTC runs small.
  for (DataType type : types) {
    std::string all;
    for (ReduceOp op : ops) {
      KernelInfo info = sum_info();
      info.reduction = Reduction::builtin(ReduceOp::kSum, type);
      const std::string t(name_of(type));
      info.device.source =
          "void operator()(const int i, " + t + "& v) const { v = v + " + t + "(x(i)); }";
      KernelSpecialization spec;
      spec.reduction = Reduction::builtin(op, type);
      std::string s = generate_kernel(info, spec).source;
      const std::string suffix = std::string("_") + std::to_string(static_cast<int>(op));
      for (const char* word : {"lightning_generated", "lightning_entry"})
        for (size_t at = s.find(word); at != std::string::npos;
             at = s.find(word, at + std::string(word).size() + suffix.size()))
          s.insert(at + std::string(word).size(), suffix);
      all += s;
    }
    compile({all, "lightning_entry_0", "", "reducers.cu"}, std::string(name_of(type)));
  }
}

// Kokkos' reducers, as the adapter registers them, fold with their GPU twins: a MinLoc over
// x, and a MinMaxLoc over a 2-D launch (each compiled for sm_90).
TEST(KernelCodegen, RegisteredReducersFoldWithTheirDeviceClasses) {
  auto registered = [](const std::string& type, uint32_t size) {
    kernel::ReducerInfo r;
    r.name = r.device_type = type;
    r.value_size = size;
    return kernel::ReducerRegistry::reduction(kernel::ReducerRegistry::add(r));
  };
  KernelInfo info = sum_info();
  info.device.includes = {"lightning_kokkos/device/kokkos_core.hpp"};
  info.reduction = Reduction::custom(16);
  info.device.source =
      "void operator()(const int i, Kokkos::MinLoc<double, int32_t>::value_type& m) const {"
      " if (x(i) < m.val) { m.val = x(i); m.loc = i; } }";
  KernelSpecialization spec;
  spec.reduction = registered("Kokkos::MinLoc<double, int32_t>", 16);
  GeneratedKernel g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "using Reducer = Kokkos::MinLoc<double, int32_t>;")) << g.source;
  EXPECT_TRUE(contains(g.source, "  Reducer(a).join(a, b);")) << g.source;
  EXPECT_TRUE(contains(g.source, "static_assert(sizeof(Value) == 16")) << g.source;
  compile(g, "minloc");

  info.reduction = Reduction::custom(32);
  info.device.index_rank = 2;
  info.device.source =
      "void operator()(const int i, const int j, Kokkos::MinMaxLoc<float, int64_t>::value_type& "
      "m) const { if (x(i + j) < m.min_val) { m.min_val = x(i + j); m.min_loc = i; }"
      " if (x(i + j) > m.max_val) { m.max_val = x(i + j); m.max_loc = j; } }";
  spec.reduction = registered("Kokkos::MinMaxLoc<float, int64_t>", 24);
  try {  // 24 bytes are not the kernel's 32
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "the reducer's 24-byte values")) << e.what();
  }
  info.reduction = Reduction::custom(24);
  compile(generate_kernel(info, spec), "minmaxloc");
  // A kernel's own init/join (reducer 0) are called on the functor: its source must have them.
  spec.reduction = Reduction::custom(24);
  info.device.functor_init = info.device.functor_join = true;
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "its init/join are not inside LIGHTNING_KERNEL")) << e.what();
  }
  const std::string operator_only = info.device.source;
  info.device.source +=
      " KOKKOS_INLINE_FUNCTION void init(Kokkos::MinMaxLoc<float, int64_t>::value_type& m) const"
      " { m.min_val = 1e30f; m.max_val = -1e30f; m.min_loc = m.max_loc = 0; }"
      " KOKKOS_INLINE_FUNCTION void join(Kokkos::MinMaxLoc<float, int64_t>::value_type& d,"
      " const Kokkos::MinMaxLoc<float, int64_t>::value_type& s) const"
      " { if (s.min_val < d.min_val) { d.min_val = s.min_val; d.min_loc = s.min_loc; } }";
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "f.init(v);")) << g.source;
  EXPECT_TRUE(contains(g.source, "f.join(a, b);")) << g.source;
  EXPECT_TRUE(contains(g.source, "static_assert(sizeof(Value) == 24")) << g.source;
  compile(g, "own init and join");
  // Without them: value-initialised, folded with +=.
  info.device.functor_init = info.device.functor_join = false;
  info.device.source = operator_only;
  info.reduction = Reduction::custom(8);
  info.device.source =
      "void operator()(const int i, const int j, double& sum) const { sum += x(i + j); }";
  spec.reduction = Reduction::custom(8);
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "a += b;")) << g.source;
  compile(g, "own value, default init and join");
  info.reduction = Reduction::custom(24);
  info.device.source = operator_only;
  // A reducer without a GPU spelling is named.
  kernel::ReducerInfo host_only;
  host_only.name = "test::HostOnlyReducer<float, int64_t>";
  host_only.value_size = 24;
  spec.reduction = kernel::ReducerRegistry::reduction(kernel::ReducerRegistry::add(host_only));
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(),
                         "the reducer test::HostOnlyReducer<float, int64_t> runs on host devices "
                         "only"))
        << e.what();
  }
}

// Several reducers of one parallel_reduce, as the adapter registers them: one reducer of
// the parts (lightning::jit::CombinedReducer), whose value's parts go to the operator's
// updates in order; its value has the host's layout (the size checked in GPU code).
TEST(KernelCodegen, SeveralReducersFoldTogetherWithOneUpdatePerReducer) {
  auto combined = [](const std::string& parts, uint32_t updates, uint32_t size) {
    kernel::ReducerInfo r;
    r.name = "combined(" + parts + ")";
    r.device_type = "lightning::jit::CombinedReducer<" + parts + ">";
    r.updates = updates;
    r.value_size = size;
    return kernel::ReducerRegistry::reduction(kernel::ReducerRegistry::add(r));
  };
  KernelInfo info = sum_info();
  info.device.includes = {"lightning_kokkos/device/kokkos_core.hpp"};
  info.reduction = Reduction::custom(32);
  info.device.source =
      "void operator()(const int i, double& s, int64_t& m, "
      "Kokkos::MinLoc<double, int32_t>::value_type& l) const {"
      " s += x(i); if (int64_t(y(i)) > m) m = int64_t(y(i));"
      " if (x(i) < l.val) { l.val = x(i); l.loc = i; } }";
  KernelSpecialization spec;
  spec.reduction =
      combined("Kokkos::Sum<double>, Kokkos::Max<int64_t>, Kokkos::MinLoc<double, int32_t>", 3, 32);
  GeneratedKernel g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source,
                       "using Reducer = lightning::jit::CombinedReducer<Kokkos::Sum<double>, "
                       "Kokkos::Max<int64_t>, Kokkos::MinLoc<double, int32_t>>;"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "f(i, value.part<0>(), value.part<1>(), value.part<2>());"))
      << g.source;
  compile(g, "sum, max and minloc");

  // Over an MD range; a part of one byte before one of eight is padded as on the host.
  info.device.index_rank = 2;
  info.reduction = Reduction::custom(16);
  info.device.source =
      "void operator()(const int i, const int j, int8_t& n, double& p) const {"
      " n += x(i) < 0; p *= y(j); }";
  spec.reduction = combined("Kokkos::Sum<int8_t>, Kokkos::Prod<double>", 2, 16);
  g = generate_kernel(info, spec);
  EXPECT_TRUE(
      contains(g.source, "g(lo0 + t / n1, lo1 + t % n1, value.part<0>(), value.part<1>());"))
      << g.source;
  compile(g, "sum and prod over an MD range");

  // A value whose size differs from the host's does not compile.
  info.reduction = Reduction::custom(9);
  spec.reduction = combined("Kokkos::Sum<int8_t>, Kokkos::Sum<double>", 2, 9);
  try {
    compile(generate_kernel(info, spec));
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "the reducer's value has another size in GPU code")) << e.what();
  }
}

// Kokkos' array reductions (value_type T[]): each thread's value_count elements in the
// block's shared memory, the count from the launch's value size (a fourth parameter), so
// that one module serves every count; the functor's own init and join, or zeros and +.
TEST(KernelCodegen, ArrayReductionsKeepEachThreadsElementsInSharedMemory) {
  KernelInfo info = sum_info();
  info.reduction = Reduction::custom(0);
  info.device.array_element = DataType::kFloat64;
  info.device.source =
      "void operator()(const int i, double* sums) const { for (int j = 0; j < 3; ++j) sums[j] "
      "+= x(i) * j; }";
  KernelSpecialization spec;
  spec.reduction = Reduction::custom(0);
  GeneratedKernel g = generate_kernel(info, spec);
  const std::string& s = g.source;
  EXPECT_TRUE(contains(s, "void* partials,\n    const unsigned long long value_bytes)")) << s;
  EXPECT_TRUE(contains(s, "extern __shared__ __align__(16) unsigned char lightning_values[];"))
      << s;
  EXPECT_TRUE(contains(s, "Element* const value = values + threadIdx.x * count;")) << s;
  EXPECT_TRUE(contains(s, "for (unsigned long long k = 0; k < count; ++k) a[k] += b[k];")) << s;
  EXPECT_TRUE(contains(s, "    f(i, value);")) << s;
  EXPECT_TRUE(contains(s, "join_values(f, value, values + (threadIdx.x + s) * count, count);"))
      << s;
  compile(g, "default init and join");
  KernelSpecialization sized = spec;
  sized.reduction = Reduction::custom(24);  // a launch's three doubles: the same code
  EXPECT_EQ(generate_kernel(info, sized).source, s);

  // Its own init and join, on the operator's spelling of the value (Kokkos' value_type).
  info.device.functor_init = info.device.functor_join = true;
  info.device.source =
      "void operator()(const int i, value_type sums) const { sums[i % 3] += x(i); }"
      " void init(value_type v) const { v[0] = v[1] = v[2] = -1; }"
      " void join(value_type d, const value_type s) const {"
      " for (int j = 0; j < 3; ++j) d[j] = d[j] < s[j] ? s[j] : d[j]; }";
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "using value_type = double[];")) << g.source;
  EXPECT_TRUE(contains(g.source, "  f.init(v);")) << g.source;
  EXPECT_TRUE(contains(g.source, "  f.join(a, b);")) << g.source;
  compile(g, "own init and join");

  // Over an MD range, in a template over the element type.
  info.device.functor_init = info.device.functor_join = false;
  info.device.index_rank = 3;
  info.device.array_element = DataType::kInt32;
  info.device.source =
      "void operator()(const int i, const int j, const int k, T* counts) const {"
      " counts[(i + j + k) % 2] += 1; }";
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "using T = int32_t;")) << g.source;
  EXPECT_TRUE(contains(g.source, "const I stride, lightning_generated::Element* const value)"))
      << g.source;
  compile(g, "rank 3");

  // Outside the source, its init and join cannot be called in GPU code.
  info.device.functor_join = true;
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "its init/join are not inside LIGHTNING_KERNEL")) << e.what();
  }
}

TEST(KernelCodegen, ReductionErrorsNameTheKernel) {
  KernelInfo info = sum_info();
  KernelSpecialization spec;
  spec.reduction = Reduction::custom(8);
  EXPECT_THROW(generate_kernel(info, spec), Error);
  spec.reduction = Reduction::builtin(ReduceOp::kMin, DataType::kFloat32);  // 4 bytes, not 8
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "test::Dot")) << e.what();
  }
}

// An exclusive prefix sum y of x, written in a template over its value type T (which GPU
// code declares), as parallel_scan registers it.
KernelInfo scan_info(DataType type) {
  KernelInfo info = saxpy_info(
      "KOKKOS_INLINE_FUNCTION void operator()(const int64_t i, T& update, const bool final) "
      "const { if (final) y(i) = update; update += x(i); }");
  info.name = "test::PrefixSum";
  info.reduction = Reduction::builtin(ReduceOp::kSum, type);
  info.run_host_scan = [](const void*, const Rect&, void*, bool) {};
  return info;
}

TEST(KernelCodegen, AScanHasAPartialPassAndASinglePassFinalEntry) {
  for (DataType type : {DataType::kInt64, DataType::kUInt8, DataType::kFloat32}) {
    const std::string t(name_of(type));
    SCOPED_TRACE(t);
    KernelSpecialization spec;
    spec.reduction = Reduction::builtin(ReduceOp::kSum, type);
    const GeneratedKernel g = generate_kernel(scan_info(type), spec);
    EXPECT_TRUE(contains(g.source, "using T = " + t + ";")) << g.source;
    // The partial pass: a reduction of the functor called with final = false.
    EXPECT_EQ(g.entry, kEntryName);
    EXPECT_TRUE(contains(g.source, "    f(i, value, false);")) << g.source;
    EXPECT_TRUE(contains(g.source, "using Value = " + t + ";")) << g.source;
    EXPECT_TRUE(contains(g.source, "static_cast<Value*>(partials)[blockIdx.x] = scratch[0];"))
        << g.source;
    // The final pass: each lane's indices of a tile with final = false (their contributions
    // kept in registers, as many as scan_rounds says), then with final = true from each
    // index's prefix, the tiles' prefixes passed on through the ScanState; the last tile
    // leaves the superblock's end in `partials`.
    EXPECT_TRUE(contains(g.source, std::string(kScanFinalEntryName) +
                                       "(\n    const lightning_generated::Functor f, const "
                                       "lightning::jit::LaunchBox box, void* partials,\n    "
                                       "const lightning::jit::ScanState scan)"))
        << g.source;
    EXPECT_TRUE(contains(
        g.source, "constexpr int kRounds = " + std::to_string(scan_rounds(size_of(type))) + ";"))
        << g.source;
    EXPECT_TRUE(contains(g.source, "f(first + 32 * k, c[k], false);")) << g.source;
    EXPECT_TRUE(contains(g.source, "f(first + 32 * k, value, true);")) << g.source;
    EXPECT_TRUE(contains(
        g.source, "if (partials && tile + 1 == tiles) *static_cast<" + t + "*>(partials) = end;"))
        << g.source;
    EXPECT_TRUE(contains(g.source,
                         "if (scan.prefix) before = *static_cast<const " + t + "*>(scan.prefix);"))
        << g.source;
    EXPECT_TRUE(g.cover_entry.empty());
    compile(g, t);
  }
}

TEST(KernelCodegen, ScanErrorsNameTheKernelAndSayWhatGpusScan) {
  KernelInfo info = scan_info(DataType::kFloat64);
  KernelSpecialization spec;
  spec.reduction = Reduction::custom(16);  // a functor's own init/join
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "test::PrefixSum")) << e.what();
    EXPECT_TRUE(contains(e.what(), "own init/join runs on host devices only")) << e.what();
  }
  spec.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat32);  // not 8 bytes
  EXPECT_THROW(generate_kernel(info, spec), Error);
  info.device.index_rank = 2;
  spec.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "RangePolicy")) << e.what();
  }
}

// A team kernel as LIGHTNING_KERNEL registers it: the functor (two rank-1 Views), then the
// launch's shape (a TeamClosure).
struct HostTeamClosure {
  ArrayHandle<const double, 1> x;
  void* x_control;
  ArrayHandle<double, 1> y;
  void* y_control;
  jit::TeamLaunch shape;
  uint8_t op;
};

KernelInfo team_info(const std::string& body) {
  KernelInfo info;
  info.name = "test::Team";
  info.functor_size = sizeof(HostTeamClosure);
  info.description.signature.add_array("x", DataType::kFloat64, 1)
      .add_array("y", DataType::kFloat64, 1);
  info.device.kind = DeviceCodeKind::kTeamFunctorBody;
  info.device.source = body;
  info.device.param_offsets = {offsetof(HostTeamClosure, x), offsetof(HostTeamClosure, y)};
  info.device.launch_offset = offsetof(HostTeamClosure, shape);
  info.device.index_rank = 1;
  info.device.includes = {"lightning_kokkos/device/team_member.hpp"};
  return info;
}

TEST(KernelCodegen, TeamKernelRunsOneBlockPerTeamAndNamesItsMemberType) {
  KernelInfo info = team_info(
      "void operator()(const member_type& team, double& sum) const { double r = 0; "
      "Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, 10), [&](const int i, double& v) "
      "{ v += x(i); }, r); Kokkos::single(Kokkos::PerTeam(team), [&]() { sum += r; }); }");
  info.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  KernelSpecialization spec;
  spec.block_size = 96;
  spec.reduction = Reduction::builtin(ReduceOp::kMax, DataType::kFloat64);
  const GeneratedKernel g = generate_kernel(info, spec);
  const std::string& s = g.source;
  EXPECT_TRUE(contains(s, "using member_type = lightning::TeamMember;")) << s;
  EXPECT_TRUE(contains(s, "lightning::jit::TeamLaunch lightning_team;  // bytes [80, 128)")) << s;
  EXPECT_TRUE(contains(s, "__launch_bounds__(96) lightning_entry(") &&
              contains(s, "const lightning::jit::TeamResources resources)"))
      << s;
  EXPECT_TRUE(contains(s, "team += gridDim.x")) << s;
  EXPECT_TRUE(contains(s, "static_cast<Value*>(partials)[blockIdx.x] = value;")) << s;
  EXPECT_TRUE(contains(s, "  a = a < b ? b : a;")) << s;
  EXPECT_TRUE(contains(s, "lightning::jit::load_from_l2(static_cast<const Value*>(partials) + b)"))
      << s;
  compile(g);
}

// A team kernel's operators picked by work tags: the launched tag goes first, before the
// member, the tags are declared (the member is not one), and the untagged operator beside
// them takes the member alone.
TEST(KernelCodegen, TaggedTeamKernelPassesItsTagBeforeTheMember) {
  const std::string source =
      "void operator()(Fill, const member_type& team) const { y(team.league_rank()) = 1; }\n"
      "void operator()(const app::Sum&, const member_type& team, double& s) const {\n"
      "  s += x(team.league_rank()); }\n"
      "void operator()(const member_type& team) const { y(team.league_rank()) = 2; }";
  KernelInfo sum = team_info(source);
  sum.name = "test::Team [app::Sum]";
  sum.device.work_tag = "app::Sum";
  sum.reduction = Reduction::builtin(ReduceOp::kSum, DataType::kFloat64);
  KernelSpecialization spec;
  spec.block_size = 64;
  spec.reduction = *sum.reduction;
  const GeneratedKernel g = generate_kernel(sum, spec);
  const std::string& s = g.source;
  EXPECT_TRUE(contains(s, "namespace app { struct Sum {}; }")) << s;
  EXPECT_TRUE(contains(s, "struct Fill {};  // a work tag")) << s;
  EXPECT_FALSE(contains(s, "struct member_type")) << s;
  EXPECT_TRUE(contains(s, "using member_type = lightning::TeamMember;")) << s;
  EXPECT_TRUE(contains(s, "f(::app::Sum(), member, value);")) << s;
  compile(g);

  KernelInfo fill = team_info(source);
  fill.name = "test::Team [Fill]";
  fill.device.work_tag = "Fill";
  const GeneratedKernel f = generate_kernel(fill, KernelSpecialization{});
  EXPECT_TRUE(contains(f.source, "f(lightning_generated::Functor::Fill(), member);")) << f.source;
  compile(f);

  const GeneratedKernel untagged = generate_kernel(team_info(source), KernelSpecialization{});
  EXPECT_TRUE(contains(untagged.source, "    f(member);")) << untagged.source;
  compile(untagged);

  KernelInfo other = team_info(source);
  other.device.work_tag = "app::Other";
  EXPECT_THROW(
      {
        try {
          generate_kernel(other, KernelSpecialization{});
        } catch (const Error& e) {
          EXPECT_TRUE(contains(e.what(),
                               "no operator() in its source takes the work tag "
                               "'app::Other'"))
              << e.what();
          throw;
        }
      },
      Error);
}

// A team launch's value folds like a range launch's: with a registered reducer (several of
// them, one update each), or with the functor's own init and join; each block's partial and
// the last block's join of them through the same functions.
TEST(KernelCodegen, TeamKernelsFoldWithReducersAndTheirOwnInitAndJoin) {
  auto registered = [](const std::string& name, const std::string& type, uint32_t updates,
                       uint32_t size) {
    kernel::ReducerInfo r;
    r.name = name;
    r.device_type = type;
    r.updates = updates;
    r.value_size = size;
    return kernel::ReducerRegistry::reduction(kernel::ReducerRegistry::add(r));
  };
  KernelInfo info = team_info(
      "void operator()(const member_type& team, Kokkos::MinLoc<double, int32_t>::value_type& m) "
      "const { const int j = team.league_rank(); if (x(j) < m.val) { m.val = x(j); m.loc = j; } "
      "}");
  info.reduction = Reduction::custom(16);
  KernelSpecialization spec;
  spec.block_size = 64;
  spec.reduction =
      registered("Kokkos::MinLoc<double, int32_t>", "Kokkos::MinLoc<double, int32_t>", 1, 16);
  GeneratedKernel g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "    f(member, value);")) << g.source;
  EXPECT_TRUE(contains(g.source, "  Reducer(a).join(a, b);")) << g.source;
  compile(g, "team minloc");

  info.device.source =
      "void operator()(const member_type& team, double& s, Kokkos::MaxLoc<float, int64_t>"
      "::value_type& l) const { const int j = team.league_rank(); s += x(j);"
      " if (float(y(j)) > l.val) { l.val = float(y(j)); l.loc = j; } }";
  spec.reduction = registered("combined(Kokkos::Sum<double>, Kokkos::MaxLoc<float, int64_t>)",
                              "lightning::jit::CombinedReducer<Kokkos::Sum<double>, "
                              "Kokkos::MaxLoc<float, int64_t>>",
                              2, 24);
  info.reduction = Reduction::custom(24);
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "    f(member, value.part<0>(), value.part<1>());")) << g.source;
  compile(g, "team sum and maxloc");

  // Its own value type, init and join, after a work tag.
  info = team_info(
      "struct value_type { double low; double high; };"
      " void operator()(Range, const member_type& team, value_type& v) const {"
      " const double e = x(team.league_rank() * team.team_size() + team.team_rank());"
      " if (e < v.low) v.low = e; if (e > v.high) v.high = e; }"
      " void init(value_type& v) const { v.low = 1e300; v.high = y(0); }"
      " void join(value_type& d, const value_type& s) const {"
      " if (s.low < d.low) d.low = s.low; if (s.high > d.high) d.high = s.high; }");
  info.name = "test::Team [Range]";
  info.device.work_tag = "Range";
  info.reduction = Reduction::custom(16);
  info.device.functor_init = info.device.functor_join = true;
  spec.reduction = Reduction::custom(16);
  g = generate_kernel(info, spec);
  EXPECT_TRUE(contains(g.source, "using lightning_update_type = value_type;")) << g.source;
  EXPECT_TRUE(contains(g.source, "f(lightning_generated::Functor::Range(), member, value);"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "  f.init(v);")) << g.source;
  EXPECT_TRUE(contains(g.source, "  f.join(a, b);")) << g.source;
  compile(g, "team's own init and join");

  // What cannot fold on a GPU says why.
  const std::string source = info.device.source;
  info.device.source = source.substr(0, source.find(" void init"));
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "its init/join are not inside LIGHTNING_KERNEL")) << e.what();
  }
  info.device.source = source;
  info.reduction = Reduction::custom(0);  // an array reduction
  try {
    generate_kernel(info, spec);
    FAIL();
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "a team launch reduces one value, not an array")) << e.what();
  }
}

// Every part of the team interface GPU code has, in one kernel: nested ranges of each kind
// with parallel_for, parallel_reduce (into values and through each reducer) and
// parallel_scan; single with and without values; the member's collectives; scratch Views of
// both levels, per team and per thread, of both layouts; atomics and math.
TEST(KernelCodegen, TheWholeTeamInterfaceCompiles) {
  const KernelInfo info = team_info(R"(
      using row_view = Kokkos::View<double*, member_type::scratch_memory_space,
                                    Kokkos::MemoryUnmanaged>;
      using tile_view = Kokkos::View<float**, Kokkos::LayoutLeft,
                                     lightning::Distributed::scratch_memory_space,
                                     Kokkos::MemoryUnmanaged>;
      KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
        const int n = static_cast<int>(x.extent(0));
        row_view row(team.team_scratch(0), n);
        row_view mine(team.thread_scratch(1), 2);
        tile_view tile(team.team_shmem(), 4, 3);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n), [&](const int i) { row(i) = x(i); });
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, 1, 12), [&](const int k) {
          tile(k % 4, k / 4) = float(k);
        });
        team.team_barrier();
        double s = 0, p = 0, lo = 0, hi = 0;
        bool all = false, any = false;
        int bits_and = 0, bits_or = 0;
        Kokkos::MinLoc<double, int>::value_type where;
        Kokkos::MaxLoc<double, int>::value_type most;
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, n),
                                [&](const int i, double& v) { v += row(i); }, s);
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, 0, n),
                                [&](const int i, double& v) { v *= row(i); },
                                Kokkos::Prod<double>(p));
        Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, n),
                                [&](const int i, double& v) { v = Kokkos::min(v, row(i)); },
                                Kokkos::Min<double>(lo));
        Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team, n),
                                [&](const int i, double& v) { v = Kokkos::max(v, row(i)); },
                                Kokkos::Max<double>(hi));
        Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, n),
                                [&](const int i, bool& v) { v = v && row(i) > 0; },
                                Kokkos::LAnd<bool>(all));
        Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team, n),
                                [&](const int i, bool& v) { v = v || row(i) > 0; },
                                Kokkos::LOr<bool>(any));
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, n),
                                [&](const int i, int& v) { v &= i; }, Kokkos::BAnd<int>(bits_and));
        Kokkos::parallel_reduce(Kokkos::ThreadVectorRange(team, n),
                                [&](const int i, int& v) { v |= i; }, Kokkos::BOr<int>(bits_or));
        Kokkos::parallel_reduce(Kokkos::TeamThreadRange(team, n), [&](const int i, auto& v) {
          if (row(i) < v.val) { v.val = row(i); v.loc = i; }
        }, Kokkos::MinLoc<double, int>(where));
        Kokkos::parallel_reduce(Kokkos::TeamVectorRange(team, n), [&](const int i, auto& v) {
          if (row(i) > v.val) { v.val = row(i); v.loc = i; }
        }, Kokkos::MaxLoc<double, int>(most));
        long long total = 0;
        Kokkos::parallel_scan(Kokkos::TeamThreadRange(team, n),
                              [&](const int i, long long& part, const bool final) {
                                part += i;
                                if (final) mine(0) = double(part);
                              }, total);
        Kokkos::parallel_scan(Kokkos::ThreadVectorRange(team, n),
                              [&](const int i, double& part, const bool final) {
                                if (final) mine(1) = part;
                                part += row(i);
                              });
        Kokkos::parallel_scan(Kokkos::TeamVectorRange(team, n),
                              [&](const int i, float& part, bool) { part += 1.0f; });
        // Kokkos 4's nested MD ranges, deduced and spelt out.
        Kokkos::parallel_for(Kokkos::TeamThreadMDRange(team, 4, 3),
                             [&](const int i, const int j) { tile(i, j) += 1.0f; });
        Kokkos::parallel_for(
            Kokkos::ThreadVectorMDRange<Kokkos::Rank<3, Kokkos::Iterate::Left>, member_type>(
                team, 2, 2, 3),
            [&](const int i, const int j, const int k) { tile(i + j, k) += 1.0f; });
        double md = 0;
        Kokkos::parallel_reduce(Kokkos::TeamVectorMDRange(team, 4, 3),
                                [&](const int i, const int j, double& v) { v += tile(i, j); }, md);
        double shared = 0;
        Kokkos::single(Kokkos::PerTeam(team), [&](double& v) { v = s + p; }, shared);
        Kokkos::single(Kokkos::PerThread(team), [&](double& v) { v += lo; }, shared);
        Kokkos::single(Kokkos::PerThread(team), [&]() { mine(0) += hi; });
        int from = team.team_rank();
        team.team_broadcast(from, team.team_size() - 1);
        team.team_broadcast([](int& v) { v *= 2; }, from, 0);
        double top = 0;
        team.team_reduce(Kokkos::Max<double>(top), double(team.team_rank()));
        const int before = team.team_scan(1);
        long long global = 0;
        const long long offset = team.team_scan(2ll, &global);
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          Kokkos::atomic_add(&y(team.league_rank()), shared + top + before + offset + total +
                                 where.loc + most.loc + all + any + bits_and + bits_or +
                                 tile(1, 2) + md + Kokkos::sqrt(Kokkos::abs(lo)));
          Kokkos::atomic_max(&y(0), hi);
          Kokkos::atomic_fetch_add(&global, 1ll);
        });
      })");
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_FALSE(
      contains(g.source, "using member_type = lightning::TeamMember;\n  using member_type"));
  compile(g);
}

// A ported kernel as CudaKernel registers it (the packed layout and launch shape).
KernelInfo ported_info(const std::string& function, const std::vector<CudaParam>& params,
                       const std::string& source) {
  return lightning::detail::ported_kernel_info("ported::" + function, source, function, params, "");
}

TEST(KernelCodegen, PortedKernelCallsTheDeviceFunctionWithTheBlockInTheWholeGrid) {
  const KernelInfo info =
      ported_info("stencil",
                  {CudaParam::array<float>("out", 1), CudaParam::array<float>("in", 1),
                   CudaParam::scalar<int>("n")},
                  "__device__ void stencil(dim3 blockIdx, lightning::Vector<float> out,\n"
                  "                        const lightning::Vector<float> in, int n) {\n"
                  "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  if (i > 0 && i < n - 1) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3;\n"
                  "}\n");
  const GeneratedKernel g = generate_kernel(info, {});
  // The superblock's first block comes from the host: no division in the kernel.
  EXPECT_TRUE(contains(g.source, "void* partials, const uint3 first_block) {")) << g.source;
  EXPECT_TRUE(contains(g.source,
                       "const dim3 block_in_grid(first_block.x + blockIdx.x, first_block.y + "
                       "blockIdx.y,\n                           first_block.z + blockIdx.z);"))
      << g.source;
  EXPECT_FALSE(contains(g.source, "/ blockDim")) << g.source;
  EXPECT_TRUE(contains(g.source, "stencil(block_in_grid, f.out, f.in, f.n);")) << g.source;
  // No loop, no launch bounds of the runtime's, no gridDim or blockIdx of its own, no barrier:
  // the kernel as written.
  EXPECT_FALSE(contains(g.source, "for (")) << g.source;
  EXPECT_FALSE(contains(g.source, "__launch_bounds__")) << g.source;
  EXPECT_FALSE(contains(g.source, "lightning_grid_dim")) << g.source;
  EXPECT_FALSE(contains(g.source, "lightning_block_idx")) << g.source;
  EXPECT_FALSE(contains(g.source, "__syncthreads")) << g.source;
  EXPECT_TRUE(contains(g.source, "lightning::jit::PortedLaunch lightning_launch;  // bytes [72, "))
      << g.source;
  EXPECT_TRUE(contains(g.source, "static_assert(sizeof(int32_t) == 4 && 64 % alignof(int32_t)"))
      << g.source;
  compile(g);
}

// Rodinia HotSpot's shape: 16x16 blocks over a 2-D grid, a shared-memory tile with barriers,
// __launch_bounds__ on the function (moved to the entry point), gridDim (the whole grid's).
TEST(KernelCodegen, PortedTwoDimensionalKernelWithSharedMemoryAndLaunchBounds) {
  const KernelInfo info = ported_info(
      "tile_sum", {CudaParam::array<float>("out", 2), CudaParam::array<float>("in", 2)},
      "#define TILE 16\n"
      "/* __launch_bounds__(1024) in a comment is not the kernel's */\n"
      "__device__ void __launch_bounds__(TILE * TILE, 2)\n"
      "tile_sum(dim3 blockIdx, lightning::Matrix<float> out, const lightning::Matrix<float> in) {\n"
      "  __shared__ float tile[TILE][TILE];\n"
      "  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;\n"
      "  tile[threadIdx.y][threadIdx.x] = in(y, x);\n"
      "  __syncthreads();\n"
      "  const float last = gridDim.x * gridDim.y;\n"
      "  out(y, x) = tile[threadIdx.x][threadIdx.y] + last;\n"
      "}\n");
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_TRUE(
      contains(g.source, "__global__ void __launch_bounds__(TILE * TILE, 2) lightning_entry"))
      << g.source;
  EXPECT_TRUE(contains(g.source, "/* __launch_bounds__(1024) in a comment")) << g.source;
  EXPECT_TRUE(contains(g.source, "#define gridDim lightning_grid_dim")) << g.source;
  EXPECT_TRUE(contains(g.source, "lightning_grid_dim = make_uint3(f.lightning_launch.grid[0]"))
      << g.source;
  compile(g, "2-D tile with shared memory");
}

// A __device__ helper that reads blockIdx itself sees the block's index in the whole grid,
// as the function's parameter does (cuda-samples and Rodinia compute indices in helpers).
TEST(KernelCodegen, PortedHelpersThatReadBlockIdxSeeTheWholeGrid) {
  const KernelInfo info = ported_info(
      "scale", {CudaParam::array<float>("v", 1)},
      "__device__ int global_index() { return blockIdx.x * blockDim.x + threadIdx.x; }\n"
      "__device__ void scale(dim3 blockIdx, lightning::Vector<float> v) {\n"
      "  v[global_index()] *= 2 + blockIdx.y;\n"
      "}\n");
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_TRUE(contains(g.source, "#define blockIdx lightning_block_idx")) << g.source;
  EXPECT_TRUE(contains(g.source, "#undef blockIdx")) << g.source;
  EXPECT_TRUE(
      contains(g.source, "    lightning_block_idx = block_in_grid;\n  }\n  __syncthreads();"))
      << g.source;
  compile(g, "helper reading blockIdx");
}

TEST(KernelCodegen, PortedKernelWithDynamicSharedMemoryAndWarpIntrinsics) {
  const KernelInfo info = ported_info(
      "block_sum", {CudaParam::array<float>("sums", 1), CudaParam::array<float>("in", 1)},
      "__device__ void block_sum(dim3 blockIdx, lightning::Vector<float> sums,\n"
      "                          const lightning::Vector<float> in) {\n"
      "  extern __shared__ float warp_sums[];\n"
      "  float v = in[blockIdx.x * blockDim.x + threadIdx.x];\n"
      "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);\n"
      "  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) {\n"
      "    float s = 0;\n"
      "    for (unsigned w = 0; w < blockDim.x / 32; ++w) s += warp_sums[w];\n"
      "    atomicAdd(&sums[0], s);\n"
      "  }\n"
      "}\n");
  compile(generate_kernel(info, {}), "dynamic shared memory");
}

// A ported kernel over CUDA's vector types (cuda-samples' Black-Scholes takes float2 arrays):
// the parameter struct holds DeviceArray<float2>, the body uses the lanes.
TEST(KernelCodegen, PortedKernelsTakeArraysOfVectorTypes) {
  const KernelInfo info =
      ported_info("lanes",
                  {CudaParam::array<lightning::float2>("out", 1),
                   CudaParam::array<lightning::float4>("in", 1), CudaParam::scalar<int>("n")},
                  "__device__ void lanes(dim3 blockIdx, lightning::Vector<float2> out,\n"
                  "                      const lightning::Vector<float4> in, int n) {\n"
                  "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  if (i < n) out[i] = make_float2(in[i].x + in[i].y, in[i].z * in[i].w);\n"
                  "}\n");
  const GeneratedKernel g = generate_kernel(info, {});
  EXPECT_TRUE(contains(g.source, "lightning::DeviceArray<float2, 1> out;")) << g.source;
  EXPECT_TRUE(contains(g.source, "lightning::DeviceArray<float4, 1> in;")) << g.source;
  compile(g);
}

// Checked mode: the same kernels compiled with LIGHTNING_CHECKED_ACCESS, under their own
// key, with every access going through the handle's CheckedRegion (functors of rank 1 and 2,
// column-major ones, and ported kernels).
TEST(KernelCodegen, CheckedModeCompilesEveryAccessThroughTheCheckedRegion) {
  KernelSpecialization checked;
  checked.checked = true;
  EXPECT_NE(checked.key(false), KernelSpecialization{}.key(false));
  const GeneratedKernel g = generate_kernel(saxpy_info(kSaxpyBody), checked);
  EXPECT_EQ(g.source.find("#define LIGHTNING_CHECKED_ACCESS 1"),
            g.source.find('\n') + 1)  // before any include
      << g.source;
  EXPECT_FALSE(
      contains(generate_kernel(saxpy_info(kSaxpyBody), {}).source, "LIGHTNING_CHECKED_ACCESS"));
  compile(g, "checked saxpy");

  compile(generate_kernel(transpose_info(), checked), "checked transpose");

  const KernelInfo ported =
      ported_info("copy", {CudaParam::array<float>("out", 1), CudaParam::array<float>("in", 1)},
                  "__device__ void copy(dim3 blockIdx, lightning::Vector<float> out,\n"
                  "                     const lightning::Vector<float> in) {\n"
                  "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  out[i] = in[i];\n"
                  "}\n");
  compile(generate_kernel(ported, checked), "checked ported copy");
}

TEST(KernelCodegen, ReflowBreaksStatementsButNotLiteralsOrParentheses) {
  EXPECT_EQ(reflow_source("void f() const { for (int j = 0; j < n; ++j) { t += m(i, j); } "
                          "s(i) = \"a;{b}\"[0]; }"),
            "  void f() const {\n"
            "    for (int j = 0; j < n; ++j) {\n"
            "      t += m(i, j);\n"
            "    }\n"
            "    s(i) = \"a;{b}\"[0];\n"
            "  }\n");
}

}  // namespace
}  // namespace lightning::cuda
