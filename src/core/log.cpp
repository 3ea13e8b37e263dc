#include "core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace lightning {

spdlog::logger& log() {
  // spdlog loggers are internally synchronised; this is the one process-wide sink.
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("lightning");
    l->set_pattern("[%H:%M:%S.%e] [lightning] [%^%l%$] %v");
    l->set_level(spdlog::level::warn);
    return l;
  }();
  return *logger;
}

void set_log_level(LogLevel level) {
  static constexpr spdlog::level::level_enum kMap[] = {spdlog::level::trace, spdlog::level::debug,
                                                       spdlog::level::info,  spdlog::level::warn,
                                                       spdlog::level::err,   spdlog::level::off};
  log().set_level(kMap[static_cast<int>(level)]);
}

void set_log_rank(int rank) {
  log().set_pattern("[%H:%M:%S.%e] [lightning] [rank " + std::to_string(rank) + "] [%^%l%$] %v");
}

}  // namespace lightning
