// gpmx bench check: the checker's figures. Images checked per second on
// gpKVS with 1K SETs and on the reduction with 64K elements (correct code,
// the default mixed strategy unless told otherwise), and for every seeded
// bug the images and seconds each strategy needs to find it: the default
// (mixed) against drop-one alone, random, and the pmreorder-style baseline.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include "bench_output.hpp"
#include "checker/workload_check.hpp"
#include "commands.hpp"
#include "common/registry.hpp"
#include "gpmx/support/scratch_dir.hpp"

namespace gpmx::cli {
namespace {

namespace fs = std::filesystem;

struct bench_check_args {
  std::size_t images = 2000;     // throughput runs
  std::size_t find_cap = 20000;  // most images a strategy may take to find a bug
  unsigned repeat = 3;
  std::string only, dir, out, throughput_strategy = "mixed";
  bool json = false, skip_throughput = false, skip_bugs = false;
};

struct one_check {
  std::string workload, bug;
  apps::style s = apps::style::epoch;
  check::persist_model model = check::persist_model::epoch;
  apps::params given;
  check::image_strategy strategy = check::image_strategy::mixed;
  std::size_t max_images = 0;
  bool stop_at_first = false;
};

check::check_report run_check(const one_check& c, const fs::path& scratch) {
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
  o.root = scratch / "traced";
  o.work_dir = scratch / "images";
  fs::remove_all(scratch);
  check::check_report r = apps::check_workload(w, apps::resolve_params(w, given), c.s, c.bug, 1, o);
  fs::remove_all(scratch);
  return r;
}

std::vector<bench::result> throughput(const bench_check_args& a, const fs::path& scratch) {
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
                  s.given, strategy, a.images, false};
      check::check_report last;
      std::vector<double> runs, rates;
      for (unsigned i = 0; i < a.repeat; ++i) {
        last = run_check(c, scratch);
        runs.push_back(last.seconds * 1e9);
        rates.push_back(last.seconds > 0 ? double(last.images) / last.seconds : 0);
      }
      bench::result r = bench::make_result(fmt::format("check/{}/{}", s.label, apps::to_string(st)), runs,
                                            fmt::format("{} under the style's model, correct code",
                                                        check::to_string(strategy)));
      r.metrics["images"] = double(last.images);
      r.metrics["images_per_s"] = bench::median(rates);
      r.metrics["events"] = double(last.events);
      r.metrics["granule_stores"] = double(last.granule_stores);
      r.metrics["crash_points"] = double(last.crash_points);
      r.metrics["failed_images"] = double(last.failed_images);
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<bench::result> bugs(const bench_check_args& a, const fs::path& scratch) {
  std::vector<bench::result> out;
  const check::image_strategy strategies[] = {check::image_strategy::mixed, check::image_strategy::drop_one,
                                              check::image_strategy::random, check::image_strategy::pmreorder};
  for (const auto& w : apps::all_workloads()) {
    if (!a.only.empty() && a.only != w->name()) continue;
    for (const apps::seeded_bug& b : w->seeded_bugs())
      for (check::image_strategy st : strategies) {
        fmt::print(stderr, "bench: {} --bug {} --strategy {}\n", w->name(), b.name, check::to_string(st));
        one_check c{std::string(w->name()), b.name, b.s, check::parse_model(b.model), {}, st, a.find_cap, true};
        const check::check_report r = run_check(c, scratch);
        const bool found = !r.failures.empty();
        bench::result row = bench::make_result(
            fmt::format("find/{}/{}/{}", w->name(), b.name, check::to_string(st)), {r.seconds * 1e9},
            fmt::format("seeded bug under {}: stop at the first failing image", b.model));
        row.metrics["found"] = found ? 1 : 0;
        row.metrics["images_to_find"] = double(found ? r.failures.front().found_after_images : r.images);
        row.metrics["seconds_to_find"] = found ? r.failures.front().found_after_s : r.seconds;
        row.metrics["scoped"] = found && r.failures.front().scoped_persistency_bug ? 1 : 0;
        out.push_back(std::move(row));
      }
  }
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
  cmd->add_option("--only", a->only, "one workload");
  cmd->add_option("--dir", a->dir, "scratch directory (default: the temporary directory)");
  cmd->add_flag("--no-throughput", a->skip_throughput, "skip the images/s runs");
  cmd->add_flag("--no-bugs", a->skip_bugs, "skip the seeded bugs");
  cmd->add_flag("--json", a->json, "print JSON instead of a table");
  cmd->add_option("--out", a->out, "also write the JSON to this file");
  cmd->callback([a] {
    const scratch_dir scratch(a->dir, "bench-check");
    std::vector<bench::result> results;
    if (!a->skip_throughput) results = throughput(*a, scratch.path());
    if (!a->skip_bugs)
      for (bench::result& r : bugs(*a, scratch.path())) results.push_back(std::move(r));
    print_results(results, a->json, a->out);
  });
}

}  // namespace gpmx::cli
