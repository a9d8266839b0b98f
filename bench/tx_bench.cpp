#include "tx_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "common/registry.hpp"
#include "pmemobj_atm.hpp"
#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
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

// One run of a row: its report, its time, and B's two phases apart.
struct one_run {
  apps::run_report report;
  double ns = 0, construction_s = 0, reduction_s = 0;
  double nvram_bytes = 0;  // written to NVRAM: charged by the throttle, or the NVM model's
};

// One run on the cpu executor, or with its kernels on o.gpu: NVRAM bytes
// are the throttle's charge on the cpu, the kernels' PM stores on the GPU.
one_run run_on_cpu_or_gpu(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir,
                          const apps::params& p) {
  cpu::executor ex({.workers = o.workers});
  const std::uint64_t stored_before = o.gpu ? gpu_session::kernel_pm_store_bytes() : 0;
  one_run r{w.run({launch_target(ex, o.gpu), dir, pm::durability::none}, p, apps::style::epoch)};
  r.ns = r.report.seconds * 1e9;
  r.nvram_bytes = o.gpu ? double(gpu_session::kernel_pm_store_bytes() - stored_before)
                        : figure(r.report, "nvram_bytes_charged");
  if (w.name() == "tx-bvh") {
    r.construction_s = figure(r.report, "construction_seconds");
    r.reduction_s = figure(r.report, "reduction_seconds");
  }
  return r;
}

// The timed mode: simulated kernel time on o.timed with NVM writes at bw.
// Pool identities and kernel memory placement are fixed, as in gpmx sim,
// so a row times the same in every run.
one_run run_timed(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir,
                  const apps::params& p, std::uint64_t bw_mbps) {
  sim::sim_config c = *o.timed;
  if (bw_mbps != 0) c.nvm.write_gbs = double(bw_mbps) / 1000.0;
  sim::validate(c);
  sim::gpu_model gpu(c);
  one_run r;
  {
    const pm::deterministic_pool_identity identity(p.at("seed"));
    const sim::canonical_kernel_memory placement;
    cpu::executor ex({.policy = cpu::schedule::timed, .seed = p.at("seed"), .timing = &gpu});
    r.report = w.run({ex, dir, pm::durability::none}, p, apps::style::epoch);
  }
  r.ns = double(gpu.totals().kernel_time()) / 1000.0;
  r.nvram_bytes = double(gpu.memory().stats().nvm_write_bytes);
  if (w.name() == "tx-bvh") {  // launch 0 builds, launch 1 reduces
    const auto& l = gpu.totals().launches;
    if (l.size() != 2)
      throw std::logic_error(fmt::format("bench tx: tx-bvh made {} launches in the timed mode, expected 2", l.size()));
    r.construction_s = double(l[0].end - l[0].start) * 1e-12;
    r.reduction_s = double(l[1].end - l[1].start) * 1e-12;
  }
  return r;
}

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
  if (o.gpu)
    for (const std::uint64_t bw : o.bandwidths_mbps)
      if (bw != 0)
        throw config_error(fmt::format("bench tx: --nvram-mbps {} throttles host persists; on the GPU the kernels' "
                                       "stores cross PCIe unthrottled (--nvram-mbps 0)",
                                       bw));
  const unsigned repeat = o.timed ? 1 : o.repeat;  // the timed schedule is deterministic
  scratch_dir scratch(o.directory, "bench-tx");
  std::vector<result> rows;
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
        const apps::params p = apps::resolve_params(w, given);
        if (o.progress)
          o.progress(fmt::format("{} ({}) at {}, helpers {}", c.name, c.workload, bandwidth_label(bw), mode_names[m]));
        std::vector<double> runs;
        one_run last;
        for (unsigned k = 0; k < repeat; ++k) {
          last = o.timed ? run_timed(o, w, scratch / c.name, p, bw) : run_on_cpu_or_gpu(o, w, scratch / c.name, p);
          runs.push_back(last.ns);
        }
        const apps::run_report& rep = last.report;
        result r = make_result(fmt::format("tx_{}_{}_{}", c.name, bandwidth_label(bw), mode_names[m]), runs,
                               fmt::format("{} {} ({}), NVRAM {}, helpers {}{}", rep.operations, rep.unit, c.workload,
                                           bandwidth_label(bw), mode_names[m],
                                           o.timed ? fmt::format(", simulated on {}", o.timed->name)
                                           : o.gpu ? fmt::format(", on {}", o.gpu->description())
                                                   : ""));
        const double commits = figure(rep, "commits");
        r.metrics["tx_per_s"] = r.median_ns > 0 ? double(rep.operations) / (r.median_ns * 1e-9) : 0;
        r.metrics["nvram_mbps"] = double(bw);
        r.metrics["aborts_per_commit"] = commits > 0 ? figure(rep, "aborts") / commits : 0;
        r.metrics[o.gpu ? "pm_bytes_per_tx" : "nvram_bytes_per_tx"] = commits > 0 ? last.nvram_bytes / commits : 0;
        if (c.workload == "tx-bvh") {  // the paper reports B (construction) and R (reduction) apart
          r.metrics["construction_s"] = last.construction_s;
          r.metrics["reduction_s"] = last.reduction_s;
        }
        if (m != 0) {
          r.metrics["median_occupancy"] = figure(rep, "median_occupancy");
          r.metrics["mean_occupancy"] = figure(rep, "mean_occupancy");
          r.metrics["ring_full_waits"] = figure(rep, "ring_full_waits");
        }
        if (m == 2) {
          r.metrics["helper_switches"] = figure(rep, "helper_switches");
          const double slices = figure(rep, "monitor_slices");
          r.metrics["share_of_slices_on"] = slices > 0 ? figure(rep, "monitor_slices_on") / slices : 0;
          r.metrics["threshold_mbps"] = double(p.at("threshold_mbps"));
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
