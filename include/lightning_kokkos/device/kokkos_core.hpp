// The part of Kokkos a kernel's operator() uses inside GPU code, where Kokkos is absent
// (NVRTC): the function macros, layouts and memory traits, unmanaged Views (over scratch
// memory or a pointer), the reducers of nested reductions, atomics and math. Generated GPU
// code includes it for LIGHTNING_KERNEL functors. Only what NVRTC compiles; the host uses
// Kokkos itself.
#pragma once

#include "lightning_kokkos/device/array_subview.hpp"
#include "lightning_kokkos/device/device_array.hpp"
#include "lightning_kokkos/device/kokkos_macros.hpp"

#if defined(__CUDACC_RTC__)

namespace lightning::jit {

// What <type_traits> would give (NVRTC has no standard library).
template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  using type = T;
};
template <bool B, class T = void>
using enable_if_t = typename enable_if<B, T>::type;
template <class...>
using void_t = void;
template <class T>
struct remove_const {
  using type = T;
};
template <class T>
struct remove_const<const T> {
  using type = T;
};

template <class A, class B>
struct is_same {
  static constexpr bool value = false;
};
template <class A>
struct is_same<A, A> {
  static constexpr bool value = true;
};

/// The unsigned word of N bytes (compare-and-swap operands).
template <int N>
struct Word;
template <>
struct Word<4> {
  using type = unsigned;
};
template <>
struct Word<8> {
  using type = unsigned long long;
};

/// memcpy, which NVRTC does not declare (a loop the compiler turns into moves).
__host__ __device__ inline void copy_bytes(void* dst, const void* src, unsigned long n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (unsigned long i = 0; i < n; ++i) d[i] = s[i];
}

/// Whether T is a Kokkos reducer (it names itself `reducer`).
template <class T, class = void>
struct is_reducer {
  static constexpr bool value = false;
};
template <class T>
struct is_reducer<T, void_t<typename T::reducer>> {
  static constexpr bool value = true;
};

/// The largest and lowest values of arithmetic types (<limits> is absent).
template <class T>
struct Limits;
#define LIGHTNING_LIMITS(T, lowest_value, max_value)                         \
  template <>                                                                \
  struct Limits<T> {                                                         \
    __host__ __device__ static constexpr T lowest() { return lowest_value; } \
    __host__ __device__ static constexpr T max() { return max_value; }       \
  };
LIGHTNING_LIMITS(bool, false, true)
LIGHTNING_LIMITS(char, -128, 127)
LIGHTNING_LIMITS(signed char, -128, 127)
LIGHTNING_LIMITS(unsigned char, 0, 255)
LIGHTNING_LIMITS(short, -32768, 32767)
LIGHTNING_LIMITS(unsigned short, 0, 65535)
LIGHTNING_LIMITS(int, -2147483647 - 1, 2147483647)
LIGHTNING_LIMITS(unsigned, 0u, 4294967295u)
LIGHTNING_LIMITS(long, -9223372036854775807l - 1, 9223372036854775807l)
LIGHTNING_LIMITS(unsigned long, 0ul, 18446744073709551615ul)
LIGHTNING_LIMITS(long long, -9223372036854775807ll - 1, 9223372036854775807ll)
LIGHTNING_LIMITS(unsigned long long, 0ull, 18446744073709551615ull)
LIGHTNING_LIMITS(float, -3.402823466e+38f, 3.402823466e+38f)
LIGHTNING_LIMITS(double, -1.7976931348623157e+308, 1.7976931348623157e+308)
#undef LIGHTNING_LIMITS

/// A View's data type: its value type and rank (T*, T**, T***).
template <class D>
struct ViewData;
template <class T>
struct ViewData<T*> {
  using value_type = T;
  static constexpr unsigned rank = 1;
};
template <class T>
struct ViewData<T**> {
  using value_type = T;
  static constexpr unsigned rank = 2;
};
template <class T>
struct ViewData<T***> {
  using value_type = T;
  static constexpr unsigned rank = 3;
};

}  // namespace lightning::jit

namespace Kokkos {

struct LayoutRight {};
struct LayoutLeft {};

/// Iteration directions and MD-range ranks, as the nested MD ranges (Kokkos 4) name them.
enum class Iterate { Default, Left, Right };
template <unsigned N, Iterate OuterDir = Iterate::Default, Iterate InnerDir = Iterate::Default>
struct Rank {
  static constexpr unsigned rank = N;
  static constexpr Iterate outer_direction = OuterDir;
  static constexpr Iterate inner_direction = InnerDir;
};

enum MemoryTraitsFlags { Unmanaged = 0x01, RandomAccess = 0x02, Atomic = 0x04, Restrict = 0x08 };
template <unsigned Flags>
struct MemoryTraits {};
using MemoryUnmanaged = MemoryTraits<Unmanaged>;

template <class ExecutionSpace>
class ScratchMemorySpace;

namespace Impl {
// The layout among a View's properties: the first LayoutLeft or LayoutRight, else LayoutRight
// (lightning::Distributed's, and that of its scratch memory).
template <class... P>
struct LayoutOf {
  using type = LayoutRight;
};
template <class... P>
struct LayoutOf<LayoutLeft, P...> {
  using type = LayoutLeft;
};
template <class... P>
struct LayoutOf<LayoutRight, P...> {
  using type = LayoutRight;
};
template <class First, class... P>
struct LayoutOf<First, P...> : LayoutOf<P...> {};
}  // namespace Impl

/// An unmanaged View in GPU code: over team scratch memory (`View(team.team_scratch(0), n)`,
/// allocated as Kokkos does: its span, aligned to its value's size) or over a pointer.
/// Indexing follows its layout (LayoutRight unless it names LayoutLeft).
template <class DataType, class... Properties>
class View {
  using Data = lightning::jit::ViewData<DataType>;

 public:
  using value_type = typename Data::value_type;
  using non_const_value_type = typename lightning::jit::remove_const<value_type>::type;
  using const_value_type = const non_const_value_type;
  using pointer_type = value_type*;
  using reference_type = value_type&;
  using array_layout = typename Impl::LayoutOf<Properties...>::type;
  using size_type = unsigned long;
  static constexpr unsigned rank = Data::rank;
  static constexpr unsigned rank_dynamic = Data::rank;

  __host__ __device__ View() {}
  __device__ View(pointer_type data, size_type n0 = 0, size_type n1 = 0, size_type n2 = 0)
      : data_(data), n_{n0, rank > 1 ? n1 : 1, rank > 2 ? n2 : 1} {}
  template <class Space>
  __device__ View(const ScratchMemorySpace<Space>& space, size_type n0 = 0, size_type n1 = 0,
                  size_type n2 = 0)
      : View(static_cast<pointer_type>(space.get_shmem_aligned(
                 span_of(n0, n1, n2) * sizeof(value_type), sizeof(value_type))),
             n0, n1, n2) {}

  /// The bytes a View of these extents takes from scratch memory (with alignment slack).
  __host__ __device__ static constexpr size_type shmem_size(size_type n0 = 0, size_type n1 = 0,
                                                            size_type n2 = 0) {
    return span_of(n0, n1, n2) * sizeof(value_type) + sizeof(value_type);
  }

  __device__ reference_type operator()(long i) const { return data_[i]; }
  __device__ reference_type operator[](long i) const { return data_[i]; }
  __device__ reference_type operator()(long i, long j) const {
    return data_[layout_right() ? i * long(n_[1]) + j : i + j * long(n_[0])];
  }
  __device__ reference_type operator()(long i, long j, long k) const {
    return data_[layout_right() ? (i * long(n_[1]) + j) * long(n_[2]) + k
                                : i + long(n_[0]) * (j + long(n_[1]) * k)];
  }

  __host__ __device__ size_type extent(unsigned r) const { return r < rank ? n_[r] : 1; }
  __host__ __device__ int extent_int(unsigned r) const { return static_cast<int>(extent(r)); }
  __host__ __device__ size_type size() const { return n_[0] * n_[1] * n_[2]; }
  __host__ __device__ size_type span() const { return size(); }
  __host__ __device__ pointer_type data() const { return data_; }
  __host__ __device__ size_type stride(unsigned r) const {
    if (layout_right()) return r >= rank - 1 ? 1 : r == 0 ? n_[1] * n_[2] : n_[2];
    return r == 0 ? 1 : r == 1 ? n_[0] : n_[0] * n_[1];
  }
  __host__ __device__ size_type stride_0() const { return stride(0); }
  __host__ __device__ size_type stride_1() const { return stride(1); }
  __host__ __device__ size_type stride_2() const { return stride(2); }

 private:
  __host__ __device__ static constexpr bool layout_right() {
    return !lightning::jit::is_same<array_layout, LayoutLeft>::value;
  }
  __host__ __device__ static constexpr size_type span_of(size_type n0, size_type n1, size_type n2) {
    return n0 * (rank > 1 ? n1 : 1) * (rank > 2 ? n2 : 1);
  }

  pointer_type data_ = nullptr;
  size_type n_[3] = {0, 1, 1};
};

/// The identities of the built-in reductions.
template <class T>
struct reduction_identity {
  __host__ __device__ static constexpr T sum() { return T(0); }
  __host__ __device__ static constexpr T prod() { return T(1); }
  __host__ __device__ static constexpr T min() { return lightning::jit::Limits<T>::max(); }
  __host__ __device__ static constexpr T max() { return lightning::jit::Limits<T>::lowest(); }
  __host__ __device__ static constexpr T land() { return T(1); }
  __host__ __device__ static constexpr T lor() { return T(0); }
  __host__ __device__ static constexpr T band() { return ~T(0); }
  __host__ __device__ static constexpr T bor() { return T(0); }
};

// The reducers of nested reductions: each holds a reference to where its result goes.
#define LIGHTNING_REDUCER(Name, identity, join_body)                                            \
  template <class T, class Space = void>                                                        \
  struct Name {                                                                                 \
    using reducer = Name;                                                                       \
    using value_type = typename lightning::jit::remove_const<T>::type;                          \
    value_type& value;                                                                          \
    __host__ __device__ Name(value_type& v) : value(v) {}                                       \
    __host__ __device__ void join(value_type& dest, const value_type& src) const { join_body; } \
    __host__ __device__ void init(value_type& v) const {                                        \
      v = reduction_identity<value_type>::identity();                                           \
    }                                                                                           \
    __host__ __device__ value_type& reference() const { return value; }                         \
  };
LIGHTNING_REDUCER(Sum, sum, dest += src)
LIGHTNING_REDUCER(Prod, prod, dest *= src)
LIGHTNING_REDUCER(Min, min, if (src < dest) dest = src)
LIGHTNING_REDUCER(Max, max, if (src > dest) dest = src)
LIGHTNING_REDUCER(LAnd, land, dest = dest && src)
LIGHTNING_REDUCER(LOr, lor, dest = dest || src)
LIGHTNING_REDUCER(BAnd, band, dest = dest & src)
LIGHTNING_REDUCER(BOr, bor, dest = dest | src)
#undef LIGHTNING_REDUCER

/// A value and where it was found (MinLoc, MaxLoc).
template <class Scalar, class Index>
struct ValLocScalar {
  Scalar val;
  Index loc;
};

// MinLoc and MaxLoc as Kokkos 4 has them: of equal values, one with a location wins over the
// identity's.
#define LIGHTNING_LOC_REDUCER(Name, identity, better)                                            \
  template <class T, class I, class Space = void>                                                \
  struct Name {                                                                                  \
    using reducer = Name;                                                                        \
    using value_type = ValLocScalar<typename lightning::jit::remove_const<T>::type,              \
                                    typename lightning::jit::remove_const<I>::type>;             \
    value_type& value;                                                                           \
    __host__ __device__ Name(value_type& v) : value(v) {}                                        \
    __host__ __device__ void join(value_type& dest, const value_type& src) const {               \
      if (src.val better dest.val)                                                               \
        dest = src;                                                                              \
      else if (src.val == dest.val && dest.loc == reduction_identity<decltype(dest.loc)>::min()) \
        dest.loc = src.loc;                                                                      \
    }                                                                                            \
    __host__ __device__ void init(value_type& v) const {                                         \
      v.val = reduction_identity<decltype(v.val)>::identity();                                   \
      v.loc = reduction_identity<decltype(v.loc)>::min();                                        \
    }                                                                                            \
    __host__ __device__ value_type& reference() const { return value; }                          \
  };
LIGHTNING_LOC_REDUCER(MinLoc, min, <)
LIGHTNING_LOC_REDUCER(MaxLoc, max, >)
#undef LIGHTNING_LOC_REDUCER

// MinFirstLoc and MaxFirstLoc (Kokkos 4): of equal values, the smallest location.
#define LIGHTNING_FIRST_LOC_REDUCER(Name, identity, better)                          \
  template <class T, class I, class Space = void>                                    \
  struct Name {                                                                      \
    using reducer = Name;                                                            \
    using value_type = ValLocScalar<typename lightning::jit::remove_const<T>::type,  \
                                    typename lightning::jit::remove_const<I>::type>; \
    value_type& value;                                                               \
    __host__ __device__ Name(value_type& v) : value(v) {}                            \
    __host__ __device__ void join(value_type& dest, const value_type& src) const {   \
      if (src.val better dest.val)                                                   \
        dest = src;                                                                  \
      else if (!(dest.val better src.val))                                           \
        dest.loc = src.loc < dest.loc ? src.loc : dest.loc;                          \
    }                                                                                \
    __host__ __device__ void init(value_type& v) const {                             \
      v.val = reduction_identity<decltype(v.val)>::identity();                       \
      v.loc = reduction_identity<decltype(v.loc)>::min();                            \
    }                                                                                \
    __host__ __device__ value_type& reference() const { return value; }              \
  };
LIGHTNING_FIRST_LOC_REDUCER(MinFirstLoc, min, <)
LIGHTNING_FIRST_LOC_REDUCER(MaxFirstLoc, max, >)
#undef LIGHTNING_FIRST_LOC_REDUCER

/// The smallest and largest value (MinMax), and where they were found (MinMaxLoc).
template <class Scalar>
struct MinMaxScalar {
  Scalar min_val, max_val;
};
template <class Scalar, class Index>
struct MinMaxLocScalar {
  Scalar min_val, max_val;
  Index min_loc, max_loc;
};
template <class T, class Space = void>
struct MinMax {
  using reducer = MinMax;
  using value_type = MinMaxScalar<typename lightning::jit::remove_const<T>::type>;
  value_type& value;
  __host__ __device__ MinMax(value_type& v) : value(v) {}
  __host__ __device__ void join(value_type& dest, const value_type& src) const {
    if (src.min_val < dest.min_val) dest.min_val = src.min_val;
    if (src.max_val > dest.max_val) dest.max_val = src.max_val;
  }
  __host__ __device__ void init(value_type& v) const {
    v.min_val = reduction_identity<decltype(v.min_val)>::min();
    v.max_val = reduction_identity<decltype(v.max_val)>::max();
  }
  __host__ __device__ value_type& reference() const { return value; }
};
template <class T, class I, class Space = void>
struct MinMaxLoc {
  using reducer = MinMaxLoc;
  using value_type = MinMaxLocScalar<typename lightning::jit::remove_const<T>::type,
                                     typename lightning::jit::remove_const<I>::type>;
  value_type& value;
  __host__ __device__ MinMaxLoc(value_type& v) : value(v) {}
  __host__ __device__ void join(value_type& dest, const value_type& src) const {
    const auto none = reduction_identity<decltype(dest.min_loc)>::min();
    if (src.min_val < dest.min_val) {
      dest.min_val = src.min_val;
      dest.min_loc = src.min_loc;
    } else if (dest.min_val == src.min_val && dest.min_loc == none) {
      dest.min_loc = src.min_loc;
    }
    if (src.max_val > dest.max_val) {
      dest.max_val = src.max_val;
      dest.max_loc = src.max_loc;
    } else if (dest.max_val == src.max_val && dest.max_loc == none) {
      dest.max_loc = src.max_loc;
    }
  }
  __host__ __device__ void init(value_type& v) const {
    v.min_val = reduction_identity<decltype(v.min_val)>::min();
    v.max_val = reduction_identity<decltype(v.max_val)>::max();
    v.min_loc = reduction_identity<decltype(v.min_loc)>::min();
    v.max_loc = reduction_identity<decltype(v.max_loc)>::min();
  }
  __host__ __device__ value_type& reference() const { return value; }
};

}  // namespace Kokkos

namespace lightning::jit {

// Several reducers of one parallel_reduce as one reducer (what the host registers as
// "combined(...)"): its value holds one value per reducer, laid out as Kokkos' own combined
// value (one base class of one member per part, in order), and each part folds with its
// reducer.
template <unsigned... I>
struct index_sequence {};
template <unsigned N, unsigned... I>
struct make_index_sequence : make_index_sequence<N - 1, N - 1, I...> {};
template <unsigned... I>
struct make_index_sequence<0, I...> {
  using type = index_sequence<I...>;
};

/// Part I of a combined value.
template <unsigned I, class V>
struct CombinedPart {
  V value;
};
template <unsigned K, class V>
__host__ __device__ V& part_of(CombinedPart<K, V>& p) {
  return p.value;
}
template <unsigned K, class V>
__host__ __device__ const V& part_of(const CombinedPart<K, V>& p) {
  return p.value;
}
template <class Sequence, class... V>
struct CombinedValue;
template <unsigned... I, class... V>
struct CombinedValue<index_sequence<I...>, V...> : CombinedPart<I, V>... {
  /// The value of reducer K: what the operator's K-th update parameter receives.
  template <unsigned K>
  __host__ __device__ auto& part() {
    return part_of<K>(*this);
  }
  template <unsigned K>
  __host__ __device__ const auto& part() const {
    return part_of<K>(*this);
  }
};

template <class Sequence, class... R>
struct CombinedReducerOf;
template <unsigned... I, class... R>
struct CombinedReducerOf<index_sequence<I...>, R...> {
  using reducer = CombinedReducerOf;
  using value_type = CombinedValue<index_sequence<I...>, typename R::value_type...>;
  value_type& value;
  __host__ __device__ CombinedReducerOf(value_type& v) : value(v) {}
  __host__ __device__ void init(value_type& v) const {
    (R(v.template part<I>()).init(v.template part<I>()), ...);
  }
  __host__ __device__ void join(value_type& dest, const value_type& src) const {
    (R(dest.template part<I>()).join(dest.template part<I>(), src.template part<I>()), ...);
  }
  __host__ __device__ value_type& reference() const { return value; }
};
/// The reducers R... of one parallel_reduce folding together.
template <class... R>
using CombinedReducer = CombinedReducerOf<typename make_index_sequence<sizeof...(R)>::type, R...>;

}  // namespace lightning::jit

namespace Kokkos {

// Atomics (the CUDA intrinsics behind Kokkos' names).
template <class T>
__device__ T atomic_fetch_add(T* p, const T v) {
  if constexpr (sizeof(T) == 8 && T(0.5) == T(0))  // 64-bit integers: two's complement
    return static_cast<T>(
        atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v)));
  else
    return atomicAdd(p, v);
}
template <class T>
__device__ void atomic_add(T* p, const T v) {
  atomic_fetch_add(p, v);
}
template <class T>
__device__ T atomic_fetch_sub(T* p, const T v) {
  return atomic_fetch_add(p, T(-v));
}
template <class T>
__device__ void atomic_sub(T* p, const T v) {
  atomic_fetch_add(p, T(-v));
}
template <class T>
__device__ void atomic_increment(T* p) {
  atomic_fetch_add(p, T(1));
}
/// Any value of 4 or 8 bytes, through compare-and-swap: `*p = op(*p)`, returning the old value.
template <class T, class Op>
__device__ T atomic_fetch_op(T* p, const Op& op) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on values of 4 or 8 bytes");
  using Word = typename lightning::jit::Word<sizeof(T)>::type;
  Word* w = reinterpret_cast<Word*>(p);
  Word seen = *w, assumed;
  T old;
  do {
    assumed = seen;
    lightning::jit::copy_bytes(&old, &assumed, sizeof(T));
    const T next = op(old);
    Word n;
    lightning::jit::copy_bytes(&n, &next, sizeof(T));
    seen = atomicCAS(w, assumed, n);
  } while (seen != assumed);
  return old;
}
template <class T>
__device__ T atomic_fetch_max(T* p, const T v) {
  return atomic_fetch_op(p, [v](const T& old) { return v > old ? v : old; });
}
template <class T>
__device__ T atomic_fetch_min(T* p, const T v) {
  return atomic_fetch_op(p, [v](const T& old) { return v < old ? v : old; });
}
template <class T>
__device__ void atomic_max(T* p, const T v) {
  atomic_fetch_max(p, v);
}
template <class T>
__device__ void atomic_min(T* p, const T v) {
  atomic_fetch_min(p, v);
}
template <class T>
__device__ T atomic_exchange(T* p, const T v) {
  return atomic_fetch_op(p, [v](const T&) { return v; });
}
template <class T>
__device__ T atomic_compare_exchange(T* p, const T expected, const T desired) {
  return atomic_fetch_op(p, [&](const T& old) { return old == expected ? desired : old; });
}

// Math.
template <class T>
__host__ __device__ constexpr const T& min(const T& a, const T& b) {
  return b < a ? b : a;
}
template <class T>
__host__ __device__ constexpr const T& max(const T& a, const T& b) {
  return a < b ? b : a;
}
template <class T>
__host__ __device__ constexpr T abs(const T& a) {
  return a < T(0) ? -a : a;
}
__device__ inline double sqrt(double x) {
  return ::sqrt(x);
}
__device__ inline float sqrt(float x) {
  return ::sqrtf(x);
}
__device__ inline double exp(double x) {
  return ::exp(x);
}
__device__ inline float exp(float x) {
  return ::expf(x);
}
__device__ inline double log(double x) {
  return ::log(x);
}
__device__ inline float log(float x) {
  return ::logf(x);
}
__device__ inline double pow(double x, double y) {
  return ::pow(x, y);
}
__device__ inline float pow(float x, float y) {
  return ::powf(x, y);
}
__device__ inline double sin(double x) {
  return ::sin(x);
}
__device__ inline float sin(float x) {
  return ::sinf(x);
}
__device__ inline double cos(double x) {
  return ::cos(x);
}
__device__ inline float cos(float x) {
  return ::cosf(x);
}
__device__ inline double fabs(double x) {
  return ::fabs(x);
}
__device__ inline float fabs(float x) {
  return ::fabsf(x);
}

// Subviews of a kernel's arrays (a lightning::View member is a DeviceArray here), as
// Kokkos::subview on the host (lightning_kokkos/subview.hpp): an integer drops its axis, a
// Kokkos::pair or Kokkos::ALL keeps a range of it.
template <class T1, class T2>
struct pair {
  T1 first;
  T2 second;
  __host__ __device__ constexpr pair() : first(), second() {}
  __host__ __device__ constexpr pair(T1 a, T2 b) : first(a), second(b) {}
};
template <class T1, class T2>
__host__ __device__ constexpr pair<T1, T2> make_pair(T1 a, T2 b) {
  return pair<T1, T2>(a, b);
}
struct ALL_t {
  __host__ __device__ constexpr const ALL_t& operator()() const { return *this; }
};
constexpr ALL_t ALL{};

}  // namespace Kokkos

namespace lightning::jit {

template <class T>
struct is_index {
  static constexpr bool value = false;
};
#define LIGHTNING_JIT_INDEX(T)          \
  template <>                           \
  struct is_index<T> {                  \
    static constexpr bool value = true; \
  };
LIGHTNING_JIT_INDEX(char)
LIGHTNING_JIT_INDEX(signed char)
LIGHTNING_JIT_INDEX(unsigned char)
LIGHTNING_JIT_INDEX(short)
LIGHTNING_JIT_INDEX(unsigned short)
LIGHTNING_JIT_INDEX(int)
LIGHTNING_JIT_INDEX(unsigned)
LIGHTNING_JIT_INDEX(long)
LIGHTNING_JIT_INDEX(unsigned long)
LIGHTNING_JIT_INDEX(long long)
LIGHTNING_JIT_INDEX(unsigned long long)
#undef LIGHTNING_JIT_INDEX

template <class T>
struct is_device_array {
  static constexpr bool value = false;
};
template <class T, int R>
struct is_device_array<DeviceArray<T, R>> {
  static constexpr bool value = true;
};
template <class T, int R>
struct is_device_array<ReversedDeviceArray<T, R>> {
  static constexpr bool value = true;
};

/// The axes subview arguments keep (bit a: argument a is a range).
template <class... Args>
__host__ __device__ constexpr unsigned kept_axes() {
  unsigned kept = 0;
  int axis = 0;
  ((kept |= (is_index<Args>::value ? 0u : 1u) << axis++), ...);
  return kept;
}
template <class I>
__device__ typename enable_if<is_index<I>::value>::type bounds_of(I i, int64_t, int64_t& lo,
                                                                  int64_t& hi) {
  lo = static_cast<int64_t>(i);
  hi = lo + 1;
}
template <class I, class J>
__device__ void bounds_of(const Kokkos::pair<I, J>& r, int64_t, int64_t& lo, int64_t& hi) {
  lo = static_cast<int64_t>(r.first);
  hi = static_cast<int64_t>(r.second);
}
__device__ inline void bounds_of(Kokkos::ALL_t, int64_t extent, int64_t& lo, int64_t& hi) {
  lo = 0;
  hi = extent;
}
template <class S, class... Args>
__device__ void subview_bounds(const S& s, int64_t* lo, int64_t* hi, Args... args) {
  int axis = 0;  // the comma fold runs left to right
  ((bounds_of(args, static_cast<int64_t>(s.extent(axis)), lo[axis], hi[axis]), ++axis), ...);
}

}  // namespace lightning::jit

namespace Kokkos {

template <class A, class... Args>
__device__ typename lightning::jit::enable_if<
    lightning::jit::is_device_array<A>::value,
    lightning::ArraySubview<A, lightning::jit::kept_axes<Args...>()>>::type
subview(const A& array, Args... args) {
  static_assert(sizeof...(Args) == A::rank, "Kokkos::subview: one argument per axis");
  int64_t lo[3] = {}, hi[3] = {};
  lightning::jit::subview_bounds(array, lo, hi, args...);
  return lightning::make_array_subview<lightning::jit::kept_axes<Args...>()>(array, lo, hi);
}
template <class A, unsigned K, class... Args>
__device__ lightning::ArraySubview<
    A, lightning::subview_axes::compose(K, lightning::jit::kept_axes<Args...>())>
subview(const lightning::ArraySubview<A, K>& s, Args... args) {
  static_assert(sizeof...(Args) == lightning::ArraySubview<A, K>::rank,
                "Kokkos::subview of a subview: one argument per axis it keeps");
  int64_t lo[3] = {}, hi[3] = {};
  lightning::jit::subview_bounds(s, lo, hi, args...);
  return lightning::compose_subviews<lightning::jit::kept_axes<Args...>()>(s, lo, hi);
}

}  // namespace Kokkos

#endif  // __CUDACC_RTC__
