#pragma once
// gpmx sim W --crash-at CYCLE: the pool files as the simulated NVM held
// them at that cycle, written over the run's own files, so that gpmx
// recover and gpmx verify can be run on them (docs/sim-persistency.md).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "gpmx/sim/durability_tracker.hpp"
#include "gpmx/sim/gpu_model.hpp"

namespace gpmx::cli {

struct crash_image_summary {
  std::uint64_t cycle = 0;
  sim::picos at = 0;             // the same time in picoseconds
  std::uint64_t run_cycles = 0;  // how long the whole run took
  std::size_t files_written = 0, files_removed = 0;
  std::size_t pieces = 0;          // PM writes followed (by sector)
  std::size_t pieces_durable = 0;  // durable by the crash
  std::size_t never_durable = 0;   // not durable by the run's end
};

// Writes the image of a crash at `cycle` over the files the run mapped.
crash_image_summary write_crash_image(const sim::durability_tracker& t, const sim::gpu_model& gpu, std::uint64_t cycle);
nlohmann::json to_json(const crash_image_summary& s);
void print_crash_image(const crash_image_summary& s, const std::string& workload, const std::string& data);

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
