#include "tx_runs.hpp"

#include <chrono>
#include <fmt/format.h>

#include <stdexcept>

#include "gpmx/exec/cpu/executor.hpp"
#include "gpmx/exec/launch_target.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"

namespace gpmx::bench {

double tx_figure(const apps::run_report& r, const std::string& name) {
  for (const auto& [n, v] : r.figures)
    if (n == name) return v;
  throw std::logic_error(fmt::format("bench tx: the run reported no figure {}", name));
}

std::string tx_bandwidth_label(std::uint64_t mbps) {
  if (mbps == 0) return "native";
  if (mbps % 1000 == 0) return fmt::format("{}GBps", mbps / 1000);
  return fmt::format("{}MBps", mbps);
}

namespace {

// One run on the cpu executor, or with its kernels on o.gpu: NVRAM bytes
// are the throttle's charge, or on a GPU without one the kernels' PM stores.
tx_run on_cpu_or_gpu(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir,
                     const apps::params& p) {
  cpu::executor ex({.workers = o.workers});
  const std::uint64_t stored_before = o.gpu ? gpu_session::kernel_pm_store_bytes() : 0;
  tx_run r{w.run({launch_target(ex, o.gpu), dir, pm::durability::none}, p, apps::style::epoch)};
  r.ns = r.report.seconds * 1e9;
  r.nvram_bytes = o.gpu && p.at("nvram_mbps") == 0 ? double(gpu_session::kernel_pm_store_bytes() - stored_before)
                                                  : tx_figure(r.report, "nvram_bytes_charged");
  if (w.name() == "tx-bvh") {
    r.construction_s = tx_figure(r.report, "construction_seconds");
    r.reduction_s = tx_figure(r.report, "reduction_seconds");
  }
  return r;
}

// The timed mode: simulated kernel time on o.timed with NVM writes at bw.
// Pool identities and kernel memory placement are fixed, as in gpmx sim,
// so a row times the same in every run.
tx_run timed(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir, const apps::params& p,
             std::uint64_t bw_mbps) {
  sim::sim_config c = *o.timed;
  if (bw_mbps != 0) c.nvm.write_gbs = double(bw_mbps) / 1000.0;
  sim::validate(c);
  sim::gpu_model gpu(c);
  // A row at low bandwidth can simulate for an hour: say every minute that
  // it still advances.
  if (o.progress)
    gpu.on_heartbeat(std::chrono::minutes(1), [&o, start = std::chrono::steady_clock::now()](vtime now,
                                                                                           std::uint64_t n) {
      o.progress(fmt::format("  ... {:.1f} simulated us, {} warp instructions, {:.0f} s", double(now) / 1e6, n,
                             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    });
  tx_run r;
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

}  // namespace

tx_run run_tx_once(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir,
                   const apps::params& p, std::uint64_t bw_mbps) {
  return o.timed ? timed(o, w, dir, p, bw_mbps) : on_cpu_or_gpu(o, w, dir, p);
}

}  // namespace gpmx::bench
