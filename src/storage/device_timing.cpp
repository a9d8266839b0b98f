#include "gpmx/storage/device_timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "gpmx/storage/storage_error.hpp"

namespace gpmx::storage {

namespace {
const std::vector<device_timing>& known() {
  static const std::vector<device_timing> all = {
      {"optane-p5800x", 11.0, 5.1e6, 0},
      {"nand-ssd", 324.0, 7.0e5, 0},
  };
  return all;
}
}  // namespace

device_timing device_timing::named(std::string_view name) {
  for (const device_timing& d : known())
    if (d.name == name) return d;
  std::string list;
  for (const device_timing& d : known()) list += (list.empty() ? "" : ", ") + d.name;
  throw storage_error(error_code::config, fmt::format("no device timing named '{}' (known: {})", name, list));
}

device_clock::device_clock(const device_timing& t)
    : latency_(vtime(std::llround(t.latency_us * 1e6))),
      ps_per_command_(t.iops > 0 ? 1e12 / t.iops : 0),
      ps_per_byte_(t.bytes_per_second > 0 ? 1e12 / t.bytes_per_second : 0) {
  if (t.latency_us < 0 || t.iops <= 0 || t.bytes_per_second < 0)
    throw storage_error(error_code::config,
                        fmt::format("device timing '{}': latency {} us, {} IOPS, {} B/s: the latency must not be "
                                    "negative and the IOPS must be positive",
                                    t.name, t.latency_us, t.iops, t.bytes_per_second));
}

vtime device_clock::serve(vtime at, std::uint64_t bytes) {
  const double start = std::max(double(at), next_start_);
  next_start_ = start + std::max(ps_per_command_, ps_per_byte_ * double(bytes));
  return vtime(std::llround(next_start_)) + latency_;
}

}  // namespace gpmx::storage
