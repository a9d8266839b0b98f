#pragma once
// What makes a write throttle's settings valid, shared by the cpu
// executor's throttle (pm::write_throttle) and the GPU's
// (gpu_session::throttle_pm_writes), which throw their own error types.
#include <cstdint>
#include <string>

namespace gpmx {

// Empty when bytes_per_second > 0 and sector_bytes is a power of two from
// 8 to 4096; else what is wrong, naming the value.
std::string write_throttle_settings_error(double bytes_per_second, std::uint32_t sector_bytes);

}  // namespace gpmx
