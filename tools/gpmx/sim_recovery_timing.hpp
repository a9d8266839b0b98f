#pragma once
// gpmx sim W --crash-at C --time-recovery: the workload's recovery runs on
// the crash image in the timed mode too, on the same simulated GPU, and
// its simulated time is reported (SBRP's Figure 11; docs/reproduction.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/workload.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/sim/gpu_model.hpp"

namespace gpmx::cli {

struct recovery_timing {
  double kernel_ps = 0;         // the recovery's kernels, summed
  std::uint64_t cycles = 0;     // the same in core cycles
  std::size_t launches = 0;
  bool repaired = false;
  std::string what;             // what recovery said it did
  bool verified = false;        // the workload's verify after it
  std::string verify_detail;
  double wall_seconds = 0;
  // Scheduler cycles by what the warps waited for, summed over SMs (as in
  // gpmx sim's report), and the persist buffers' counters.
  std::vector<std::pair<std::string, double>> stalls;
  nlohmann::json persistency;
};

recovery_timing time_recovery(apps::workload& w, const std::filesystem::path& dir, const sim::sim_config& c,
                              std::uint64_t seed);
nlohmann::json to_json(const recovery_timing& r);
void print_recovery_timing(const recovery_timing& r);

}  // namespace gpmx::cli
