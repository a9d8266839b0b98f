#include "tx_bench.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <ranges>
#include <stdexcept>

#include "common/registry.hpp"
#include "pmemobj_atm.hpp"
#include "tx_calibrate.hpp"
#include "tx_runs.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::bench {
namespace {

struct tx_config {
  std::string name, workload;
  apps::params params;  // on top of the workload's defaults
};

const std::vector<tx_config>& configs() {
  static const std::vector<tx_config> all = {
      {"A1", "tx-atm", {{"accounts", 100000}}},
      {"A2", "tx-atm", {{"accounts", 1000000}}},
      {"H1", "tx-hash", {{"base", 15000000}, {"extended", 35000000}, {"per_thread", 4}}},
      {"H2", "tx-hash", {{"base", 1000000}, {"extended", 3000000}, {"per_thread", 7}}},
      {"B1", "tx-bvh", {{"faces", 100000}}},
      {"B2", "tx-bvh", {{"faces", 187854}}},
  };
  return all;
}

const tx_config& config_named(const std::string& name) {
  for (const tx_config& c : configs())
    if (c.name == name) return c;
  throw config_error(fmt::format("bench tx: no configuration {} (known: {})", name,
                                          fmt::join(tx_bench_configs(), ", ")));
}

constexpr const char* mode_names[] = {"off", "on", "adaptive"};

// libpmemobj doing the same transfers, and gpmx with cache-line flushes.
void baseline_rows(const tx_bench_options& o, const tx_config& c, apps::workload& w, const scratch_dir& scratch,
                   std::vector<result>& rows) {
  apps::params given = o.small ? w.small_params() : c.params;
  given["batches"] = 1;
  given["nvram_mbps"] = 0;
  apps::params p = apps::resolve_params(w, given);
  if (!have_pmemobj()) {
    result r;
    r.name = fmt::format("cpu_pmemobj_{}", c.name);
    r.note = "not measured: this build has no libpmemobj (install libpmemobj-dev and rebuild)";
    rows.push_back(std::move(r));
    return;
  }
  if (o.progress) o.progress(fmt::format("{}: libpmemobj baseline", c.name));
  pmemobj_atm_options b;
  b.accounts = std::uint32_t(p.at("accounts"));
  b.committers = std::uint32_t(p.at("blocks") * p.at("threads"));
  b.per_thread = std::uint32_t(p.at("per_thread"));
  b.seed = p.at("seed");
  std::vector<double> runs;
  pmemobj_atm_result last;
  for (unsigned k = 0; k < o.repeat; ++k) {
    b.pool = scratch / fmt::format("{}-pmemobj", c.name);
    last = run_pmemobj_atm(b);
    if (!last.matches_reference)
      throw std::runtime_error(fmt::format("bench tx: the libpmemobj baseline of {} does not match the reference", c.name));
    runs.push_back(last.seconds * 1e9);
  }
  result base = make_result(fmt::format("cpu_pmemobj_{}", c.name), runs,
                            fmt::format("{} transfers in libpmemobj transactions by {} host threads", last.transfers,
                                        last.threads));
  const double base_rate = double(last.transfers) / (base.median_ns * 1e-9);
  base.metrics["tx_per_s"] = base_rate;
  base.metrics["threads"] = last.threads;
  base.metrics["matches_reference"] = last.matches_reference ? 1 : 0;
  base.metrics["is_pmem"] = last.is_pmem ? 1 : 0;
  rows.push_back(std::move(base));
  for (unsigned m = 0; m < 2; ++m) {
    p["helpers"] = m;
    if (o.progress) o.progress(fmt::format("{}: gpmx with cache-line flushes, helpers {}", c.name, mode_names[m]));
    std::vector<double> gruns;
    apps::run_report last_run;
    for (unsigned k = 0; k < o.repeat; ++k) {
      cpu::executor ex({.workers = o.workers});
      last_run = w.run({ex, scratch / c.name, pm::durability::flush}, p, apps::style::epoch);
      gruns.push_back(last_run.seconds * 1e9);
    }
    result r = make_result(fmt::format("tx_{}_flush_{}", c.name, mode_names[m]), gruns,
                           fmt::format("{} {} with cache-line flushes (durability flush), helpers {}",
                                       last_run.operations, last_run.unit, mode_names[m]));
    const double rate = double(last_run.operations) / (r.median_ns * 1e-9);
    r.metrics["tx_per_s"] = rate;
    r.metrics["vs_pmemobj"] = rate / base_rate;
    rows.push_back(std::move(r));
  }
}

}  // namespace

std::vector<std::string> tx_bench_configs() {
  std::vector<std::string> v;
  for (const tx_config& c : configs()) v.push_back(c.name);
  return v;
}

std::vector<result> run_tx_benchmarks(const tx_bench_options& o) {
  for (const std::string& c : o.configs) (void)config_named(c);  // refuse before running anything
  if (o.repeat == 0) throw config_error("bench tx: --repeat must be at least 1");
  if (o.overrides.contains("helpers") || o.overrides.contains("nvram_mbps"))
    throw config_error("bench tx: helpers and nvram_mbps are the sweep's (--nvram-mbps sets the bandwidths)");
  if (o.timed)
    for (const std::uint64_t bw : o.bandwidths_mbps)
      if (bw == 0) throw config_error("bench tx: --timed needs a bandwidth for every row (--nvram-mbps 0 is the throttle's 'none')");
  if (o.gpu && o.timed) throw config_error("bench tx: --timed simulates a GPU; it cannot also run on one (--backend cuda)");
  const bool calibrate = o.calibrate || o.calibrate_only;
  if ((calibrate || !o.calibration.empty()) && o.threshold_mbps != 0)
    throw config_error("bench tx: --calibrate and --calibration set the adaptive rows' threshold; it cannot also be "
                       "given (--threshold-mbps)");
  if (calibrate && !o.calibration.empty())
    throw config_error("bench tx: --calibrate and --calibration both set the threshold: give one");
  const unsigned repeat = o.timed ? 1 : o.repeat;  // the timed schedule is deterministic
  std::vector<result> rows;
  // Each bandwidth's calibrated threshold in MB/s (none: helpers never won).
  std::map<std::uint64_t, std::optional<double>> calibrated;
  if (calibrate)
    for (const std::uint64_t bw : o.bandwidths_mbps) calibrated[bw] = calibrate_threshold(o, bw, rows);
  if (!o.calibration.empty()) {
    const auto file = read_calibration(o.calibration);
    for (const std::uint64_t bw : o.bandwidths_mbps) {
      const auto it = file.find(bw);
      if (it == file.end())
        throw config_error(fmt::format("bench tx: the calibration {} has no threshold for {} MB/s (it has {} MB/s)",
                                       o.calibration.string(), bw, fmt::join(std::views::keys(file), ", ")));
      calibrated[bw] = it->second;
    }
  }
  if (o.calibrate_only) return rows;
  scratch_dir scratch(o.directory, "bench-tx");
  for (const std::string& cname : o.configs) {
    const tx_config& c = config_named(cname);
    apps::workload& w = apps::find_workload(c.workload);
    for (const std::uint64_t bw : o.bandwidths_mbps) {
      std::map<std::string, double> median_s;
      for (unsigned m = 0; m < 3; ++m) {
        apps::params given = o.small ? w.small_params() : c.params;
        for (const auto& [k, v] : o.overrides) given[k] = v;
        given["helpers"] = m;
        given["nvram_mbps"] = o.timed ? 0 : bw;  // timed: the NVM model is the bandwidth
        if (o.threshold_mbps != 0) given["threshold_mbps"] = o.threshold_mbps;
        if (!calibrated.empty()) given["threshold_mbps"] = threshold_param_mbps(calibrated.at(bw));
        const apps::params p = apps::resolve_params(w, given);
        if (o.progress)
          o.progress(fmt::format("{} ({}) at {}, helpers {}", c.name, c.workload, tx_bandwidth_label(bw), mode_names[m]));
        std::vector<double> runs;
        tx_run last;
        for (unsigned k = 0; k < repeat; ++k) {
          last = run_tx_once(o, w, scratch / c.name, p, bw);
          runs.push_back(last.ns);
        }
        const apps::run_report& rep = last.report;
        result r = make_result(fmt::format("tx_{}_{}_{}", c.name, tx_bandwidth_label(bw), mode_names[m]), runs,
                               fmt::format("{} {} ({}), NVRAM {}, helpers {}{}", rep.operations, rep.unit, c.workload,
                                           tx_bandwidth_label(bw), mode_names[m],
                                           o.timed ? fmt::format(", simulated on {}", o.timed->name)
                                           : o.gpu ? fmt::format(", on {}", o.gpu->description())
                                                   : ""));
        const double commits = tx_figure(rep, "commits");
        r.metrics["tx_per_s"] = r.median_ns > 0 ? double(rep.operations) / (r.median_ns * 1e-9) : 0;
        r.metrics["nvram_mbps"] = double(bw);
        r.metrics["aborts_per_commit"] = commits > 0 ? tx_figure(rep, "aborts") / commits : 0;
        r.metrics[o.gpu && bw == 0 ? "pm_bytes_per_tx" : "nvram_bytes_per_tx"] = commits > 0 ? last.nvram_bytes / commits : 0;
        if (c.workload == "tx-bvh") {  // the paper reports B (construction) and R (reduction) apart
          r.metrics["construction_s"] = last.construction_s;
          r.metrics["reduction_s"] = last.reduction_s;
        }
        if (m != 0) {
          r.metrics["median_occupancy"] = tx_figure(rep, "median_occupancy");
          r.metrics["mean_occupancy"] = tx_figure(rep, "mean_occupancy");
          r.metrics["ring_full_waits"] = tx_figure(rep, "ring_full_waits");
        }
        if (m == 2) {
          r.metrics["helper_switches"] = tx_figure(rep, "helper_switches");
          const double slices = tx_figure(rep, "monitor_slices");
          r.metrics["share_of_slices_on"] = slices > 0 ? tx_figure(rep, "monitor_slices_on") / slices : 0;
          // -1: a calibration found helpers never win here.
          const bool never = !calibrated.empty() && !calibrated.at(bw);
          r.metrics["threshold_mbps"] = never ? -1.0 : double(p.at("threshold_mbps"));
        }
        median_s[mode_names[m]] = r.median_ns;
        if (m != 0 && r.median_ns > 0) r.metrics["speedup_vs_off"] = median_s["off"] / r.median_ns;
        if (m == 2 && r.median_ns > 0) r.metrics["vs_best_fixed"] = std::min(median_s["off"], median_s["on"]) / r.median_ns;
        rows.push_back(std::move(r));
      }
    }
    if (o.baseline && !o.timed && c.workload == "tx-atm") baseline_rows(o, c, w, scratch, rows);
    std::filesystem::remove_all(scratch / c.name);
  }
  return rows;
}

}  // namespace gpmx::bench
