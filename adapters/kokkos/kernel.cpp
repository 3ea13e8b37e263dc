// LIGHTNING_KERNEL's out-of-line parts: member lists, names, registration.
#include "lightning_kokkos/kernel.hpp"

#include "lightning_kokkos/kernel_lambda.hpp"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/error.hpp"
#include "lightning_kokkos/device/array_handle.hpp"

namespace lightning::detail {

std::vector<std::string> split_member_list(const char* members) {
  std::string text(members);
  const auto open = text.find('(');
  const auto close = text.rfind(')');
  if (open != std::string::npos && close != std::string::npos && close > open)
    text = text.substr(open + 1, close - open - 1);
  std::vector<std::string> names;
  std::string current;
  auto flush = [&] {
    const auto b = current.find_first_not_of(" \t\n");
    const auto e = current.find_last_not_of(" \t\n");
    names.push_back(b == std::string::npos ? std::string() : current.substr(b, e - b + 1));
    current.clear();
  };
  for (char c : text) {
    if (c == ',')
      flush();
    else
      current += c;
  }
  flush();
  return names;
}

std::string kernel_name(const std::type_info& type, const char* file) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(type.name(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : type.name();
  std::free(demangled);
  if (file && *file && name.find("(anonymous namespace)") != std::string::npos)
    name += std::string("@") + file;
  return name;
}

namespace {
void check_offset(const kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset,
                  std::size_t size) {
  if (offset < 0 || static_cast<std::size_t>(offset) + size > info.functor_size)
    throw Error(ErrorKind::kInvalidArgument, "LIGHTNING_KERNEL(" + info.name + "): '" + name +
                                                 "' is not a member of the functor");
}
}  // namespace

void add_array_member(kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset,
                      DataType type, int rank, bool axes_reversed) {
  check_offset(info, name, offset, static_cast<std::size_t>(array_handle_size(rank)));
  const int param = static_cast<int>(info.description.signature.params.size());
  info.description.signature.add_array(name, type, rank, axes_reversed);
  info.description.arrays.push_back({param, static_cast<std::size_t>(offset), rank});
  info.device.param_offsets.push_back(static_cast<std::size_t>(offset));
}

void add_scalar_member(kernel::KernelInfo& info, const std::string& name, std::ptrdiff_t offset,
                       DataType type) {
  check_offset(info, name, offset, size_of(type));
  const int param = static_cast<int>(info.description.signature.params.size());
  info.description.signature.add_scalar(name, type);
  info.device.param_offsets.push_back(static_cast<std::size_t>(offset));
  if (is_integral(type))
    info.description.scalars.push_back({param, static_cast<std::size_t>(offset), type});
}

std::string lambda_kernel_name(const std::type_info& type, const char* file, int line) {
  std::string where(file);
  const auto slash = where.find_last_of('/');
  if (slash != std::string::npos) where = where.substr(slash + 1);
  return kernel_name(type, nullptr) + " at " + where + ":" + std::to_string(line);
}

std::string lambda_operator_source(const char* code) {
  const std::string text(code);
  const auto open = text.find_first_not_of(" \t\n");
  // The parameter list ends at the parenthesis that closes the first one.
  std::size_t close = std::string::npos;
  if (open != std::string::npos && text[open] == '(') {
    int depth = 0;
    for (std::size_t i = open; i < text.size() && close == std::string::npos; ++i) {
      if (text[i] == '(') ++depth;
      if (text[i] == ')' && --depth == 0) close = i;
    }
  }
  if (close == std::string::npos)
    throw Error(ErrorKind::kInvalidArgument,
                "LIGHTNING_LAMBDA: its last argument must be the lambda's parameters and body, "
                "'(const int i) { ... }'; got '" +
                    text + "'");
  return "KOKKOS_INLINE_FUNCTION auto operator()" + text.substr(open, close + 1 - open) + " const" +
         text.substr(close + 1);
}

void throw_capture_layout_error(const char* file, const char* captures, std::size_t index,
                                std::size_t offset) {
  const std::vector<std::string> names = split_member_list(captures);
  const std::string name = index < names.size() ? names[index] : std::to_string(index);
  throw Error(ErrorKind::kInvalidArgument,
              std::string("LIGHTNING_LAMBDA in ") + file +
                  ": this compiler does not lay out the "
                  "closure's captures " +
                  captures + " in their order (capture '" + name + "' is not at byte " +
                  std::to_string(offset) +
                  "), so the runtime cannot find them; write the kernel as a LIGHTNING_KERNEL "
                  "functor");
}

KernelRegistration register_kernel_info(kernel::KernelInfo info, const char* source) {
  try {
    KernelRegistration r;
    r.name = info.name;
    r.source = source;
    // GPU code: the operator's text, pasted by the code generator into a struct of the
    // functor's layout; what it uses of Kokkos is defined for it under NVRTC (team kernels:
    // the team member and nested ranges too). lightning::annotate lambdas have no text: host
    // devices only.
    if (source && *source) {
      const bool teams = info.device.kind == kernel::DeviceCodeKind::kTeamFunctorBody;
      if (!teams) info.device.kind = kernel::DeviceCodeKind::kFunctorBody;
      info.device.source = source;
      info.device.includes = {teams ? "lightning_kokkos/device/team_member.hpp"
                                    : "lightning_kokkos/device/kokkos_core.hpp"};
    }
    r.id = kernel::KernelRegistry::add(std::move(info));
    return r;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lightning: LIGHTNING_KERNEL registration failed: %s\n", e.what());
    std::abort();
  }
}

}  // namespace lightning::detail
