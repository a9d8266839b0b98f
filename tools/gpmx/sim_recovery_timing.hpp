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

// --crash-at's value, as a cycle of the run `t` (its launches):
//   "40000"            that cycle;
//   "50%"              that share of the run;
//   "launch:K:50%"     that share of launch K (from 0; "mid": the middle
//                      launch, n/2 of n), so that runs of one program on
//                      different hardware crash at the same point of it.
// Throws config_error naming the text when it is none of these, or names a
// launch the run did not make. `t` may be empty to check the syntax alone.
std::uint64_t crash_cycle(const std::string& text, const sim::run_totals& t, std::uint32_t core_mhz);

}  // namespace gpmx::cli
