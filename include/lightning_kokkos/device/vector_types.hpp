// CUDA's vector types as array elements: lightning::float2 and its kin. In GPU code (NVRTC,
// nvcc) they are CUDA's own; in host code, structs of the same members, size and alignment,
// so that an array holds the same bytes on both sides. Plain C++, no library: compiled by the
// host compiler and, as text, by NVRTC.
#pragma once

#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
namespace lightning {
using ::double2;
using ::double3;
using ::float2;
using ::float3;
using ::float4;
using ::int2;
using ::int4;
using ::uint2;
using ::uint4;
}  // namespace lightning
#else
namespace lightning {
struct alignas(8) int2 {
  int x, y;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned x, y;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
struct alignas(8) float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) double2 {
  double x, y;
};
struct double3 {
  double x, y, z;
};
}  // namespace lightning
#endif

// The layout CUDA gives them (vector_types.h).
static_assert(sizeof(lightning::float2) == 8 && alignof(lightning::float2) == 8, "float2");
static_assert(sizeof(lightning::float3) == 12 && alignof(lightning::float3) == 4, "float3");
static_assert(sizeof(lightning::float4) == 16 && alignof(lightning::float4) == 16, "float4");
static_assert(sizeof(lightning::double2) == 16 && alignof(lightning::double2) == 16, "double2");
static_assert(sizeof(lightning::double3) == 24 && alignof(lightning::double3) == 8, "double3");
static_assert(sizeof(lightning::int2) == 8 && alignof(lightning::int2) == 8, "int2");
static_assert(sizeof(lightning::int4) == 16 && alignof(lightning::int4) == 16, "int4");
static_assert(sizeof(lightning::uint2) == 8 && alignof(lightning::uint2) == 8, "uint2");
static_assert(sizeof(lightning::uint4) == 16 && alignof(lightning::uint4) == 16, "uint4");
