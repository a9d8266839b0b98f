#include "gpmx/stm/stm_fail.hpp"

#include <fmt/format.h>

#include "gpmx/exec/errors.hpp"

namespace gpmx::stm::detail {

void throw_stm_error(const char* what, std::uint64_t a, std::uint64_t b) {
  throw kernel_usage_error(fmt::format("transaction: {} ({}, limit {})", what, a, b));
}

}  // namespace gpmx::stm::detail
