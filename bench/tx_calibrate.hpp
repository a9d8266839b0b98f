#pragma once
// The adaptive switch's threshold, calibrated as the helper-warp paper
// does (its section 5.2, Fig. 6): the write-pressure test
// (apps/tx/write_test.hpp) runs with more and more committer threads
// (calibration_grids), with helper warps switched off (the adaptive system
// below any threshold, so the monitor measures what it will see) and on.
// At each thread count the monitor's persistence bandwidth is taken over
// its slices but the first and last of each launch (the paper drops the
// warm-up and ending phases). The paper says only that the test "finds the
// point at which the memory is saturated"; gpmx makes that point the
// crossover: the lightest pressure from which helpers on beat helpers off
// at every heavier one. The threshold is the geometric mean of the
// bandwidths measured just below and at the crossover, so a workload that
// persists as fast as the crossover's pressure switches helpers on and one
// as slow as the last losing pressure does not. Where helpers never win at
// the heaviest pressure there is no threshold: adaptive never switches
// them on.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "gpmx/bench/report.hpp"
#include "tx_bench.hpp"

namespace gpmx::bench {

struct calibration_point {
  std::uint64_t threads = 0;         // committer threads in all
  double off_persist_mbps = 0;       // the monitor's steady bandwidth with helpers off
  double off_ns = 0, on_ns = 0;      // median kernel time of each
  double on_over_off() const { return on_ns > 0 ? off_ns / on_ns : 0; }
};

// Of points ordered by thread count: the first of the last run of points
// where helpers on win; nullopt where they lose at the last point.
std::optional<std::size_t> crossover_of(std::span<const calibration_point> points);
// The threshold in MB/s by the rule above (1 where helpers won at every
// point: any persistence at all switches them on); nullopt without a
// crossover.
std::optional<double> threshold_from(std::span<const calibration_point> points);

struct calibration_grid {
  std::uint32_t blocks, threads;  // committer threads per block
};
// The grids swept up to `blocks` blocks of `threads` (a multiple of 32):
// 1, 2, 4, ... blocks of 32 committers ending at `blocks`, then `blocks`
// blocks of 64, 128, ... committers ending at `threads`. The pressure grows
// first with the blocks, each with its helper warp (as many committers per
// helper throughout), then with the committers of a whole grid, as in the
// benchmarks, which fill every SM.
std::vector<calibration_grid> calibration_grids(std::uint32_t blocks, std::uint32_t threads);

// The workloads' threshold_mbps for a calibrated threshold: rounded, at
// least 1 MB/s; for none, one no persistence reaches (adaptive is then
// helpers off with the monitor watching).
std::uint64_t threshold_param_mbps(std::optional<double> threshold);

// Calibrates at one NVRAM bandwidth (the row's, as the sweep runs it),
// appending a row per thread count (calibrate_<bw>_<threads>t) and one
// with the threshold (calibrate_<bw>_threshold). Returns the threshold
// in MB/s, nullopt where helpers never win.
std::optional<double> calibrate_threshold(const tx_bench_options& o, std::uint64_t bw_mbps,
                                          std::vector<result>& rows);

// The thresholds of an earlier calibration's JSON (`bench tx --calibrate
// --json --out FILE`): its calibrate_<bw>_threshold rows, bandwidth in MB/s
// to threshold in MB/s (nullopt: helpers never won there). Throws
// config_error naming the file when it cannot be read or holds none.
std::map<std::uint64_t, std::optional<double>> read_calibration(const std::filesystem::path& file);

}  // namespace gpmx::bench
