#pragma once
// One run of a transaction workload for the transaction benchmarks (the
// sweep and the threshold calibration): on the cpu executor (with the
// NVRAM throttle), on a GPU, or in the timed mode.
#include <cstdint>
#include <filesystem>
#include <string>

#include "common/workload.hpp"
#include "tx_bench.hpp"

namespace gpmx::bench {

struct tx_run {
  apps::run_report report;
  double ns = 0, construction_s = 0, reduction_s = 0;  // B's two phases apart
  double nvram_bytes = 0;  // written to NVRAM: charged by the throttle, the NVM model's, or the GPU's PM stores
};

// A figure the run reported; throws std::logic_error naming it when absent.
double tx_figure(const apps::run_report& r, const std::string& name);
// "1600MBps", "12GBps", "native" (no throttle).
std::string tx_bandwidth_label(std::uint64_t mbps);

// p's run where o says (o.timed: simulated time on that GPU with its NVM
// writing at bw_mbps; else the cpu executor, or o.gpu).
tx_run run_tx_once(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir,
                   const apps::params& p, std::uint64_t bw_mbps);

}  // namespace gpmx::bench
