#include "backend/cuda/compile_check.hpp"

#include <cctype>

#include "backend/cuda/kernel_codegen.hpp"
#include "backend/cuda/nvrtc_compiler.hpp"
#include "core/error.hpp"
#include "kernel/kernel_registry.hpp"

namespace lightning::cuda {

std::optional<Architecture> Architecture::parse(const std::string& text) {
  std::string t = text.rfind("sm_", 0) == 0 ? text.substr(3) : text;
  Architecture a;
  const size_t dot = t.find('.');
  auto digits = [](const std::string& s) {
    if (s.empty() || s.size() > 2) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (dot != std::string::npos) {
    const std::string major = t.substr(0, dot), minor = t.substr(dot + 1);
    if (!digits(major) || minor.size() != 1 || !digits(minor)) return std::nullopt;
    a.major = std::stoi(major);
    a.minor = std::stoi(minor);
  } else {
    if (!digits(t) || t.size() != 2) return std::nullopt;
    a.major = t[0] - '0';
    a.minor = t[1] - '0';
  }
  if (a.major < 3) return std::nullopt;
  return a;
}

std::string Architecture::to_string() const {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::vector<KernelCompileResult> compile_registered_kernels(const Architecture& arch) {
  const std::vector<std::string> options = nvrtc_options(arch.major, arch.minor);
  std::vector<KernelCompileResult> results;
  for (KernelId id : kernel::KernelRegistry::ids()) {
    const kernel::KernelInfo& info = kernel::KernelRegistry::get(id);
    KernelCompileResult r;
    r.kernel = info.name;
    if (info.reduction && info.reduction->awaits_launch_reducer()) {
      r.skipped = true;
      results.push_back(std::move(r));
      continue;
    }
    try {
      KernelSpecialization spec;
      if (info.reduction) spec.reduction = *info.reduction;
      const GeneratedKernel g = generate_kernel(info, spec);
      r.cubin_bytes = compile_to_cubin({info.name, g.file_name, g.source}, options).cubin.size();
      r.compiled = true;
    } catch (const Error& e) {
      r.error = e.what();
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace lightning::cuda
