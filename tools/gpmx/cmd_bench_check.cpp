// gpmx bench check: the checker's figures. Images checked per second on
// gpKVS with 1K SETs and on the reduction with 64K elements (correct code,
// the default mixed strategy unless told otherwise), and for every seeded
// bug the images and seconds each strategy needs to find it: the default
// (mixed) against drop-one alone, random, and the pmreorder-style baseline.
// With --mpi (docs/scale.md) every images/s run is split among the ranks,
// and the seeded-bug rows, independent runs, are spread over them.
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <optional>
#include <filesystem>
#include <memory>
#include <thread>

#include "bench_output.hpp"
#include "checker/workload_check.hpp"
#include "commands.hpp"
#include "common/registry.hpp"
#include "gpmx/scale/distributed_check.hpp"
#include "gpmx/scale/rank_jobs.hpp"
#include "gpmx/support/byte_wire.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "mpi_ranks.hpp"

namespace gpmx::cli {
namespace {

namespace fs = std::filesystem;

struct bench_check_args {
  std::size_t images = 2000;     // throughput runs
  std::size_t find_cap = 20000;  // most images a strategy may take to find a bug
  unsigned repeat = 3;
  unsigned images_per_worker = check::check_options{}.images_per_worker;
  std::string only, dir, out, throughput_strategy = "mixed";
  bool json = false, skip_throughput = false, skip_bugs = false, mpi = false;
  double rank_timeout = 150;
};

struct one_check {
  std::string workload, bug;
  apps::style s = apps::style::epoch;
  check::persist_model model = check::persist_model::epoch;
  apps::params given;
  check::image_strategy strategy = check::image_strategy::mixed;
  std::size_t max_images = 0;
  bool stop_at_first = false;
  unsigned images_per_worker = check::check_options{}.images_per_worker;
};

// One check; with ranks, split among them (every rank calls it alike, and
// only rank 0 gets the report).
std::optional<check::check_report> run_check(const one_check& c, const fs::path& scratch,
                                             scale::rank_transport* ranks = nullptr, double rank_timeout = 150,
                                             const std::function<void()>& alive = {}) {
  apps::workload& w = apps::find_workload(c.workload);
  apps::params given = w.small_params();
  for (const auto& [k, v] : c.given) given[k] = v;
  check::check_options o;
  o.model = c.model;
  o.strategy.strategy = c.strategy;
  o.max_images = c.max_images;
  o.max_granule_stores = std::size_t(1) << 20;
  o.stop_at_first = c.stop_at_first;
  o.jobs = std::max(1u, std::thread::hardware_concurrency());
  o.images_per_worker = c.images_per_worker;
  o.root = scratch / "traced";
  o.work_dir = scratch / "images";
  o.tick = alive;
  fs::remove_all(scratch);
  std::optional<check::check_report> r;
  if (!ranks) {
    r = apps::check_workload(w, apps::resolve_params(w, given), c.s, c.bug, 1, o);
  } else {
    const trace::trace t = apps::trace_workload(w, apps::resolve_params(w, given), c.s, c.bug, 1, o.root);
    o.traced_target = apps::workload_traced_target(w, o.granularity);
    if (auto d = scale::check_across_ranks(*ranks, t, apps::workload_target(w), o, {.rank_timeout_s = rank_timeout}))
      r = std::move(d->report);
  }
  fs::remove_all(scratch);
  return r;
}

std::string encode_row(const bench::result& r) {
  byte_writer w;
  w.text(r.name);
  w.f64(r.median_ns);
  w.u64(r.runs_ns.size());
  for (double ns : r.runs_ns) w.f64(ns);
  w.u64(r.metrics.size());
  for (const auto& [k, v] : r.metrics) {
    w.text(k);
    w.f64(v);
  }
  w.text(r.note);
  return w.take();
}

bench::result decode_row(const std::string& bytes) {
  byte_reader in(bytes, "a benchmark row from another rank");
  bench::result r;
  r.name = in.text();
  r.median_ns = in.f64();
  for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) r.runs_ns.push_back(in.f64());
  for (std::uint64_t n = in.u64(), i = 0; i < n; ++i) {
    std::string k = in.text();
    r.metrics[k] = in.f64();
  }
  r.note = in.text();
  in.expect_end();
  return r;
}

std::vector<bench::result> throughput(const bench_check_args& a, const fs::path& scratch,
                                      scale::rank_transport* ranks) {
  std::vector<bench::result> out;
  struct subject {
    std::string label, workload;
    apps::params given;
  };
  const subject subjects[] = {
      {"gpkvs-1k-sets", "gpkvs", {{"sets", 1024}, {"batch", 256}, {"batches", 4}, {"get_percent", 0}}},
      {"reduction-64k", "reduction", {{"elements", 65536}}},
  };
  for (const subject& s : subjects) {
    if (!a.only.empty() && a.only != s.workload) continue;
    for (apps::style st : {apps::style::epoch, apps::style::sbrp}) {
      const check::image_strategy strategy = check::parse_strategy(a.throughput_strategy);
      one_check c{s.workload, "", st, st == apps::style::sbrp ? check::persist_model::sbrp : check::persist_model::epoch,
                  s.given, strategy, a.images, false, a.images_per_worker};
      check::check_report last;
      std::vector<double> runs, rates;
      for (unsigned i = 0; i < a.repeat; ++i) {
        std::optional<check::check_report> r = run_check(c, scratch, ranks, a.rank_timeout);
        if (!r) continue;  // another rank's part of rank 0's run
        last = std::move(*r);
        runs.push_back(last.seconds * 1e9);
        rates.push_back(last.seconds > 0 ? double(last.images) / last.seconds : 0);
      }
      if (runs.empty()) continue;
      bench::result r = bench::make_result(fmt::format("check/{}/{}", s.label, apps::to_string(st)), runs,
                                            fmt::format("{} under the style's model, correct code",
                                                        check::to_string(strategy)));
      r.metrics["images"] = double(last.images);
      r.metrics["images_per_s"] = bench::median(rates);
      r.metrics["events"] = double(last.events);
      r.metrics["granule_stores"] = double(last.granule_stores);
      r.metrics["crash_points"] = double(last.crash_points);
      r.metrics["failed_images"] = double(last.failed_images);
      r.metrics["ranks"] = ranks ? double(ranks->size()) : 1.0;
      r.metrics["images_per_worker"] = double(a.images_per_worker);
      out.push_back(std::move(r));
    }
  }
  return out;
}

struct bug_row {
  std::string workload;
  apps::seeded_bug bug;
  check::image_strategy strategy;
};

bench::result find_bug(const bug_row& j, const bench_check_args& a, const fs::path& scratch,
                       const std::function<void()>& alive) {
  fmt::print(stderr, "bench: {} --bug {} --strategy {}\n", j.workload, j.bug.name, check::to_string(j.strategy));
  one_check c{j.workload, j.bug.name, j.bug.s, check::parse_model(j.bug.model), {}, j.strategy, a.find_cap, true,
              a.images_per_worker};
  const check::check_report r = *run_check(c, scratch, nullptr, a.rank_timeout, alive);
  const bool found = !r.failures.empty();
  bench::result row = bench::make_result(
      fmt::format("find/{}/{}/{}", j.workload, j.bug.name, check::to_string(j.strategy)), {r.seconds * 1e9},
      fmt::format("seeded bug under {}: stop at the first failing image", j.bug.model));
  row.metrics["found"] = found ? 1 : 0;
  row.metrics["images_to_find"] = double(found ? r.failures.front().found_after_images : r.images);
  row.metrics["seconds_to_find"] = found ? r.failures.front().found_after_s : r.seconds;
  row.metrics["scoped"] = found && r.failures.front().scoped_persistency_bug ? 1 : 0;
  return row;
}

// Each row stops at its first failure, so rows are not split: with ranks,
// they are spread over them whole.
std::vector<bench::result> bugs(const bench_check_args& a, const fs::path& scratch, scale::rank_transport* ranks) {
  std::vector<bug_row> rows;
  const check::image_strategy strategies[] = {check::image_strategy::mixed, check::image_strategy::drop_one,
                                              check::image_strategy::random, check::image_strategy::pmreorder};
  for (const auto& w : apps::all_workloads()) {
    if (!a.only.empty() && a.only != w->name()) continue;
    for (const apps::seeded_bug& b : w->seeded_bugs())
      for (check::image_strategy st : strategies) rows.push_back({std::string(w->name()), b, st});
  }
  std::vector<bench::result> out;
  if (!ranks) {
    for (const bug_row& j : rows) out.push_back(find_bug(j, a, scratch, {}));
    return out;
  }
  const auto done = scale::run_jobs_across_ranks(
      *ranks, rows.size(),
      [&](std::size_t j, const std::function<void()>& alive) { return encode_row(find_bug(rows[j], a, scratch, alive)); },
      a.rank_timeout);
  if (!done) return out;
  for (const scale::lost_rank& l : done->lost)
    fmt::print(stderr, "bench: rank {} was lost ({}); rank 0 ran its {} rows again\n", l.rank, l.why, l.images_held);
  for (const std::string& bytes : done->results) out.push_back(decode_row(bytes));
  return out;
}

}  // namespace

void register_bench_check(CLI::App& bench) {
  auto a = std::make_shared<bench_check_args>();
  auto* cmd = bench.add_subcommand("check", "The crash-consistency checker: images/s, and the time and images "
                                            "each strategy needs to find each seeded bug (pmreorder-style baseline "
                                            "beside them)");
  cmd->add_option("--images", a->images, "images per throughput run")->capture_default_str();
  cmd->add_option("--find-cap", a->find_cap, "most images a strategy may check looking for a bug")
      ->capture_default_str();
  cmd->add_option("--throughput-strategy", a->throughput_strategy, "strategy of the images/s runs")
      ->capture_default_str();
  cmd->add_option("--repeat", a->repeat, "throughput runs (median reported)")->capture_default_str();
  cmd->add_option("--images-per-worker", a->images_per_worker,
                  "images one worker process checks in turn (1: a fresh process per image)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--only", a->only, "one workload");
  cmd->add_option("--dir", a->dir, "scratch directory (default: the temporary directory)");
  cmd->add_flag("--no-throughput", a->skip_throughput, "skip the images/s runs");
  cmd->add_flag("--no-bugs", a->skip_bugs, "skip the seeded bugs");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  add_mpi_options(cmd, a->mpi, a->rank_timeout,
                  "split each images/s run among the ranks and spread the seeded-bug rows over them; rank 0 prints");
  cmd->callback([a] {
    std::unique_ptr<scale::rank_transport> ranks;
    if (a->mpi) ranks = join_mpi_ranks("bench check");
    const scratch_dir scratch(a->dir, "bench-check");  // each rank its own
    std::vector<bench::result> results;
    if (!a->skip_throughput) results = throughput(*a, scratch.path(), ranks.get());
    if (!a->skip_bugs)
      for (bench::result& r : bugs(*a, scratch.path(), ranks.get())) results.push_back(std::move(r));
    if (ranks && ranks->rank() != 0) return;
    print_results(results, a->json, a->out);
  });
}

}  // namespace gpmx::cli
