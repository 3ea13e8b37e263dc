// `--lightning-compile-check=sm_90`: the application's kernels compiled for a GPU architecture
// without a GPU, reported, and the process's exit status (docs/cuda.md, "Compile check").
#pragma once

#include <cstdio>
#include <string>

namespace lightning::driver {

/// Compiles every registered kernel for `architecture` ("sm_90", "90" or "9.0"), as a GPU
/// launch would (a kernel without GPU code fails), prints one line per kernel to `out` and each
/// failure's NVRTC error (kernel name, log, source lines) to `err`, and returns the exit status: 0
/// when all compiled, 1 when one did not, 2 for a bad architecture or a build without NVRTC.
int run_compile_check(const std::string& architecture, std::FILE* out, std::FILE* err);

}  // namespace lightning::driver
