#include "kernel/kernel_thread.hpp"

#include "kernel/kernel_description.hpp"

namespace lightning::kernel {

namespace {
thread_local bool t_in_kernel_body = false;
thread_local KernelBytes t_kernel;
}  // namespace

bool in_kernel_body() noexcept {
  return t_in_kernel_body;
}

KernelBytes current_kernel() noexcept {
  return t_kernel;
}

std::string array_parameter_at(const void* handle) {
  const KernelBytes k = t_kernel;
  if (!k.functor || !k.description) return {};
  const auto* base = static_cast<const unsigned char*>(k.functor);
  for (const ArraySlot& slot : k.description->arrays)
    if (base + slot.byte_offset == handle) {
      const auto& params = k.description->signature.params;
      if (slot.param >= 0 && static_cast<size_t>(slot.param) < params.size())
        return params[static_cast<size_t>(slot.param)].name;
    }
  return {};
}

KernelThreadScope::KernelThreadScope() noexcept
    : outer_(t_in_kernel_body), outer_kernel_(t_kernel) {
  t_in_kernel_body = true;
}

KernelThreadScope::KernelThreadScope(KernelBytes kernel) noexcept : KernelThreadScope() {
  t_kernel = kernel;
}

KernelThreadScope::~KernelThreadScope() {
  t_in_kernel_body = outer_;
  t_kernel = outer_kernel_;
}

}  // namespace lightning::kernel
