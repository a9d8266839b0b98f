// gpmx trace W -o FILE: runs a workload under the trace schedule (one OS
// thread, seeded interleaving, every PM access and ordering operation
// recorded with its thread and source line) and writes the trace file
// (docs/trace.md); --dump also prints it as text.
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "common/directory_lock.hpp"
#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/trace/dump.hpp"
#include "gpmx/pm/pool_identity.hpp"
#include "gpmx/trace/recorder.hpp"
#include "gpmx/trace/trace_file.hpp"
#include "kv_table.hpp"

namespace gpmx::cli {
namespace {

struct trace_args {
  std::string workload, out, style, bug, data = "gpmx-data";
  std::vector<std::string> param_texts;
  std::uint64_t seed = 1;
  bool full_size = false, dump = false, json = false;
};

void do_trace(const trace_args& a) {
  apps::workload& w = apps::find_workload(a.workload);
  apps::params given = a.full_size ? apps::params{} : w.small_params();
  for (const std::string& t : a.param_texts) apps::parse_param(t, given);
  const apps::params p = apps::resolve_params(w, given);
  std::string style_text = a.style;
  if (style_text.empty()) style_text = a.bug.empty() ? "epoch" : std::string(apps::to_string(apps::find_seeded_bug(w, a.bug).s));
  const apps::style s = apps::parse_style(style_text);
  const auto lock = apps::lock_workload_directory(std::filesystem::path(a.data) / a.workload, true);
  trace::recorder rec;
  {
    // Pools made by the run get identities from the seed: the same trace every time.
    const pm::deterministic_pool_identity identity(a.seed);
    cpu::executor ex({.policy = cpu::schedule::deterministic, .seed = a.seed, .observer = &rec});
    apps::env e{ex, std::filesystem::path(a.data) / a.workload, pm::durability::none};
    e.bug = a.bug;
    (void)w.run(e, p, s);
  }
  const trace::trace t = rec.take();
  trace::write_trace(t, a.out);
  if (a.dump) trace::dump(t, std::cout);
  kv_result r;
  r.add("workload", "workload", a.workload, a.workload);
  r.add("style", "style", std::string(apps::to_string(s)), std::string(apps::to_string(s)));
  if (!a.bug.empty()) r.add("bug", "bug", a.bug, a.bug);
  r.add("seed", "seed", a.seed, fmt::format("{}", a.seed));
  r.add("events", "events", t.events.size(), fmt::format("{}", t.events.size()));
  r.add("trace file", "file", a.out, a.out);
  print_result(r, a.json);
}

}  // namespace

void register_trace(CLI::App& app) {
  auto a = std::make_shared<trace_args>();
  auto* sub = app.add_subcommand("trace", "Run a workload under the trace schedule and write its trace file");
  sub->add_option("workload", a->workload, "workload name (see gpmx list)")->required();
  sub->add_option("-o,--out", a->out, "the trace file to write")->required();
  sub->add_option("--style", a->style, "persist ordering: epoch or sbrp (default epoch, or the bug's)");
  sub->add_option("--bug", a->bug, "run with a seeded bug (see gpmx check --list-bugs)");
  sub->add_option("-p,--param", a->param_texts, "NAME=VALUE, repeatable (applied over the test sizes)");
  sub->add_flag("--full-size", a->full_size, "start from the default sizes instead of the test sizes");
  sub->add_option("--seed", a->seed, "seed of the interleaving")->capture_default_str();
  sub->add_option("--data", a->data, "directory for the workload's files (DATA/W)")->capture_default_str();
  sub->add_flag("--dump", a->dump, "also print every event as text");
  sub->add_flag("--json", a->json, "print the summary as JSON");
  sub->callback([a] { do_trace(*a); });
}

}  // namespace gpmx::cli
