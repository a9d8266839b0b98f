#pragma once
// The transaction benchmarks (docs/transactions.md) with helper warps off,
// on and adaptive, at each emulated NVRAM write bandwidth, side by side in
// one run. One row per (configuration, bandwidth, mode):
//   tx_<cfg>_<bw>_<mode>: median kernel time of one run (every run makes a
//   fresh heap), with tx_per_s, speedup_vs_off (on and adaptive: the off
//   row's median time over this one's), vs_best_fixed (adaptive: the better
//   of off and on over adaptive), median_occupancy and mean_occupancy of
//   the persistence buffer at a drain (share of its capacity), aborts per
//   commit, helper switches, and NVRAM bytes charged per transaction.
// With the CPU baseline (ATM configurations; libpmemobj, pmemobj_atm.hpp):
//   cpu_pmemobj_<cfg>: the same transfers by host threads in libpmemobj
//   transactions (tx_per_s, threads, matches_reference, is_pmem: whether
//   libpmem flushes cache lines there rather than msync);
//   tx_<cfg>_flush_<off|on>: gpmx with cache-line flushes (durability
//   flush), no throttle, with vs_pmemobj (its tx_per_s over the baseline's).
// On tmpfs, run with PMEM_IS_PMEM_FORCE=1 so that libpmemobj flushes cache
// lines as gpmx does (it msyncs otherwise).
// Configurations (the helper-warp paper's): A1, A2 (tx-atm with 100 K and
// 1 M accounts), H1, H2 (tx-hash, 15 M + 35 M and 1 M + 3 M entries), B1,
// B2 (tx-bvh over 100,000 and 187,854 faces: construction then reduction,
// with construction_s and reduction_s of the last run: B and R).
// With `gpu` set, every row runs its kernels on that GPU with the pools in
// host memory across PCIe (PM-far, as GPM): no throttle (one bandwidth,
// "native"), helpers off, on and adaptive (the bandwidth monitor on a host
// thread beside the kernel, reading the GPU's counters in managed memory),
// pm_bytes_per_tx the log bytes the kernels stored to PM.
// With `timed` set, every row runs in the timed mode on that simulated GPU
// with nvm.write_gbs set to the row's bandwidth (no wall-clock throttle):
// the times are simulated kernel time, one run each (the timed schedule is
// deterministic), and there are no baseline rows.
// With `calibrate`, each bandwidth's rows start with the threshold's
// calibration (calibrate_<bw>_<threads>t, calibrate_<bw>_threshold:
// tx_calibrate.hpp), and its adaptive rows switch at that threshold.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/workload.hpp"
#include "gpmx/exec/gpu_session.hpp"
#include "gpmx/bench/report.hpp"
#include "gpmx/sim/config.hpp"

namespace gpmx::bench {

struct tx_bench_options {
  std::filesystem::path directory;  // where the pools go; empty: the temporary directory
  std::vector<std::string> configs = {"A1", "A2", "H1", "H2", "B1", "B2"};
  // MB/s; 0: no throttle (the pool's own speed). The paper's four: 1.6, 12,
  // 100 and 484 GB/s.
  std::vector<std::uint64_t> bandwidths_mbps = {1600, 12000, 100000, 484000};
  unsigned repeat = 3;
  // Adaptive rows: the monitor's threshold in MB/s (0: the workload's
  // default, the paper's 200). Scale it with the bandwidths when they are
  // scaled to the executor's speed.
  std::uint64_t threshold_mbps = 0;
  // Calibrate the threshold at each bandwidth first (tx_calibrate.hpp, the
  // paper's write-pressure test) and give it to that bandwidth's adaptive
  // rows; calibrate_only calibrates and returns nothing but those rows.
  bool calibrate = false, calibrate_only = false;
  // Or an earlier calibration's JSON (read_calibration): each bandwidth's
  // adaptive rows take its threshold from there.
  std::filesystem::path calibration;
  bool small = false;    // the workloads' small_params (tests), else the paper's sizes
  unsigned workers = 0;  // executor workers; 0: the default
  bool baseline = true;  // the libpmemobj rows for the ATM configurations (when built with it)
  apps::params overrides;  // applied over every configuration's parameters (-p NAME=VALUE)
  const gpu_session* gpu = nullptr;  // set: kernels on this GPU (bandwidths must be {0})
  std::optional<sim::sim_config> timed;  // set: the timed mode on this GPU (its nvm.write_gbs is the row's)
  std::function<void(const std::string&)> progress;  // called before each configuration
};

// The configuration names it knows, in order.
std::vector<std::string> tx_bench_configs();
// Throws config_error naming an unknown configuration or a bad repeat count.
std::vector<result> run_tx_benchmarks(const tx_bench_options& options);

}  // namespace gpmx::bench
