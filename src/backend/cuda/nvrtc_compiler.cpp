// NVRTC calls, their errors, and the excerpt of generated source shown with a compile error.
#include "backend/cuda/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <iomanip>
#include <memory>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace lightning::cuda {

namespace {

// Throws Error(kCuda) when an NVRTC call failed, naming the call and the kernel.
void check(nvrtcResult result, const char* call, const std::string& kernel_name) {
  if (result != NVRTC_SUCCESS)
    throw Error(ErrorKind::kCuda, std::string(call) + " failed for kernel '" + kernel_name +
                                      "': " + nvrtcGetErrorString(result));
}

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtcDestroyProgram(p);
    delete p;
  }
};

std::string program_log(nvrtcProgram program, const std::string& kernel_name) {
  size_t size = 0;
  check(nvrtcGetProgramLogSize(program, &size), "nvrtcGetProgramLogSize", kernel_name);
  std::string log(size, '\0');
  if (size > 0) check(nvrtcGetProgramLog(program, log.data()), "nvrtcGetProgramLog", kernel_name);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::vector<std::string> nvrtc_options(int sm_major, int sm_minor) {
  if (sm_major <= 0 || sm_minor < 0 || sm_minor > 9)
    throw Error(ErrorKind::kInvalidArgument,
                "no GPU architecture sm_" + std::to_string(sm_major) + std::to_string(sm_minor));
  return {"--gpu-architecture=sm_" + std::to_string(sm_major) + std::to_string(sm_minor),
          "--std=c++17", "--device-as-default-execution-space", "--generate-line-info",
          "--fmad=false"};
}

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  check(nvrtcVersion(&major, &minor), "nvrtcVersion", "(none)");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string source_excerpt(const std::string& text, const std::string& file_name,
                           const std::string& log, int context) {
  // NVRTC reports "<file>(<line>): error: ...".
  std::set<int> error_lines;
  const std::string prefix = file_name + "(";
  for (const std::string& entry : split_lines(log)) {
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    const auto close = entry.find("): ", prefix.size());
    if (close == std::string::npos || entry.find("error", close) == std::string::npos) continue;
    try {
      error_lines.insert(std::stoi(entry.substr(prefix.size(), close - prefix.size())));
    } catch (const std::exception&) {
    }
  }
  const std::vector<std::string> lines = split_lines(text);
  const int count = static_cast<int>(lines.size());
  const int width = static_cast<int>(std::to_string(count).size());
  std::ostringstream out;
  int shown_until = 0;  // last line printed, so overlapping windows print once
  for (int line : error_lines) {
    const int first = std::max({1, line - context, shown_until + 1});
    const int last = std::min(count, line + context);
    if (first > last) continue;
    if (shown_until != 0 && first > shown_until + 1) out << "   ...\n";
    for (int n = first; n <= last; ++n) {
      out << (error_lines.count(n) != 0 ? '>' : ' ') << ' ' << std::setw(width) << n << " | "
          << lines[n - 1] << '\n';
    }
    shown_until = last;
  }
  return out.str();
}

NvrtcOutput compile_to_cubin(const NvrtcSource& source, const std::vector<std::string>& options) {
  const std::vector<EmbeddedHeader>& headers = embedded_device_headers();
  std::vector<const char*> header_texts;
  std::vector<const char*> header_names;
  for (const EmbeddedHeader& h : headers) {
    header_texts.push_back(h.text);
    header_names.push_back(h.name);
  }
  std::unique_ptr<nvrtcProgram, ProgramDeleter> program(new nvrtcProgram());
  check(nvrtcCreateProgram(program.get(), source.text.c_str(), source.file_name.c_str(),
                           static_cast<int>(headers.size()), header_texts.data(),
                           header_names.data()),
        "nvrtcCreateProgram", source.kernel_name);
  std::vector<const char*> option_ptrs;
  for (const std::string& o : options) option_ptrs.push_back(o.c_str());
  const nvrtcResult compiled =
      nvrtcCompileProgram(*program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  NvrtcOutput output;
  output.log = program_log(*program, source.kernel_name);
  if (compiled != NVRTC_SUCCESS) {
    std::string options_text;
    for (const std::string& o : options) options_text += " " + o;
    std::string message = "NVRTC could not compile kernel '" + source.kernel_name + "' (" +
                          nvrtcGetErrorString(compiled) + "; options:" + options_text +
                          ")\n--- NVRTC log ---\n" + output.log;
    const std::string excerpt = source_excerpt(source.text, source.file_name, output.log);
    if (!excerpt.empty()) message += "\n--- " + source.file_name + " ---\n" + excerpt;
    throw Error(ErrorKind::kCuda, message);
  }
  size_t size = 0;
  check(nvrtcGetCUBINSize(*program, &size), "nvrtcGetCUBINSize", source.kernel_name);
  if (size == 0)
    throw Error(ErrorKind::kCuda, "NVRTC produced no cubin for kernel '" + source.kernel_name +
                                      "': the options must name a real architecture (sm_XY)");
  output.cubin.resize(size);
  check(nvrtcGetCUBIN(*program, output.cubin.data()), "nvrtcGetCUBIN", source.kernel_name);
  return output;
}

}  // namespace lightning::cuda
