#include "tx_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "common/registry.hpp"
#include "pmemobj_atm.hpp"
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

double figure(const apps::run_report& r, const std::string& name) {
  for (const auto& [n, v] : r.figures)
    if (n == name) return v;
  throw std::logic_error(fmt::format("bench tx: the run reported no figure {}", name));
}

std::string bandwidth_label(std::uint64_t mbps) {
  if (mbps == 0) return "native";
  if (mbps % 1000 == 0) return fmt::format("{}GBps", mbps / 1000);
  return fmt::format("{}MBps", mbps);
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
  scratch_dir scratch(o.directory, "bench-tx");
  std::vector<result> rows;
  for (const std::string& cname : o.configs) {
    const tx_config& c = config_named(cname);
    apps::workload& w = apps::find_workload(c.workload);
    for (const std::uint64_t bw : o.bandwidths_mbps) {
      std::map<std::string, double> median_s;
      for (unsigned m = 0; m < 3; ++m) {
        apps::params given = o.small ? w.small_params() : c.params;
        given["helpers"] = m;
        given["nvram_mbps"] = bw;
        if (o.threshold_mbps != 0) given["threshold_mbps"] = o.threshold_mbps;
        const apps::params p = apps::resolve_params(w, given);
        if (o.progress)
          o.progress(fmt::format("{} ({}) at {}, helpers {}", c.name, c.workload, bandwidth_label(bw), mode_names[m]));
        std::vector<double> runs;
        apps::run_report last;
        for (unsigned k = 0; k < o.repeat; ++k) {
          cpu::executor ex({.workers = o.workers});
          last = w.run({ex, scratch / c.name, pm::durability::none}, p, apps::style::epoch);
          runs.push_back(last.seconds * 1e9);
        }
        result r = make_result(fmt::format("tx_{}_{}_{}", c.name, bandwidth_label(bw), mode_names[m]), runs,
                               fmt::format("{} {} ({}), NVRAM {}, helpers {}", last.operations, last.unit, c.workload,
                                           bandwidth_label(bw), mode_names[m]));
        const double commits = figure(last, "commits");
        r.metrics["tx_per_s"] = r.median_ns > 0 ? double(last.operations) / (r.median_ns * 1e-9) : 0;
        r.metrics["nvram_mbps"] = double(bw);
        r.metrics["aborts_per_commit"] = commits > 0 ? figure(last, "aborts") / commits : 0;
        r.metrics["nvram_bytes_per_tx"] = commits > 0 ? figure(last, "nvram_bytes_charged") / commits : 0;
        if (c.workload == "tx-bvh") {  // the paper reports B (construction) and R (reduction) apart
          r.metrics["construction_s"] = figure(last, "construction_seconds");
          r.metrics["reduction_s"] = figure(last, "reduction_seconds");
        }
        if (m != 0) {
          r.metrics["median_occupancy"] = figure(last, "median_occupancy");
          r.metrics["mean_occupancy"] = figure(last, "mean_occupancy");
          r.metrics["ring_full_waits"] = figure(last, "ring_full_waits");
        }
        if (m == 2) {
          r.metrics["helper_switches"] = figure(last, "helper_switches");
          const double slices = figure(last, "monitor_slices");
          r.metrics["share_of_slices_on"] = slices > 0 ? figure(last, "monitor_slices_on") / slices : 0;
          r.metrics["threshold_mbps"] = double(p.at("threshold_mbps"));
        }
        median_s[mode_names[m]] = r.median_ns;
        if (m != 0 && r.median_ns > 0) r.metrics["speedup_vs_off"] = median_s["off"] / r.median_ns;
        if (m == 2 && r.median_ns > 0) r.metrics["vs_best_fixed"] = std::min(median_s["off"], median_s["on"]) / r.median_ns;
        rows.push_back(std::move(r));
      }
    }
    if (o.baseline && c.workload == "tx-atm") baseline_rows(o, c, w, scratch, rows);
    std::filesystem::remove_all(scratch / c.name);
  }
  return rows;
}

}  // namespace gpmx::bench
