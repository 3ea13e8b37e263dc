// The generated entry points: a struct with the host bytes' layout, the user's code, and the
// extern "C" __global__ wrapper of the kernel ABI.
#include "backend/cuda/kernel_codegen.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "kernel/functor_source.hpp"
#include "kernel/ported_source.hpp"
#include "kernel/reducer_registry.hpp"
#include "lightning_kokkos/device/array_handle.hpp"
#include "lightning_kokkos/device/ported_launch.hpp"
#include "lightning_kokkos/device/scan_launch.hpp"
#include "lightning_kokkos/device/team_launch.hpp"

namespace lightning::cuda {

namespace {

using kernel::DeviceCodeKind;
using kernel::KernelInfo;

// One parameter of the kernel's bytes, as the generated struct declares it.
struct Member {
  std::string name;
  std::string type;  // C++ spelling under NVRTC
  size_t offset = 0;
  size_t size = 0;
  size_t align = 1;
};

[[noreturn]] void fail(const KernelInfo& info, const std::string& what) {
  throw Error(ErrorKind::kCuda, "cannot generate GPU code for kernel '" + info.name + "': " + what);
}

// The members of the kernel's bytes in offset order; checks that they fit and do not overlap.
std::vector<Member> members_of(const KernelInfo& info) {
  const auto& params = info.description.signature.params;
  if (info.device.param_offsets.size() != params.size())
    fail(info, "it records " + std::to_string(info.device.param_offsets.size()) +
                   " parameter offsets for " + std::to_string(params.size()) + " parameters");
  std::vector<Member> members;
  for (size_t p = 0; p < params.size(); ++p) {
    Member m;
    m.name = params[p].name;
    m.offset = info.device.param_offsets[p];
    if (params[p].is_array) {
      if (params[p].rank < 1 || params[p].rank > 3)
        fail(info, "array '" + m.name + "' has rank " + std::to_string(params[p].rank) +
                       " (GPU code takes arrays of 1 to 3 axes)");
      // A column-major (LayoutLeft) View indexes its reversed storage.
      m.type = std::string(params[p].axes_reversed ? "lightning::ReversedDeviceArray<"
                                                   : "lightning::DeviceArray<") +
               std::string(name_of(params[p].type)) + ", " + std::to_string(params[p].rank) + ">";
      m.size = static_cast<size_t>(array_handle_size(params[p].rank));
      m.align = 8;
    } else {
      m.type = std::string(name_of(params[p].type));
      m.size = size_of(params[p].type);
      m.align = m.size;
    }
    if (m.offset % m.align != 0)
      fail(info, "'" + m.name + "' sits at byte " + std::to_string(m.offset) +
                     ", not a multiple of its alignment " + std::to_string(m.align));
    members.push_back(m);
  }
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.offset < b.offset; });
  size_t end = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i > 0 && members[i].offset < end)
      fail(info, "members '" + members[i - 1].name + "' and '" + members[i].name + "' overlap");
    end = members[i].offset + members[i].size;
  }
  if (end > info.functor_size)
    fail(info, "its members end at byte " + std::to_string(end) + ", beyond its " +
                   std::to_string(info.functor_size) + " bytes");
  return members;
}

// Appends the launch's shape (`shape` without its offset: DeviceCode::launch_offset), which
// must follow the members within the kernel's bytes.
void append_launch_shape(const KernelInfo& info, Member shape, std::vector<Member>& members) {
  shape.offset = info.device.launch_offset;
  const size_t params_end = members.empty() ? 0 : members.back().offset + members.back().size;
  if (shape.offset < params_end || shape.offset % shape.align != 0 ||
      shape.offset + shape.size > info.functor_size)
    fail(info, "its launch shape (" + shape.type + ") sits at byte " +
                   std::to_string(shape.offset) + ", not after its parameters (byte " +
                   std::to_string(params_end) + ") within its " +
                   std::to_string(info.functor_size) + " bytes");
  members.push_back(shape);
}

// Refuses the reductions GPU code cannot make: a functor's own init/join that are not in the
// source (GPU code calls them), a reducer without a GPU spelling, values of another size than
// the kernel's, and array reductions in team kernels.
void check_reduction(const KernelInfo& info, const KernelSpecialization& spec) {
  if (spec.reduction.is_custom()) {
    if (spec.reduction.reducer == 0) {
      if (info.reduces_array() && info.device.kind == DeviceCodeKind::kTeamFunctorBody)
        fail(info, "a team launch reduces one value, not an array (value_type T[])");
      // Its init and join are called in GPU code: they must be in the source.
      const std::string& source = info.device.source;
      if ((info.device.functor_init && source.find("init") == std::string::npos) ||
          (info.device.functor_join && source.find("join") == std::string::npos))
        fail(info,
             "its init/join are not inside LIGHTNING_KERNEL(...), so GPU code cannot call "
             "them: write them (KOKKOS_INLINE_FUNCTION) in the macro's last argument, after "
             "operator()");
      return;
    }
    const kernel::ReducerInfo& reducer = kernel::ReducerRegistry::get(spec.reduction.reducer);
    if (reducer.device_type.empty())
      fail(info, "the reducer " + reducer.name + " runs on host devices only");
    if (spec.reduction.value_size != info.reduction->value_size)
      fail(info, "the reducer's " + std::to_string(spec.reduction.value_size) +
                     "-byte values are not the kernel's " +
                     std::to_string(info.reduction->value_size) + "-byte ones");
    return;
  }
  if (size_of(spec.reduction.type) != info.reduction->value_size)
    fail(info, "the reduction's value type " + std::string(name_of(spec.reduction.type)) +
                   " does not have the kernel's value size " +
                   std::to_string(info.reduction->value_size));
}

// Refuses the scans GPU code cannot make: a functor's own init/join (GPUs scan with +), and a
// value type of another size than the kernel's.
void check_scan(const KernelInfo& info, const KernelSpecialization& spec) {
  if (info.device.index_rank != 1)
    fail(info, "a parallel_scan runs over a RangePolicy (one index), not " +
                   std::to_string(info.device.index_rank) + " indices");
  if (spec.block_size % 32 != 0)
    fail(info,
         "a scan's final pass works in whole warps: blocks of a multiple of 32 threads, "
         "not " +
             std::to_string(spec.block_size));
  if (spec.reduction.is_custom())
    fail(info,
         "a parallel_scan with the functor's own init/join runs on host devices only (GPUs scan "
         "arithmetic values with +)");
  check_reduction(info, spec);
}

// `struct <name> { members at their offsets, gaps as bytes; <body> };` and the layout checks.
void write_struct(std::ostringstream& out, const KernelInfo& info, const std::string& name,
                  const std::vector<Member>& members, const std::string& body) {
  out << "struct " << name << " {\n";
  size_t at = 0;
  int gap = 0;
  auto pad_to = [&](size_t offset) {
    if (offset > at)
      out << "  unsigned char lightning_gap_" << gap++ << "[" << offset - at << "];\n";
    at = offset;
  };
  for (const Member& m : members) {
    pad_to(m.offset);
    out << "  " << m.type << " " << m.name << ";  // bytes [" << m.offset << ", "
        << m.offset + m.size << ")\n";
    at = m.offset + m.size;
  }
  pad_to(info.functor_size);
  if (!body.empty()) out << "\n" << body << "\n";
  out << "};\n";
  // The host and this struct must agree byte for byte: the runtime copies the host bytes.
  // NVRTC has no constant offsetof, so offsets are checked through what fixes them: every
  // member has the size assumed and an alignment that divides its offset, so the compiler
  // inserts no padding and each member sits after exactly the bytes written before it.
  out << "static_assert(sizeof(" << name << ") == " << info.functor_size << ", \"" << name
      << " must have the " << info.functor_size << " bytes of the host's kernel\");\n";
  for (const Member& m : members)
    out << "static_assert(sizeof(" << m.type << ") == " << m.size << " && " << m.offset
        << " % alignof(" << m.type << ") == 0, \"" << m.name << " must sit at byte " << m.offset
        << " as in the host's kernel\");\n";
}

// C++ literal of a reduction's identity under NVRTC (the values of Reduction::identity).
std::string identity_literal(ReduceOp op, DataType type) {
  const std::string t(name_of(type));
  if (op == ReduceOp::kSum) return t + "(0)";
  if (op == ReduceOp::kProd) return t + "(1)";
  const bool min = op == ReduceOp::kMin;
  if (type == DataType::kFloat32)
    return min ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000u)";
  if (type == DataType::kFloat64)
    return min ? "__longlong_as_double(0x7ff0000000000000ll)"
               : "__longlong_as_double(0xfff0000000000000ull)";
  // Integers: the largest (min) or lowest (max) value, spelled so that no literal overflows.
  auto spell = [&](auto limits_of) -> std::string {
    using L = decltype(limits_of);
    if (min) return t + "(" + std::to_string(L::max()) + "ull)";
    if (L::lowest() == 0) return t + "(0)";
    return t + "(-" + std::to_string(L::max()) + "ll - 1)";
  };
  switch (type) {
    case DataType::kInt8:
      return spell(std::numeric_limits<int8_t>());
    case DataType::kInt16:
      return spell(std::numeric_limits<int16_t>());
    case DataType::kInt32:
      return spell(std::numeric_limits<int32_t>());
    case DataType::kInt64:
      return spell(std::numeric_limits<int64_t>());
    case DataType::kUInt8:
      return spell(std::numeric_limits<uint8_t>());
    case DataType::kUInt16:
      return spell(std::numeric_limits<uint16_t>());
    case DataType::kUInt32:
      return spell(std::numeric_limits<uint32_t>());
    default:
      return spell(std::numeric_limits<uint64_t>());
  }
}

// Expression joining a and b of type `type`.
std::string join_expression(ReduceOp op, const std::string& type) {
  switch (op) {
    case ReduceOp::kSum:
      return "static_cast<" + type + ">(a + b)";
    case ReduceOp::kProd:
      return "static_cast<" + type + ">(a * b)";
    case ReduceOp::kMin:
      return "b < a ? b : a";
    default:
      return "a < b ? b : a";
  }
}

std::string file_name_of(const std::string& kernel_name) {
  std::string name;
  for (char c : kernel_name) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.size() > 80) name.resize(80);
  return name + ".cu";
}

void write_prelude(std::ostringstream& out, const KernelInfo& info,
                   const KernelSpecialization& spec) {
  out << "// Generated by lightning_kokkos for kernel '" << info.name << "'.\n";
  if (spec.checked) out << "#define LIGHTNING_CHECKED_ACCESS 1\n";
  out << "#include <cstddef>\n#include <cstdint>\n"
      << "#include \"lightning_kokkos/device/device_array.hpp\"\n"
      << "#include \"lightning_kokkos/device/launch_box.hpp\"\n"
      << "#include \"lightning_kokkos/device/reduction_target.hpp\"\n"
      << "#include \"lightning_kokkos/device/vector_types.hpp\"\n";
  if (info.scans()) out << "#include \"lightning_kokkos/device/scan_launch.hpp\"\n";
  for (const std::string& header : info.device.includes) out << "#include \"" << header << "\"\n";
}

// Replaces every "@NAME@" of `text` by its value.
std::string substitute(std::string text,
                       const std::vector<std::pair<std::string, std::string>>& values) {
  for (const auto& [name, value] : values) {
    const std::string marker = "@" + name + "@";
    for (size_t at = text.find(marker); at != std::string::npos;
         at = text.find(marker, at + value.size()))
      text.replace(at, marker.size(), value);
  }
  return text;
}

// A scan's final pass (ScanPass::kFinal), single-pass: blocks take tiles of
// scan_tile_size() consecutive indices in index order; each warp owns ROUNDS * 32 of them and
// each lane one index in every 32. The lane first runs its indices with final = false, each
// from the identity, keeping the contributions in registers (unrolled, so the loads are all
// in flight at once); the block joins the warps' sums into the tile's aggregate and publishes
// it; the first warp looks back over earlier tiles (decoupled look-back: WINDOW tiles a lane,
// 32 * WINDOW a step, a ballot finding the nearest inclusive prefix, a shuffle reduction of
// the window) while the other warps scan their rounds across lanes; then every index runs
// with final = true from its exclusive prefix (a store, in a scan's usual body: the read is
// dead). How fast the look-back steps bounds how many tiles a microsecond can finish, so a
// tile's status and value share one word where they fit (jit::scan_record_packed). The block
// that runs the last tile writes the superblock's inclusive end to `partials` when that is
// not null.
// Tiles each lane of the look-back reads per step (32 * this many a step): 4 measured no
// faster than 1 on an H100 with tiles of 64 indices a thread (docs/results.md).
constexpr int kScanLookBackWindow = 1;

constexpr const char* kScanPackedRecords = R"(
// A tile's record: one 64-bit word, the status above the value's bits, written and read whole.
__device__ __forceinline__ void scan_publish(void* records, const unsigned tile,
                                             const unsigned status, const @T@ value) {
  union { @T@ t; unsigned u; } bits;
  bits.u = 0u;
  bits.t = value;
  static_cast<volatile unsigned long long*>(records)[tile] =
      (static_cast<unsigned long long>(status) << 32) | bits.u;
}
__device__ __forceinline__ unsigned scan_peek(const void* records, const long long tile,
                                              @T@& value) {
  const unsigned long long word = static_cast<const volatile unsigned long long*>(records)[tile];
  union { @T@ t; unsigned u; } bits;
  bits.u = static_cast<unsigned>(word);
  value = bits.t;
  return static_cast<unsigned>(word >> 32);
}
)";
constexpr const char* kScanSplitRecords = R"(
// A tile's record: the status, then the aggregate and the inclusive prefix in slots of
// @SLOT@ bytes; the value is written before the status (release) and read after it (acquire).
__device__ __forceinline__ void scan_publish(void* records, const unsigned tile,
                                             const unsigned status, const @T@ value) {
  char* const record = static_cast<char*>(records) + static_cast<size_t>(tile) * @RECORD@;
  *reinterpret_cast<volatile @T@*>(record + (status == 1u ? 8 : 8 + @SLOT@)) = value;
#if __CUDA_ARCH__ >= 700
  asm volatile("st.release.gpu.u32 [%0], %1;" : : "l"(record), "r"(status) : "memory");
#else
  __threadfence();
  *reinterpret_cast<volatile unsigned*>(record) = status;
#endif
}
__device__ __forceinline__ unsigned scan_peek(const void* records, const long long tile,
                                              @T@& value) {
  const char* const record =
      static_cast<const char*>(records) + static_cast<size_t>(tile) * @RECORD@;
  unsigned status;
#if __CUDA_ARCH__ >= 700
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(status) : "l"(record) : "memory");
#else
  status = *reinterpret_cast<const volatile unsigned*>(record);
  __threadfence();
#endif
  if (status != 0u)
    value = *reinterpret_cast<const volatile @T@*>(record + (status == 1u ? 8 : 8 + @SLOT@));
  return status;
}
)";
constexpr const char* kScanFinalTemplate = R"(
namespace lightning_generated {
// a joined with b, a the earlier value
__device__ __forceinline__ @T@ scan_join(const @T@ a, const @T@ b) { return @JOIN@; }
@RECORDS@
}  // namespace lightning_generated

extern "C" __global__ void __launch_bounds__(@BLOCK@) @ENTRY@(
    const lightning_generated::Functor f, const lightning::jit::LaunchBox box, void* partials,
    const lightning::jit::ScanState scan) {
  using lightning_generated::scan_join;
  using lightning_generated::scan_peek;
  using lightning_generated::scan_publish;
  constexpr unsigned kWarps = @BLOCK@ / 32;
  constexpr int kRounds = @ROUNDS@;
  constexpr int kWindow = @WINDOW@;
  constexpr int64_t kPerWarp = 32 * kRounds;
  constexpr int64_t kTile = kPerWarp * kWarps;
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ @T@ warp_sums[kWarps];
  __shared__ unsigned tile_taken;
  __shared__ @T@ tile_prefix;
  const int64_t lo = box.lo[0], hi = box.hi[0];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned tiles = static_cast<unsigned>((hi - lo + kTile - 1) / kTile);
  for (;;) {
    if (threadIdx.x == 0) tile_taken = atomicAdd(scan.next_tile, 1u);
    __syncthreads();
    const unsigned tile = tile_taken;
    if (tile >= tiles) return;
    const int64_t first = lo + static_cast<int64_t>(tile) * kTile + warp * kPerWarp + lane;
    const bool whole = lo + (static_cast<int64_t>(tile) + 1) * kTile <= hi;
    // Each index's contribution, from the identity; the lane's sum; the warp's.
    @T@ c[kRounds];
    if (whole) {
#pragma unroll
      for (int k = 0; k < kRounds; ++k) {
        c[k] = @IDENTITY@;
        f(@TAG@first + 32 * k, c[k], false);
      }
    } else {
#pragma unroll
      for (int k = 0; k < kRounds; ++k) {
        c[k] = @IDENTITY@;
        if (first + 32 * k < hi) f(@TAG@first + 32 * k, c[k], false);
      }
    }
    @T@ own = c[0];
#pragma unroll
    for (int k = 1; k < kRounds; ++k) own = scan_join(own, c[k]);
#pragma unroll
    for (unsigned d = 16; d > 0; d /= 2)
      own = scan_join(own, static_cast<@T@>(__shfl_xor_sync(kAll, own, d)));
    if (lane == 0) warp_sums[warp] = own;
    __syncthreads();
    @T@ warp_prefix = @IDENTITY@, aggregate = @IDENTITY@;
#pragma unroll
    for (unsigned w = 0; w < kWarps; ++w) {
      if (w == warp) warp_prefix = aggregate;
      aggregate = scan_join(aggregate, warp_sums[w]);
    }
    if (warp == 0) {
      @T@ before = @IDENTITY@;
      if (tile == 0) {
        if (scan.prefix) before = *static_cast<const @T@*>(scan.prefix);
      } else {
        if (lane == 0) scan_publish(scan.records, tile, 1u, aggregate);
        // Lane l reads tiles last - kWindow * l - j, j = 0 the latest: a higher lane is
        // earlier. Every earlier tile was taken before this one, by a block that runs.
        for (long long last = static_cast<long long>(tile) - 1;; last -= 32 * kWindow) {
          unsigned seen[kWindow];
          @T@ value[kWindow];
#pragma unroll
          for (int j = 0; j < kWindow; ++j) {
            const long long p = last - static_cast<long long>(kWindow * lane + j);
            value[j] = @IDENTITY@;
            seen[j] = p < 0 ? 2u : scan_peek(scan.records, p, value[j]);  // before tile 0: as if a prefix
          }
#pragma unroll
          for (int j = 0; j < kWindow; ++j) {
            const long long p = last - static_cast<long long>(kWindow * lane + j);
            while (seen[j] == 0u) {
#if __CUDA_ARCH__ >= 700
              __nanosleep(32);
#endif
              seen[j] = scan_peek(scan.records, p, value[j]);
            }
          }
          // The lane's tiles from the latest back to the first inclusive prefix among them.
          @T@ v = @IDENTITY@;
          bool prefixed = false;
#pragma unroll
          for (int j = 0; j < kWindow; ++j)
            if (!prefixed) {
              v = scan_join(value[j], v);
              prefixed = seen[j] == 2u;
            }
          const unsigned lanes = __ballot_sync(kAll, prefixed);
          // Lanes before the nearest inclusive prefix are in it already.
          if (lanes != 0u && lane > static_cast<unsigned>(__ffs(lanes) - 1)) v = @IDENTITY@;
#pragma unroll
          for (unsigned d = 1; d < 32; d *= 2) {
            const @T@ earlier = static_cast<@T@>(__shfl_down_sync(kAll, v, d));
            if (lane + d < 32) v = scan_join(earlier, v);
          }
          before = scan_join(static_cast<@T@>(__shfl_sync(kAll, v, 0)), before);
          if (lanes != 0u) break;
        }
      }
      if (lane == 0) {
        const @T@ end = scan_join(before, aggregate);
        scan_publish(scan.records, tile, 2u, end);
        tile_prefix = before;
        if (partials && tile + 1 == tiles) *static_cast<@T@*>(partials) = end;
      }
    }
    // Each round's contributions scanned across the warp: c[k] becomes the exclusive prefix
    // of its index within the warp's part of the tile.
    @T@ running = @IDENTITY@;
#pragma unroll
    for (int k = 0; k < kRounds; ++k) {
      @T@ x = c[k];
#pragma unroll
      for (unsigned d = 1; d < 32; d *= 2) {
        const @T@ n = static_cast<@T@>(__shfl_up_sync(kAll, x, d));
        if (lane >= d) x = scan_join(n, x);
      }
      const @T@ earlier = static_cast<@T@>(__shfl_up_sync(kAll, x, 1));
      c[k] = lane == 0 ? running : scan_join(running, earlier);
      running = scan_join(running, static_cast<@T@>(__shfl_sync(kAll, x, 31)));
    }
    __syncthreads();  // tile_prefix
    const @T@ base = scan_join(tile_prefix, warp_prefix);
    if (whole) {
#pragma unroll
      for (int k = 0; k < kRounds; ++k) {
        @T@ value = scan_join(base, c[k]);
        f(@TAG@first + 32 * k, value, true);
      }
    } else {
#pragma unroll
      for (int k = 0; k < kRounds; ++k) {
        @T@ value = scan_join(base, c[k]);
        if (first + 32 * k < hi) f(@TAG@first + 32 * k, value, true);
      }
    }
  }
}
)";

void write_scan_final_entry(std::ostringstream& out, const KernelSpecialization& spec,
                            const std::string& tag_argument) {
  const size_t value_size = spec.reduction.value_size;
  const std::string t(name_of(spec.reduction.type));
  const std::string records =
      substitute(jit::scan_record_packed(value_size) ? kScanPackedRecords : kScanSplitRecords,
                 {{"RECORD", std::to_string(jit::scan_record_size(value_size))},
                  {"SLOT", std::to_string((jit::scan_record_size(value_size) - 8) / 2)},
                  {"T", t}});
  out << substitute(kScanFinalTemplate,
                    {{"RECORDS", records},
                     {"T", t},
                     {"JOIN", join_expression(spec.reduction.op, t)},
                     {"IDENTITY", identity_literal(spec.reduction.op, spec.reduction.type)},
                     {"BLOCK", std::to_string(spec.block_size)},
                     {"ROUNDS", std::to_string(scan_rounds(value_size))},
                     {"WINDOW", std::to_string(kScanLookBackWindow)},
                     {"ENTRY", kScanFinalEntryName},
                     {"TAG", tag_argument}});
}

// Work tags: every tag the operators take is declared for GPU code (as an empty class, as
// Kokkos' tags are), and the launched one is the operator's first argument.
kernel::WorkTagCode work_tags_of(const KernelInfo& info) {
  const kernel::WorkTagCode tag =
      kernel::work_tag_code(info.device.source, info.device.work_tag,
                            info.device.kind == DeviceCodeKind::kTeamFunctorBody);
  if (!info.device.work_tag.empty() && tag.value.empty())
    fail(info, "no operator() in its source takes the work tag '" + info.device.work_tag +
                   "' first, spelt as a plain or qualified class name");
  return tag;
}

// The declarations of the work tags spelt with their namespaces, before the functor's struct.
void write_global_work_tags(std::ostringstream& out, const kernel::WorkTagCode& tag) {
  if (!tag.global_declarations.empty())
    out << "\n// The work tags the operators take.\n" << tag.global_declarations;
}

// How a reducing kernel's values fold in GPU code, the GPU side of the launch's Reduction:
// the value's type, and its init and join as functions of the functor, emitted after the
// functor's struct as lightning_generated::Value (an array reduction: Element, the
// element type of value_count elements), init_value and join_values; and the update
// arguments that hand a value to the operator.
struct GeneratedFold {
  std::string declarations;  ///< the value type and functions, at namespace scope
  std::string arguments;     ///< the operator's update arguments, given a `value`
  bool array = false;        ///< an array reduction: `value` is an Element*
};

// The index of the operator's update parameter (after the work tag and the indices or the
// team member), and the operator that takes it.
struct UpdateParameter {
  int index = 0;
  size_t op = 0;
};
UpdateParameter update_parameter(const KernelInfo& info, const kernel::WorkTagCode& tag) {
  const bool team = info.device.kind == DeviceCodeKind::kTeamFunctorBody;
  const int leading = team ? 1 : info.device.index_rank;
  return {leading + (tag.value.empty() ? 0 : 1),
          static_cast<size_t>(std::max(tag.operator_index, 0))};
}

// What the functor's struct needs so that the operator's value parameter names a type GPU
// code knows (kernel::value_type_declaration): at the start of the body a declaration of a
// spelling GPU code would not see (a template's parameter, an array's value_type); at its
// end, for a functor's own init/join, `lightning_update_type`, the update's type as the
// operator spells it (after the source's own declarations, such as value_type).
void declare_value_type(const KernelInfo& info, const KernelSpecialization& spec,
                        const kernel::WorkTagCode& tag, std::string& body) {
  const UpdateParameter update = update_parameter(info, tag);
  const std::string& source = info.device.source;
  std::string declaration;
  if (!spec.reduction.is_custom())
    declaration = kernel::value_type_declaration(source, update.index,
                                                 std::string(name_of(spec.reduction.type)),
                                                 static_cast<int>(update.op));
  else if (info.reduces_array())
    declaration = kernel::value_type_declaration(
        source, update.index, std::string(name_of(info.device.array_element)) + "[]",
        static_cast<int>(update.op));
  if (!declaration.empty()) body = "  " + declaration + "\n" + body;
  if (spec.reduction.is_custom() && spec.reduction.reducer == 0 && !info.reduces_array()) {
    const auto operators = kernel::operator_parameter_types(source);
    if (update.op >= operators.size() ||
        operators[update.op].size() <= static_cast<size_t>(update.index))
      fail(info,
           "no operator() in its source takes the reduction's value after its " +
               std::string(info.device.kind == DeviceCodeKind::kTeamFunctorBody ? "team member"
                                                                                : "indices"));
    body += "\n  using lightning_update_type = " +
            operators[update.op][static_cast<size_t>(update.index)] + ";\n";
  }
}

// The fold of `spec.reduction` (checked by check_reduction): a built-in operator on numbers,
// a registered reducer's GPU class (several reducers of one parallel_reduce: one update
// argument per part), the functor's own init and join (value-initialisation and += where it
// has none), or an array reduction's (element by element where it has none).
GeneratedFold fold_of(const KernelInfo& info, const KernelSpecialization& spec) {
  GeneratedFold fold;
  std::ostringstream d;
  const Reduction& r = spec.reduction;
  fold.arguments = "value";
  if (!r.is_custom()) {
    const std::string t(name_of(r.type));
    d << "// The launch's values fold with " << name_of(r.op) << " on " << t << ".\n"
      << "using Value = " << t << ";\n"
      << "__device__ __forceinline__ void init_value(const Functor&, Value& v) { v = "
      << identity_literal(r.op, r.type) << "; }\n"
      << "__device__ __forceinline__ void join_values(const Functor&, Value& a, const Value& b) "
         "{\n  a = "
      << join_expression(r.op, t) << ";\n}\n";
  } else if (r.reducer != 0) {
    const kernel::ReducerInfo& reducer = kernel::ReducerRegistry::get(r.reducer);
    d << "// The launch's values fold with the reducer " << reducer.name << ".\n"
      << "using Reducer = " << reducer.device_type << ";\n"
      << "using Value = Reducer::value_type;\n"
      << "static_assert(sizeof(Value) == " << r.value_size
      << ", \"the reducer's value has another size in GPU code\");\n"
      << "__device__ __forceinline__ void init_value(const Functor&, Value& v) { "
         "Reducer(v).init(v); }\n"
      << "__device__ __forceinline__ void join_values(const Functor&, Value& a, const Value& b) "
         "{\n  Reducer(a).join(a, b);\n}\n";
    if (reducer.updates > 1) {  // several reducers: the operator takes each part
      fold.arguments.clear();
      for (uint32_t k = 0; k < reducer.updates; ++k)
        fold.arguments += (k ? ", value.part<" : "value.part<") + std::to_string(k) + ">()";
    }
  } else if (info.reduces_array()) {
    fold.array = true;
    d << "// The launch's values are arrays of value_count elements, folded with the functor's "
      << "own init and join\n// (zeros, element-wise += where it has none).\n"
      << "using Element = " << name_of(info.device.array_element) << ";\n"
      << "__device__ __forceinline__ void init_value(const Functor& f, Element* v, "
         "const unsigned long long count) {\n"
      << "  for (unsigned long long k = 0; k < count; ++k) v[k] = Element();\n"
      << (info.device.functor_init ? "  f.init(v);\n" : "  (void)f;\n") << "}\n"
      << "__device__ __forceinline__ void join_values(const Functor& f, Element* a, "
         "const Element* b,\n    const unsigned long long count) {\n"
      << (info.device.functor_join
              ? "  (void)count;\n  f.join(a, b);\n"
              : "  (void)f;\n  for (unsigned long long k = 0; k < count; ++k) a[k] += b[k];\n")
      << "}\n";
  } else {
    d << "// The launch's values fold with the functor's own init and join (value-initialised and "
         "+= where it has none).\n"
      << "using Value = Functor::lightning_update_type;\n"
      << "static_assert(sizeof(Value) == " << info.reduction->value_size
      << ", \"the reduction's value type has another size in GPU code\");\n"
      << "__device__ __forceinline__ void init_value(const Functor& f, Value& v) {\n  v = "
         "Value();\n"
      << (info.device.functor_init ? "  f.init(v);\n" : "  (void)f;\n") << "}\n"
      << "__device__ __forceinline__ void join_values(const Functor& f, Value& a, const Value& b) "
         "{\n"
      << (info.device.functor_join ? "  f.join(a, b);\n" : "  (void)f;\n  a += b;\n") << "}\n";
  }
  fold.declarations = d.str();
  return fold;
}

// The namespace after the functor's struct with the fold's declarations.
void write_fold(std::ostringstream& out, const GeneratedFold& fold) {
  out << "namespace lightning_generated {\n\n"
      << fold.declarations << "\n}  // namespace lightning_generated\n\n";
}

// The tree over a block's values in `values` (shared memory), one per thread: any block size up
// to the baked one. `join` joins value `threadIdx.x + s` into value `threadIdx.x`.
// A scope of its own: an entry may have two trees.
void write_block_tree(std::ostringstream& out, const std::string& join) {
  out << "  __syncthreads();\n"
      << "  {\n"
      << "  unsigned width = 1;\n"
      << "  while (width < blockDim.x) width *= 2;\n"
      << "  for (unsigned s = width / 2; s > 0; s /= 2) {\n"
      << "    if (threadIdx.x < s && threadIdx.x + s < blockDim.x) {\n"
      << join << "    }\n"
      << "    __syncthreads();\n"
      << "  }\n"
      << "  }\n";
}

GeneratedKernel generate_functor(const KernelInfo& info, const KernelSpecialization& spec) {
  const int rank = info.device.index_rank;
  if (rank < 1 || rank > 3)
    fail(info, "its operator() takes " + std::to_string(rank) + " indices (1 to 3 expected)");
  // A scan's general entry is its partial pass: a reduction of f(i, value, false).
  const bool scans = info.scans();
  const bool reduces = info.reduces() || scans;
  if (scans)
    check_scan(info, spec);
  else if (reduces)
    check_reduction(info, spec);
  const std::vector<Member> members = members_of(info);
  const kernel::WorkTagCode tag = work_tags_of(info);
  const std::string tag_argument = tag.value.empty() ? "" : tag.value + ", ";
  std::ostringstream out;
  write_prelude(out, info, spec);
  write_global_work_tags(out, tag);
  out << "\nnamespace lightning_generated {\n\n";
  std::string body = reflow_source(info.device.source);
  if (reduces) declare_value_type(info, spec, tag, body);
  body = tag.member_declarations + body;
  write_struct(out, info, "Functor", members, body);
  out << "\n}  // namespace lightning_generated\n\n";

  const int block = spec.block_size;
  const GeneratedFold fold = reduces ? fold_of(info, spec) : GeneratedFold{};
  if (reduces) write_fold(out, fold);
  // An array reduction hands the operator a pointer to this thread's elements.
  const std::string value_param = !reduces ? std::string()
                                  : fold.array
                                      ? std::string(", lightning_generated::Element* const value")
                                      : std::string(", lightning_generated::Value& value");
  const std::string extra = scans     ? ", " + fold.arguments + ", false"
                            : reduces ? ", " + fold.arguments
                                      : std::string();
  // An array reduction's fourth parameter is its value's size (its partials are joined on the
  // host); any other reduction's says where its last block puts the value.
  const std::string parameters =
      std::string(
          "(const lightning_generated::Functor f, const lightning::jit::LaunchBox box, "
          "void* partials") +
      (fold.array ? ",\n    const unsigned long long value_bytes)"
       : reduces  ? ",\n    const lightning::jit::ReductionTarget target)"
                  : ")");
  if (rank >= 2) {
    // The threads' loop over the box's linear indices, split into the operator's indices by
    // division: in 32-bit arithmetic where everything fits (a 64-bit division is a long
    // subroutine). Not unrolled: the grid usually covers the box, one index per thread, and
    // unrolling costs every thread a trip-count division.
    out << "namespace lightning_generated {\n\n"
        << "template <class I>\n"
        << "__device__ __forceinline__ void run_threads(const Functor& g, "
           "const lightning::jit::LaunchBox& box, const I volume, const I stride"
        << value_param << ") {\n"
        << "  const I lo0 = static_cast<I>(box.lo[0]);\n"
        << "  const I lo1 = static_cast<I>(box.lo[1]);\n"
        << "  const I n1 = static_cast<I>(box.hi[1] - box.lo[1]);\n";
    if (rank == 3)
      out << "  const I lo2 = static_cast<I>(box.lo[2]);\n"
          << "  const I n2 = static_cast<I>(box.hi[2] - box.lo[2]);\n";
    out << "#pragma unroll 1\n"
        << "  for (I t = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + "
           "static_cast<I>(threadIdx.x);\n"
        << "       t < volume; t += stride) {\n";
    if (rank == 2) {
      out << "    g(" << tag_argument << "lo0 + t / n1, lo1 + t % n1" << extra << ");\n";
    } else {
      out << "    const I r = t % (n1 * n2);\n"
          << "    g(" << tag_argument << "lo0 + t / (n1 * n2), lo1 + r / n2, lo2 + r % n2" << extra
          << ");\n";
    }
    out << "  }\n}\n\n}  // namespace lightning_generated\n\n";
  }

  // The operator runs on the parameter itself: the runtime has folded each chunk's offset
  // into its array's data pointer (docs/cuda.md), so nothing is copied or re-based here.
  out << "extern \"C\" __global__ void __launch_bounds__(" << block << ") " << kEntryName
      << parameters << " {\n";
  if (fold.array)
    // Each thread's value_count elements in the block's dynamic shared memory (the runtime
    // gives as much as the block's threads need).
    out << "  extern __shared__ __align__(16) unsigned char lightning_values[];\n"
        << "  using lightning_generated::Element;\n"
        << "  const unsigned long long count = value_bytes / sizeof(Element);\n"
        << "  Element* const values = reinterpret_cast<Element*>(lightning_values);\n"
        << "  Element* const value = values + threadIdx.x * count;\n"
        << "  lightning_generated::init_value(f, value, count);\n";
  else if (reduces)
    out << "  using lightning_generated::Value;\n"
        << "  Value value;\n"
        << "  lightning_generated::init_value(f, value);\n";
  if (rank == 1) {
    // Grid-stride in 64 bits: without a division to save, 32 bits buy nothing here, and
    // 64 bits are right for any box.
    out << "  const int64_t hi = box.hi[0];\n"
        << "  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;\n"
        << "#pragma unroll 1\n"
        << "  for (int64_t i = box.lo[0] + static_cast<int64_t>(blockIdx.x) * blockDim.x + "
           "threadIdx.x; i < hi;\n"
        << "       i += step)\n"
        << "    f(" << tag_argument << "i" << extra << ");\n";
  } else {
    // 32 bits when every index, the volume and the last loop step fit (they do for any
    // superblock of fewer than 2^31 threads in arrays of fewer than 2^31 rows). Only the
    // operator's axes are looked at: the others are 0..1 by the ABI.
    const std::string value_argument = reduces ? ", value" : "";
    out << "  const int64_t limit = 0x7fffffff;\n"
        << "  const int64_t volume = ";
    for (int a = 0; a < rank; ++a)
      out << (a ? " * " : "") << "(box.hi[" << a << "] - box.lo[" << a << "])";
    out << ";\n"
        << "  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;\n"
        << "  if (";
    for (int a = 0; a < rank; ++a) out << "box.hi[" << a << "] <= limit && ";
    out << "volume + stride <= limit)\n"
        << "    lightning_generated::run_threads<int32_t>(f, box, static_cast<int32_t>(volume), "
           "static_cast<int32_t>(stride)"
        << value_argument << ");\n"
        << "  else\n"
        << "    lightning_generated::run_threads<int64_t>(f, box, volume, stride" << value_argument
        << ");\n";
  }
  if (fold.array) {
    // The tree joins whole arrays in place; thread 0's is the block's, copied out by all.
    write_block_tree(out,
                     "      lightning_generated::join_values(f, value, values + (threadIdx.x + s) "
                     "* count, count);\n");
    out << "  Element* const partial = static_cast<Element*>(partials) + blockIdx.x * count;\n"
        << "  for (unsigned long long k = threadIdx.x; k < count; k += blockDim.x) partial[k] = "
           "values[k];\n";
  } else if (reduces) {
    // Raw bytes: a value type with a constructor cannot be a __shared__ variable.
    out << "  __shared__ __align__(alignof(Value)) unsigned char scratch_bytes[" << block
        << " * sizeof(Value)];\n"
        << "  Value* const scratch = reinterpret_cast<Value*>(scratch_bytes);\n"
        << "  scratch[threadIdx.x] = value;\n";
    write_block_tree(out,
                     "      Value a = scratch[threadIdx.x];\n"
                     "      lightning_generated::join_values(f, a, scratch[threadIdx.x + s]);\n"
                     "      scratch[threadIdx.x] = a;\n");
    out << "  if (threadIdx.x == 0) static_cast<Value*>(partials)[blockIdx.x] = scratch[0];\n";
    // The last block joins the partials (each thread those b = threadIdx.x + k * blockDim.x in
    // order, then the tree): the same value every run, and none of it through the host.
    out << "  if (!lightning::jit::last_block_to_finish(target.blocks_done)) return;\n"
        << "  Value all;\n"
        << "  lightning_generated::init_value(f, all);\n"
        << "  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {\n"
        << "    const Value p = lightning::jit::load_from_l2(static_cast<const Value*>(partials) + "
           "b);\n"
        << "    lightning_generated::join_values(f, all, p);\n"
        << "  }\n"
        << "  scratch[threadIdx.x] = all;\n";
    write_block_tree(out,
                     "      Value a = scratch[threadIdx.x];\n"
                     "      lightning_generated::join_values(f, a, scratch[threadIdx.x + s]);\n"
                     "      scratch[threadIdx.x] = a;\n");
    out << "  if (threadIdx.x == 0) {\n"
        << "    *static_cast<Value*>(target.result) = scratch[0];\n"
        << "    *target.blocks_done = 0;  // for the next launch on this stream\n"
        << "  }\n";
  }
  out << "}\n";
  if (scans) write_scan_final_entry(out, spec, tag_argument);
  if (rank > 1 || reduces) return {out.str(), kEntryName, "", file_name_of(info.name)};
  // Rank 1 without reduction: also the shape of a hand-written kernel, one index per thread
  // and no loop, for grids that cover the box (the runtime's, up to 2^32 threads). The loop
  // costs each thread its step and exit test: 1-2% at full bandwidth (docs/results.md).
  out << "\n// One index per thread: the grid must cover the box (gridDim.x * blockDim.x >= "
         "hi - lo).\n"
      << "extern \"C\" __global__ void __launch_bounds__(" << block << ") " << kCoverEntryName
      << parameters << " {\n"
      << "  const int64_t i = box.lo[0] + static_cast<int64_t>(blockIdx.x) * blockDim.x + "
         "threadIdx.x;\n"
      << "  if (i < box.hi[0]) f(" << tag_argument << "i);\n"
      << "}\n";
  return {out.str(), kEntryName, kCoverEntryName, file_name_of(info.name)};
}

// A team kernel: one CUDA block per team, of vector_length x team_size threads (threadIdx.x
// the vector lane, threadIdx.y the team rank, as in Kokkos' CUDA back-end); blocks step over
// the superblock's teams when the grid has fewer. Level-0 scratch is the block's dynamic
// shared memory, level 1 its slice of resources.level1.
GeneratedKernel generate_team(const KernelInfo& info, const KernelSpecialization& spec) {
  const bool reduces = info.reduces();
  if (reduces) check_reduction(info, spec);
  std::vector<Member> members = members_of(info);
  append_launch_shape(info,
                      {"lightning_team", "lightning::jit::TeamLaunch", 0, sizeof(jit::TeamLaunch),
                       alignof(jit::TeamLaunch)},
                      members);
  const kernel::WorkTagCode tag = work_tags_of(info);
  const bool tagged = !tag.value.empty();
  std::ostringstream out;
  write_prelude(out, info, spec);
  write_global_work_tags(out, tag);
  out << "\nnamespace lightning_generated {\n\n";
  // The member type as the operator spells it, where GPU code would not know the name.
  const std::string declaration =
      kernel::team_member_declaration(info.device.source, info.device.work_tag);
  std::string body = reflow_source(info.device.source);
  if (!declaration.empty()) body = "  " + declaration + "\n" + body;
  if (reduces) declare_value_type(info, spec, tag, body);
  body = tag.member_declarations + body;
  write_struct(out, info, "Functor", members, body);
  out << "\n}  // namespace lightning_generated\n\n";
  const GeneratedFold fold = reduces ? fold_of(info, spec) : GeneratedFold{};
  if (reduces) write_fold(out, fold);
  out << "extern \"C\" __global__ void __launch_bounds__(" << spec.block_size << ") " << kEntryName
      << "(const lightning_generated::Functor f, const lightning::jit::LaunchBox box, "
         "void* partials,\n    const lightning::jit::TeamResources resources) {\n"
      << "  const lightning::jit::TeamLaunch& shape = f.lightning_team;\n"
      << "  const long long end = box.hi[0] / shape.team_size;\n"
      << "  const bool scratch = shape.team_scratch[0] + shape.team_scratch[1] +\n"
      << "                       shape.thread_scratch[0] + shape.thread_scratch[1] != 0;\n";
  if (reduces)
    out << "  using lightning_generated::Value;\n"
        << "  Value value;\n"
        << "  lightning_generated::init_value(f, value);\n";
  out << "  for (long long team = box.lo[0] / shape.team_size + blockIdx.x; team < end;\n"
      << "       team += gridDim.x) {\n"
      << "    const lightning::TeamMember member(shape, team, resources);\n"
      << "    f(" << (tagged ? tag.value + ", " : "") << "member"
      << (reduces ? ", " + fold.arguments : "") << ");\n"
      << "    if (scratch) __syncthreads();  // the team is done with its scratch\n"
      << "  }\n";
  if (reduces) {
    // One value per team rank (its first lane's), joined over the block; the last block to
    // finish joins the blocks' partials in block order (the same result every run), reading
    // them from L2, where the other blocks' writes are.
    out << "  const auto join = [&f](Value& a, const Value& b) {\n"
        << "    lightning_generated::join_values(f, a, b);\n"
        << "  };\n"
        << "  value = lightning::jit::team_join(value, join, blockDim.x);\n"
        << "  if (threadIdx.x == 0 && threadIdx.y == 0) static_cast<Value*>(partials)[blockIdx.x] "
           "= "
           "value;\n"
        << "  if (!lightning::jit::last_block_to_finish(resources.blocks_done)) return;\n"
        << "  Value all;\n"
        << "  lightning_generated::init_value(f, all);\n"
        << "  for (unsigned b = lightning::jit::thread_in_team(); b < gridDim.x;\n"
        << "       b += lightning::jit::team_threads())\n"
        << "    join(all, lightning::jit::load_from_l2(static_cast<const Value*>(partials) + b));\n"
        << "  all = lightning::jit::team_join(all, join, 1);\n"
        << "  if (threadIdx.x == 0 && threadIdx.y == 0) *static_cast<Value*>(resources.result) = "
           "all;\n";
  }
  out << "}\n";
  return {out.str(), kEntryName, "", file_name_of(info.name)};
}

GeneratedKernel generate_ported(const KernelInfo& info, const KernelSpecialization& spec) {
  if (info.reduces())
    fail(info, "ported CUDA kernels cannot reduce (write partial results to an array)");
  if (info.device.function.empty()) fail(info, "it names no __device__ function to call");
  const kernel::PortedSource source =
      kernel::read_ported_source(info.device.source, info.device.function);
  std::vector<Member> members = members_of(info);
  append_launch_shape(info,
                      {"lightning_launch", "lightning::jit::PortedLaunch", 0,
                       sizeof(jit::PortedLaunch), alignof(jit::PortedLaunch)},
                      members);
  std::ostringstream out;
  write_prelude(out, info, spec);
  out << "#include \"lightning_kokkos/device/ported_launch.hpp\"\n";
  if (source.uses_grid_dim)
    out << "\n// gridDim is the whole launch's grid (this module runs one superblock of it).\n"
        << "__shared__ uint3 lightning_grid_dim;\n#define gridDim lightning_grid_dim\n";
  // The function's own blockIdx is its parameter; helpers that read blockIdx see the same
  // index in the whole grid. (The parameter becomes `dim3 lightning_block_idx`, shadowing it.)
  if (source.uses_block_index_elsewhere)
    out << "\n// blockIdx is the block's index in the whole grid, in helpers too.\n"
        << "__shared__ uint3 lightning_block_idx;\n#define blockIdx lightning_block_idx\n";
  // __launch_bounds__ are blanked in the function (CUDA allows them on __global__ only) and
  // given to the entry point below.
  out << "\n" << source.text << "\n";
  if (source.uses_grid_dim) out << "#undef gridDim\n";
  if (source.uses_block_index_elsewhere) out << "#undef blockIdx\n";
  out << "\nnamespace lightning_generated {\n\n";
  write_struct(out, info, "Params", members, "");
  out << "\n}  // namespace lightning_generated\n\n";
  // One CUDA block per block of the superblock, launched with the kernel's block shape; the
  // user's function takes the block's index in the whole grid, then the parameters in
  // signature order. The superblock's first block comes from the host
  // (kernel::superblock_first_block): dividing box.lo by blockDim here cost every thread
  // three 64-bit divisions, 17% of a small memory-bound kernel's time.
  out << "extern \"C\" __global__ void ";
  if (!source.launch_bounds.empty()) out << "__launch_bounds__(" << source.launch_bounds << ") ";
  out << kEntryName
      << "(const lightning_generated::Params f, const lightning::jit::LaunchBox box, "
         "void* partials, const uint3 first_block) {\n";
  out << "  const dim3 block_in_grid(first_block.x + blockIdx.x, first_block.y + blockIdx.y,\n"
         "                           first_block.z + blockIdx.z);\n";
  if (source.uses_grid_dim || source.uses_block_index_elsewhere) {
    out << "  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {\n";
    if (source.uses_grid_dim)
      out << "    lightning_grid_dim = make_uint3(f.lightning_launch.grid[0], "
             "f.lightning_launch.grid[1], f.lightning_launch.grid[2]);\n";
    if (source.uses_block_index_elsewhere) out << "    lightning_block_idx = block_in_grid;\n";
    out << "  }\n  __syncthreads();\n";
  }
  out << "  " << info.device.function << "(block_in_grid";
  for (const auto& p : info.description.signature.params) out << ", f." << p.name;
  out << ");\n}\n";
  return {out.str(), kEntryName, "", file_name_of(info.name)};
}

}  // namespace

std::string KernelSpecialization::key(bool has_value) const {
  std::string k = "b" + std::to_string(block_size);
  if (has_value) k += "/" + reduction.key();
  if (checked) k += "/checked";
  return k;
}

std::string reflow_source(const std::string& text) {
  std::string out;
  int depth = 0;   // braces open at parenthesis depth 0
  int parens = 0;  // parentheses open (for headers and calls: no breaks inside)
  bool line_start = true;
  char quote = 0;  // inside a string or character literal: its delimiter
  auto newline = [&] {
    while (!out.empty() && out.back() == ' ') out.pop_back();
    if (!out.empty() && out.back() != '\n') out += '\n';
    line_start = true;
  };
  auto indent = [&](int level) { out += std::string(2 * static_cast<size_t>(level), ' '); };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];
      else if (c == quote)
        quote = 0;
      continue;
    }
    const bool closes = c == '}' && parens == 0;
    if (line_start) {
      if (c == ' ' || c == '\t' || c == '\n') continue;
      indent(closes ? depth : depth + 1);  // one level inside the generated struct
      line_start = false;
    } else if (closes) {
      newline();
      indent(depth);
      line_start = false;
    }
    if (c == '"' || c == '\'') quote = c;
    if (c == '(') ++parens;
    if (c == ')' && parens > 0) --parens;
    if (closes && depth > 0) --depth;
    out += c;
    if (parens == 0 && (c == '{' || c == ';' || c == '}')) {
      if (c == '{') ++depth;
      newline();
    }
  }
  newline();
  return out;
}

GeneratedKernel generate_kernel(const kernel::KernelInfo& info, const KernelSpecialization& spec) {
  if (spec.block_size < 1 || spec.block_size > 1024)
    fail(info, "block size " + std::to_string(spec.block_size) + " (1 to 1024 threads)");
  switch (info.device.kind) {
    case DeviceCodeKind::kFunctorBody:
      return generate_functor(info, spec);
    case DeviceCodeKind::kTeamFunctorBody:
      return generate_team(info, spec);
    case DeviceCodeKind::kPorted:
      return generate_ported(info, spec);
    case DeviceCodeKind::kNone:
      break;
  }
  fail(info,
       "it has no GPU source: lambdas wrapped in lightning::annotate and kernels registered "
       "without source run on host devices only (write the lambda with LIGHTNING_LAMBDA, which "
       "keeps its text for GPUs)");
}

}  // namespace lightning::cuda
