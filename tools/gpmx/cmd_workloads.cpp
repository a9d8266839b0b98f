// gpmx run | recover | verify W: the recoverable workloads, each keeping its
// files under DATA/W (./gpmx-data by default) so the three commands run in
// one directory work on the same data. --crash-after N runs the work in a
// child that a watchdog (this process) SIGKILLs after its Nth crash point,
// --kill-after-ms T one it SIGKILLs after T ms (a GPU kernel's stores make
// no crash points; its launch and end do). --backend cuda runs the kernels
// on the GPU.
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "cli_args.hpp"
#include "commands.hpp"
#include "common/crash_run.hpp"
#include "common/directory_lock.hpp"
#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "kv_table.hpp"
#include "progress_bar.hpp"
#include "storage_workload_cmd.hpp"

namespace gpmx::cli {
namespace {

struct workload_args {
  std::string workload;
  std::string data = "gpmx-data";
  std::string durability = "msync";
  unsigned workers = 0;
  std::uint64_t crash_after = 0, kill_after_ms = 0;
  std::string backend = "cpu";
  bool json = false, quiet = false;
  // run only
  std::string style = "epoch";
  std::vector<std::string> param_texts;
};

void add_common_options(CLI::App* sub, workload_args& a, bool crash) {
  sub->add_option("workload", a.workload, "workload name (see gpmx list)")->required();
  sub->add_option("--data", a.data, "directory holding every workload's data (DATA/W)")->capture_default_str();
  sub->add_option("--durability", a.durability, durability_help)
      ->capture_default_str();
  sub->add_option("--workers", a.workers, "executor worker threads (default: GPMX_WORKERS, else every core)");
  add_backend_option(sub, a.backend, "where kernels run: cpu (the cpu executor) or cuda (GPU 0)");
  if (crash) {
    sub->add_option("--crash-after", a.crash_after,
                    "SIGKILL the work right after its Nth crash point (PM store, commit step; on a GPU a kernel's "
                    "launch or end)");
    sub->add_option("--kill-after-ms", a.kill_after_ms,
                    "SIGKILL the work this many milliseconds after it started, wherever it is");
  }
  sub->add_flag("--json", a.json, "print JSON instead of a table");
  sub->add_flag("--quiet", a.quiet, "no progress bar");
}

// Runs work(env) here, or in a child killed at --crash-after; reports the
// crash in r when there is one. The executor is made where the work runs:
// the watchdog must fork before any thread exists.
template <class Work>
void run_work(const workload_args& a, const char* verb, kv_result& r, Work&& work) {
  const pm::durability mode = parse_durability(a.durability);
  const std::filesystem::path dir = std::filesystem::path(a.data) / a.workload;
  // Held until the work (and a --crash-after child, which shares it) ends.
  const auto lock = apps::lock_workload_directory(dir, std::string_view(verb) == "run");
  // Opened where the work runs: CUDA does not survive a fork.
  std::string device = kernels_run_on(nullptr);
  auto body = [&] {
    const auto gpu = open_backend(a.backend);
    device = kernels_run_on(gpu.get());
    cpu::executor ex({.workers = a.workers});
    progress_bar bar(fmt::format("{} {}", verb, a.workload), !a.quiet && !a.json);
    work(apps::env{launch_target(ex, gpu.get()), dir, mode, [&bar](double f) { bar.update(f); }});
  };
  if (a.crash_after == 0 && a.kill_after_ms == 0) {
    body();
    r.add("backend", "backend", device, device);
    return;
  }
  const apps::child_outcome out = apps::run_in_child(a.crash_after, body, a.kill_after_ms);
  if (out.failed) {
    if (out.bad_config) throw config_error(out.error);
    throw std::runtime_error(out.error);
  }
  const std::string how = out.timed_out ? fmt::format("yes: SIGKILL after {} ms", a.kill_after_ms)
                              : fmt::format("yes: SIGKILL after crash point {}", out.points);
  r.add("crashed", "crashed", out.killed,
        out.killed ? how : fmt::format("no: finished after {} crash points", out.points));
  r.add("crash points", "crash_points", out.points, fmt::format("{}", out.points));
  r.add("seconds", "seconds", out.seconds, fmt::format("{:.3f}", out.seconds));
}

// The storage (BaM) workloads share the verbs; what they cannot take is named.
bool storage_verb(const workload_args& a, std::string_view verb) {
  storage_command c{a.workload, a.data, a.workers, a.param_texts, a.json, a.quiet, a.backend, {}};
  if (a.crash_after != 0) c.inapplicable.push_back("--crash-after");
  if (a.kill_after_ms != 0) c.inapplicable.push_back("--kill-after-ms");
  if (a.style != "epoch") c.inapplicable.push_back("--style " + a.style);
  if (a.durability != "msync") c.inapplicable.push_back("--durability " + a.durability);
  return run_storage_workload(c, verb);
}

void do_run(const workload_args& a) {
  if (storage_verb(a, "run")) return;
  apps::workload& w = apps::find_workload(a.workload);
  apps::params given;
  for (const std::string& t : a.param_texts) apps::parse_param(t, given);
  const apps::params p = apps::resolve_params(w, given);
  const apps::style s = apps::parse_style(a.style);
  kv_result r;
  r.add("workload", "workload", a.workload, a.workload);
  r.add("style", "style", std::string(apps::to_string(s)), std::string(apps::to_string(s)));
  std::string shown;
  for (const auto& [k, v] : p) shown += fmt::format("{}{}={}", shown.empty() ? "" : " ", k, v);
  r.add("parameters", "parameters", p, shown);
  r.add("data", "data", (std::filesystem::path(a.data) / a.workload).string(),
        (std::filesystem::path(a.data) / a.workload).string());
  std::optional<apps::run_report> rep;
  run_work(a, "run", r, [&](const apps::env& e) { rep = w.run(e, p, s); });
  if (rep) {
    r.add("operations", "operations", rep->operations, fmt::format("{} {}", rep->operations, rep->unit));
    r.add("unit", "unit", rep->unit, rep->unit);
    r.add("batches", "batches", rep->batches, fmt::format("{}", rep->batches));
    r.add("seconds", "seconds", rep->seconds, fmt::format("{:.3f}", rep->seconds));
    const double rate = rep->seconds > 0 ? double(rep->operations) / rep->seconds : 0;
    r.add("throughput", "operations_per_second", rate, fmt::format("{:.0f} {}/s", rate, rep->unit));
    r.add("PM persisted", "bytes_persisted", rep->bytes_persisted, human_bytes(rep->bytes_persisted));
    for (const auto& [name, value] : rep->figures) r.add(name, name, value, fmt::format("{:g}", value));
  }
  print_result(r, a.json);
}

void do_recover(const workload_args& a) {
  if (storage_verb(a, "recover")) return;
  apps::workload& w = apps::find_workload(a.workload);
  kv_result r;
  r.add("workload", "workload", a.workload, a.workload);
  std::optional<apps::recover_report> rep;
  run_work(a, "recover", r, [&](const apps::env& e) { rep = w.recover(e); });
  if (rep) {
    r.add("repaired", "repaired", rep->repaired, rep->repaired ? "yes" : "no");
    r.add("what", "what", rep->what, rep->what);
    r.add("recovery time", "seconds", rep->seconds, fmt::format("{:.3f} s", rep->seconds));
  }
  print_result(r, a.json);
}

void do_verify(const workload_args& a) {
  if (storage_verb(a, "verify")) return;
  apps::workload& w = apps::find_workload(a.workload);
  kv_result r;
  r.add("workload", "workload", a.workload, a.workload);
  std::optional<apps::verify_report> rep;
  run_work(a, "verify", r, [&](const apps::env& e) { rep = w.verify(e); });
  r.add("verified", "ok", rep->ok, rep->ok ? "yes" : "NO");
  r.add("checked", "checked", rep->checked, fmt::format("{}", rep->checked));
  r.add("detail", "detail", rep->detail, rep->detail);
  print_result(r, a.json);
  if (!rep->ok) throw exit_request{exit_check_failed};
}

}  // namespace

void register_workload_commands(CLI::App& app) {
  auto run_args = std::make_shared<workload_args>();
  auto* run = app.add_subcommand("run", "Run a workload on fresh data under DATA/W (--crash-after N: kill it part-way)");
  add_common_options(run, *run_args, true);
  run->add_option("--style", run_args->style, "persist ordering: epoch (gpm_persist) or sbrp (ofence, scoped pacq/prel)")
      ->capture_default_str();
  run->add_option("-p,--param", run_args->param_texts, "NAME=VALUE, repeatable (gpmx list shows each workload's)");
  run->callback([run_args] { do_run(*run_args); });

  auto rec_args = std::make_shared<workload_args>();
  auto* rec = app.add_subcommand("recover", "Repair a workload's data after a crash (crash-safe itself)");
  add_common_options(rec, *rec_args, true);
  rec->callback([rec_args] { do_recover(*rec_args); });

  auto ver_args = std::make_shared<workload_args>();
  auto* ver = app.add_subcommand("verify", "Check a workload's data against a sequential reference (exit 1 if it differs)");
  add_common_options(ver, *ver_args, false);
  ver->callback([ver_args] { do_verify(*ver_args); });
}

}  // namespace gpmx::cli
