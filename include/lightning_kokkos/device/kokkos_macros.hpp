// What a Kokkos functor body needs to compile under NVRTC, where Kokkos is absent: the
// function-marking macros. Generated GPU code includes it for LIGHTNING_KERNEL functors.
#pragma once

#if defined(__CUDACC_RTC__)
#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION __host__ __device__ inline
#define KOKKOS_FORCEINLINE_FUNCTION __host__ __device__ __forceinline__
#define KOKKOS_FUNCTION __host__ __device__
#define KOKKOS_DEFAULTED_FUNCTION
#define KOKKOS_LAMBDA [=] __host__ __device__
#endif
#endif
