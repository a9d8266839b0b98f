#pragma once
// A storage device's timing for the timed schedule (gpmx sim): a latency and
// a rate of commands. A command the controller fetches at virtual time `at`
// takes its turn when the device has served the ones before it (a turn is
// 1 / iops, or its bytes at the device's bandwidth when that is set and
// longer) and completes `latency` after its turn. So one
// command alone takes latency + 1 / iops, and N in flight give
// min(iops, N / latency) commands per second: Little's law, with the device
// saturating at its IOPS.
//
// Named devices (the BaM paper's two, section 5): "optane-p5800x" (about
// 11 us, 5.1 M 512-byte read IOPS) and "nand-ssd" (a consumer NAND SSD,
// about 324 us, 700 K). No bandwidth limit unless set.
#include <cstdint>
#include <string>
#include <string_view>

#include "gpmx/exec/timing.hpp"

namespace gpmx::storage {

struct device_timing {
  std::string name;
  double latency_us = 0;
  double iops = 0;              // commands per second
  double bytes_per_second = 0;  // 0: no bandwidth limit

  // Throws storage_error (config) naming `name` and the known ones.
  static device_timing named(std::string_view name);
};

// One device's queue of commands in virtual time.
class device_clock {
 public:
  explicit device_clock(const device_timing& t);
  // When a command of `bytes` that arrives at `at` completes.
  vtime serve(vtime at, std::uint64_t bytes);

 private:
  vtime latency_ = 0;
  double ps_per_command_ = 0;
  double ps_per_byte_ = 0;
  double next_start_ = 0;  // ps, fractional so that 1 / iops does not drift
};

}  // namespace gpmx::storage
