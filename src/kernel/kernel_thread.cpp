#include "kernel/kernel_thread.hpp"

namespace lightning::kernel {

namespace {
thread_local bool t_in_kernel_body = false;
}  // namespace

bool in_kernel_body() noexcept {
  return t_in_kernel_body;
}

KernelThreadScope::KernelThreadScope() noexcept : outer_(t_in_kernel_body) {
  t_in_kernel_body = true;
}

KernelThreadScope::~KernelThreadScope() {
  t_in_kernel_body = outer_;
}

}  // namespace lightning::kernel
