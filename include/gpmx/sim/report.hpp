#pragma once
// A timed-mode run's report: simulated time, per-SM stalls, cache hits and
// misses by memory space, bytes per device and link, bandwidth over time,
// warp instructions, and the configuration used; as JSON or a table.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "gpmx/sim/gpu_model.hpp"

namespace gpmx::sim {

// What the caller knows of the run that the model does not.
struct run_summary {
  std::string workload;
  std::string style;
  std::map<std::string, std::uint64_t, std::less<>> params;
  double wall_seconds = 0;
  bool verified = false;
  std::string verify_detail;
  // What the parameters started from before -p: the workload's test sizes
  // (gpmx sim's default) or its own defaults (--full-size).
  bool full_size = false;
};

nlohmann::json report_json(const gpu_model& gpu, const run_summary& run);
std::string report_table(const gpu_model& gpu, const run_summary& run);

}  // namespace gpmx::sim
