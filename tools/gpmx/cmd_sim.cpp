// gpmx sim W: runs a workload in the timed mode, on a simulated GPU whose
// memory system gpmx_sim models (docs/sim.md), and reports simulated time,
// stalls, cache behaviour and traffic per device. --list-configs names the
// configurations; --set K=V changes any parameter; --bench times the
// simulator itself.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include "bam/storage_workload.hpp"
#include "commands.hpp"
#include "common/directory_lock.hpp"
#include "common/registry.hpp"
#include "gpmx/bench/sim_bench.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/sim/canonical_memory.hpp"
#include "gpmx/sim/gpu_model.hpp"
#include "gpmx/sim/report.hpp"
#include "gpmx/trace/recorder.hpp"
#include "kv_table.hpp"
#include "progress_bar.hpp"
#include "sim_crash_image.hpp"
#include "sim_order_check.hpp"
#include "sim_recovery_timing.hpp"
#include "sim_sizes.hpp"
#include "sim_storage.hpp"

namespace gpmx::cli {
namespace {

struct sim_args {
  std::string workload, style = "epoch", bug, data = "gpmx-data", config = "sbrp-table1", out, device = "optane-p5800x";
  std::vector<std::string> param_texts, sets;
  std::uint64_t seed = 1;
  std::optional<std::string> crash_at;  // cycles of the core clock, or "P%" of the run
  bool time_recovery = false;
  bool style_given = false;
  bool full_size = false, json = false, quiet = false, list_configs = false, bench = false, check_order = false;
  bench::sim_bench_options bench_opts;
};

sim::sim_config configure(const sim_args& a) {
  sim::sim_config c = sim::named_config(a.config);
  // The style picks the hardware that implements its model (sbrp code on a
  // persist buffer, epoch code on epoch barriers); --set persist.model=...
  // overrides it (gpm: GPM's system-scope fence).
  if (a.style == "sbrp") c.persist.model = sim::persist_model::sbrp;
  for (const std::string& kv : a.sets) sim::apply_setting(c, kv);
  sim::validate(c);
  return c;
}

void list_configs(const sim_args& a) {
  const sim::sim_config base = sim::named_config("sbrp-table1");
  nlohmann::json j = nlohmann::json::object();
  for (const std::string& name : sim::config_names()) {
    const sim::sim_config c = sim::named_config(name);
    std::string differs;
    nlohmann::json params = nlohmann::json::object();
    const auto mine = sim::describe(c), theirs = sim::describe(base);
    for (std::size_t i = 0; i < mine.size(); ++i) {
      params[mine[i].first] = mine[i].second;
      if (mine[i].first != "name" && mine[i].second != theirs[i].second)
        differs += fmt::format("{}{}={}", differs.empty() ? "" : " ", mine[i].first, mine[i].second);
    }
    j[name] = params;
    if (!a.json) fmt::print("{:<20} {}\n", name, differs.empty() ? "(the defaults below)" : differs);
  }
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("\nparameters of sbrp-table1 (set any with --set KEY=VALUE):\n");
  for (const auto& [k, v] : sim::describe(base))
    fmt::print("  {:<28} {:<12} {}\n", k, v, sim::parameter_unit(k));
}

// A workload's own figures (what gpmx run prints: a transaction benchmark's
// aborts, helper switches, ring occupancy), less those in seconds: those
// count the host's time, where every time here is simulated (the bandwidth
// monitor's slices run on virtual time, so its figures stay).
std::vector<std::pair<std::string, double>> simulated_figures(const apps::run_report& r) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& f : r.figures)
    if (!f.first.ends_with("_seconds")) out.push_back(f);
  return out;
}

std::string figures_table(const std::vector<std::pair<std::string, double>>& figures) {
  if (figures.empty()) return {};
  std::string out = "\nthe workload's figures\n";
  for (const auto& [name, value] : figures) out += fmt::format("  {:<32} {:g}\n", name, value);
  return out;
}

void do_sim(const sim_args& a) {
  if (a.list_configs) return list_configs(a);
  if (a.bench) {
    const sim::sim_config c = configure(a);
    const auto results = bench::run_sim_bench(c, a.bench_opts, !a.quiet && !a.json);
    const nlohmann::json j = {{"config", c.name}, {"results", bench::to_json(results)}};
    if (!a.out.empty()) std::ofstream(a.out) << j.dump(2) << "\n";
    if (a.json) fmt::print("{}\n", j.dump(2));
    else fmt::print("configuration {}\n{}", c.name, bench::to_table(results));
    return;
  }
  if (a.workload.empty())
    throw config_error("gpmx sim: name a workload (gpmx list), or use --list-configs or --bench");
  if ((a.crash_at || a.check_order) && apps::bam::find_storage_workload(a.workload) != nullptr)
    throw config_error(fmt::format("gpmx sim {}: --crash-at and --check-order are for PM workloads; a storage "
                                   "workload's data is on its devices, which the timed mode does not crash",
                                   a.workload));
  if (sim_storage_workload({a.workload, a.data, a.device, a.out, a.param_texts, a.full_size, a.json, a.quiet},
                           configure(a)))
    return;
  apps::workload& w = apps::find_workload(a.workload);
  apps::params given = a.full_size ? apps::params{} : w.small_params();
  for (const std::string& t : a.param_texts) apps::parse_param(t, given);
  const apps::params p = apps::resolve_params(w, given);
  note_test_sizes(a.workload, a.param_texts, a.full_size, a.quiet || a.json);
  // A seeded bug runs in the style it is written in unless --style says
  // otherwise (then the run refuses it, naming both).
  if (a.time_recovery && !a.crash_at) throw config_error("gpmx sim: --time-recovery needs --crash-at");
  if (a.crash_at) (void)crash_cycle(*a.crash_at, {}, 1);  // a bad value is refused before the run
  const apps::style s =
      !a.bug.empty() && !a.style_given ? apps::find_seeded_bug(w, a.bug).s : apps::parse_style(a.style);
  const sim::sim_config c = configure(a);
  const std::filesystem::path dir = std::filesystem::path(a.data) / a.workload;
  const auto lock = apps::lock_workload_directory(dir, true);

  sim::gpu_model gpu(c);
  std::optional<sim::durability_tracker> tracker;
  if (a.crash_at || a.check_order) {
    tracker.emplace(c.l1.line, c.l1.sector);
    gpu.track_durability(&*tracker);
  }
  trace::recorder recorder;  // --check-order: the run traced beside the model
  if (a.check_order) {
    tracker->remember_stores();
    gpu.set_passenger(&recorder);
  }
  std::optional<apps::run_report> rep;
  const auto t0 = std::chrono::steady_clock::now();
  {
    const pm::deterministic_pool_identity identity(a.seed);
    const sim::canonical_kernel_memory placement;  // cycles independent of the host's heap
    cpu::executor ex({.policy = cpu::schedule::timed, .seed = a.seed, .timing = &gpu});
    progress_bar bar(fmt::format("sim {}", a.workload), !a.quiet && !a.json);
    apps::env e{ex, dir, pm::durability::none, [&bar](double f) { bar.update(f); }};
    e.bug = a.bug;
    rep = w.run(e, p, s);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Verified on the cpu schedule: checking is not part of the simulated run.
  cpu::executor check_ex;
  const apps::verify_report v = w.verify({check_ex, dir});

  sim::run_summary sum{a.workload, std::string(apps::to_string(s)), p, wall, v.ok, v.detail, a.full_size};
  nlohmann::json j = sim::report_json(gpu, sum);
  const std::vector<std::pair<std::string, double>> figures = simulated_figures(*rep);
  j["workload_figures"] = nlohmann::json::object();
  for (const auto& [name, value] : figures) j["workload_figures"][name] = value;
  // The crash image replaces the files only after the whole run verified.
  std::optional<order_check_summary> order;
  if (a.check_order)
    order = check_sim_order(recorder.take(), *tracker, std::string(apps::to_string(s)), c.clock.core_mhz);
  if (order) j["durable_order"] = to_json(*order);
  std::optional<crash_image_summary> crash;
  if (a.crash_at && v.ok) {
    crash = write_crash_image(*tracker, gpu, crash_cycle(*a.crash_at, gpu.totals(), c.clock.core_mhz));
  }
  if (crash) j["crash"] = to_json(*crash);
  std::optional<recovery_timing> recovery;
  if (crash && a.time_recovery) recovery = time_recovery(w, dir, c, a.seed);
  if (recovery) j["recovery"] = to_json(*recovery);
  if (!a.out.empty()) std::ofstream(a.out) << j.dump(2) << "\n";
  if (a.json) fmt::print("{}\n", j.dump(2));
  else fmt::print("{}{}", sim::report_table(gpu, sum), figures_table(figures));
  if (order && !a.json) print_order_check(*order);
  if (crash && !a.json && !recovery) print_crash_image(*crash, a.workload, a.data);
  if (crash && !a.json && recovery) print_recovery_timing(*recovery);
  if (!v.ok || (order && order->result.violations != 0) || (recovery && !recovery->verified))
    throw exit_request{exit_check_failed};
}

}  // namespace

void register_sim(CLI::App& app) {
  auto a = std::make_shared<sim_args>();
  auto* sub = app.add_subcommand("sim", "Run a workload in the timed mode on a simulated GPU (docs/sim.md)");
  sub->add_option("workload", a->workload, "workload name (see gpmx list)");
  sub->add_option("-p,--param", a->param_texts, "NAME=VALUE, repeatable (applied over the test sizes)");
  sub->add_flag("--full-size", a->full_size, "start from the default sizes instead of the test sizes");
  sub->add_option("--style", a->style, "persist ordering: epoch or sbrp")->capture_default_str();
  sub->add_option("--config", a->config, "named configuration (--list-configs)")->capture_default_str();
  sub->add_option("--set", a->sets, "KEY=VALUE: change one parameter of the configuration, repeatable");
  sub->add_option("--seed", a->seed, "seed of the pools' identities (the timed schedule makes no random "
                                     "choice)")->capture_default_str();
  sub->add_option("--crash-at", a->crash_at,
                  "CYCLE, P%, launch:K:P% or launch:K:end: after the run, leave the pool files as the simulated NVM held them "
                  "at this cycle, share of the run, or share or last cycle of launch K (mid: the middle one); "
                  "then gpmx recover and gpmx verify");
  sub->add_flag("--time-recovery", a->time_recovery,
                "with --crash-at: run the workload's recovery on the image in the timed mode and report its time");
  sub->add_option("--bug", a->bug, "run with a seeded bug (gpmx check W --list-bugs), in its style");
  sub->add_flag("--check-order", a->check_order,
               "trace the run too and check that the hardware made PM stores durable in an order the "
               "workload's persistency model allows (exit 1 if not)");
  sub->add_option("--data", a->data, "directory for the workload's files (DATA/W)")->capture_default_str();
  sub->add_option("--device", a->device, "storage workloads: the devices' timing (optane-p5800x, nand-ssd)")
      ->capture_default_str();
  sub->add_option("--out", a->out, "also write the JSON report to this file");
  sub->add_flag("--json", a->json, "print JSON instead of a table");
  sub->add_flag("--quiet", a->quiet, "no progress bar");
  sub->add_flag("--list-configs", a->list_configs, "list the named configurations and every parameter");
  sub->add_flag("--bench", a->bench, "time the simulator on memory-bound, copy, spin and compute-bound kernels");
  sub->add_option("--bench-warps", a->bench_opts.warps, "--bench: warps of each kernel")->capture_default_str();
  sub->add_option("--bench-iterations", a->bench_opts.iterations, "--bench: loads (or work blocks) per thread")
      ->capture_default_str();
  sub->add_option("--bench-only", a->bench_opts.only,
                  "--bench: run only this kernel (memory_bound, memory_copy, spin, compute_bound; repeatable)");
  sub->add_option("--repeat", a->bench_opts.repeat, "--bench: runs per kernel (median reported)")
      ->capture_default_str();
  register_sim_figure(*sub);
  sub->callback([a, sub] {
    if (sub->got_subcommand("figure")) return;  // gpmx sim figure N ran instead
    a->style_given = sub->count("--style") > 0;
    do_sim(*a);
  });
}

}  // namespace gpmx::cli
