#include "gpmx/exec/write_throttle_settings.hpp"

#include <fmt/format.h>

namespace gpmx {

std::string write_throttle_settings_error(double bytes_per_second, std::uint32_t sector_bytes) {
  if (!(bytes_per_second > 0)) return fmt::format("{} bytes per second is not a bandwidth", bytes_per_second);
  if (sector_bytes < 8 || sector_bytes > 4096 || (sector_bytes & (sector_bytes - 1)) != 0)
    return fmt::format("a sector of {} bytes is not a power of two from 8 to 4096", sector_bytes);
  return {};
}

}  // namespace gpmx
