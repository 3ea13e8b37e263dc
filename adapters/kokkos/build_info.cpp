#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <string>

#include "lightning_kokkos/version.hpp"

#if LIGHTNING_HAVE_CUDA
#include <nvrtc.h>
#endif

namespace lightning {

const char* version() {
  return LIGHTNING_VERSION_STRING;
}

std::string build_info() {
  std::string s = "lightning_kokkos " LIGHTNING_VERSION_STRING "\n";
  s += "  Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
       std::to_string(KOKKOS_VERSION / 100 % 100) + "." + std::to_string(KOKKOS_VERSION % 100) +
       "\n";
  char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi, &len);
  std::string mpi_line(mpi, static_cast<size_t>(len));
  if (auto nl = mpi_line.find_first_of("\n,"); nl != std::string::npos) mpi_line.resize(nl);
  s += "  MPI: " + mpi_line + "\n";
#if LIGHTNING_HAVE_CUDA
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  s += "  CUDA backend: on (NVRTC " + std::to_string(major) + "." + std::to_string(minor) + ")\n";
#else
  s += "  CUDA backend: off\n";
#endif
  s += std::string("  Kokkos Kernels adapters: ") + (LIGHTNING_HAVE_KOKKOS_KERNELS ? "on" : "off") +
       "\n";
  return s;
}

}  // namespace lightning
