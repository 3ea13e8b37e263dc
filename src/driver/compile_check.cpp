#include "driver/compile_check.hpp"

#include "lightning_kokkos/build_config.hpp"

#if LIGHTNING_HAVE_CUDA
#include "backend/cuda/compile_check.hpp"
#endif

namespace lightning::driver {

int run_compile_check(const std::string& architecture, std::FILE* out, std::FILE* err) {
#if LIGHTNING_HAVE_CUDA
  const auto arch = cuda::Architecture::parse(architecture);
  if (!arch) {
    std::fprintf(err,
                 "lightning: compile check: '%s' is not a GPU architecture (sm_90, 90 or 9.0)\n",
                 architecture.c_str());
    return 2;
  }
  int failed = 0;
  const auto results = cuda::compile_registered_kernels(*arch);
  for (const cuda::KernelCompileResult& r : results) {
    if (r.skipped) {
      std::fprintf(out,
                   "skipped  %s: its value folds with the Kokkos reducer its launch names, so "
                   "it is compiled at the launch\n",
                   r.kernel.c_str());
    } else if (r.compiled) {
      std::fprintf(out, "compiled %s for %s (%zu bytes of cubin)\n", r.kernel.c_str(),
                   arch->to_string().c_str(), r.cubin_bytes);
    } else {
      ++failed;
      std::fprintf(out, "FAILED   %s for %s\n", r.kernel.c_str(), arch->to_string().c_str());
      std::fprintf(err, "%s\n", r.error.c_str());
    }
  }
  std::fprintf(out, "lightning: compile check for %s: %zu kernels, %d failed\n",
               arch->to_string().c_str(), results.size(), failed);
  return failed ? 1 : 0;
#else
  (void)out;
  std::fprintf(err,
               "lightning: compile check for '%s': this build of lightning_kokkos has no NVRTC "
               "(built without the CUDA toolkit)\n",
               architecture.c_str());
  return 2;
#endif
}

}  // namespace lightning::driver
