#include "gpmx/pm/log_fail.hpp"

#include <fmt/format.h>

namespace gpmx::pm::detail {

void throw_log_error(errc code, const char* log, const char* what, std::uint64_t a, std::uint64_t b) {
  throw pm_error(code, fmt::format("{} log: {}", log, fmt::format(fmt::runtime(what), a, b)));
}

}  // namespace gpmx::pm::detail
