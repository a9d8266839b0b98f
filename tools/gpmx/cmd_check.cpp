// gpmx check: the crash-consistency checker (docs/check.md). For a workload:
// trace one run on its test sizes, then check recovery on the crash images
// the persistency model allows. For any other program: check a trace file
// with commands that recover and check a directory of pool files.
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <iostream>
#include <memory>
#include <thread>

#include "checker/workload_check.hpp"
#include "child_status.hpp"
#include "commands.hpp"
#include "common/directory_lock.hpp"
#include "common/registry.hpp"
#include "gpmx/exec/errors.hpp"
#include "gpmx/support/child_process.hpp"
#include "gpmx/trace/trace_file.hpp"
#include "gpmx/scale/distributed_check.hpp"
#include "kv_table.hpp"
#include "mpi_ranks.hpp"
#include "option_checks.hpp"
#include "progress_bar.hpp"
#include "verify_command.hpp"

namespace gpmx::cli {
namespace {

namespace fs = std::filesystem;

struct check_args {
  std::string workload, model, style, bug, strategy = "mixed", data = "gpmx-data";
  std::string trace_file, root, verify_cmd;
  std::vector<std::string> param_texts;
  std::vector<std::uint64_t> at;
  std::size_t images = 0;  // 0: the strategy's default
  std::size_t pairs = 2000, multi_loss = 500;  // mixed: images in all for each multi-loss pass
  std::uint64_t seed = 1, every = 0;
  unsigned schedules = 1;  // trace schedules checked in turn: seeds seed .. seed + schedules - 1
  std::size_t crash_points = 0, max_images = 20000, max_granule_stores = std::size_t(1) << 16;
  std::uint32_t granularity = 8;
  unsigned jobs = 0;
  double timeout = 60;
  unsigned images_per_worker = check::check_options{}.images_per_worker;
  bool json = false, quiet = false, list_bugs = false, first = false;
  bool mpi = false;
  double rank_timeout = 150;
};

void list_bugs(bool json) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& w : apps::all_workloads())
    for (const apps::seeded_bug& b : w->seeded_bugs()) {
      if (!json) fmt::print("{:<12} {:<24} {}\n", w->name(), b.name, b.description);
      out.push_back({{"workload", w->name()}, {"bug", b.name}, {"style", apps::to_string(b.s)},
                     {"model", b.model}, {"description", b.description}});
    }
  if (json) std::cout << out.dump(2) << '\n';
}

void add_rank_rows(kv_result& k, const scale::distributed_report& d) {
  std::string checked;
  for (unsigned r = 0; r < d.images_checked.size(); ++r)
    checked += fmt::format("{}{}: {}", r ? ", " : "", r, d.images_checked[r]);
  const std::uint64_t exchanged = d.bytes_sent + d.bytes_received;
  nlohmann::json lost = nlohmann::json::array();
  for (const scale::lost_rank& l : d.lost)
    lost.push_back({{"rank", l.rank}, {"round", l.round}, {"why", l.why}, {"images_held", l.images_held},
                    {"checked_again_by", l.checked_again_by}});
  k.json["mpi"] = {{"ranks", d.ranks}, {"rounds", d.rounds}, {"images_checked", d.images_checked},
                   {"bytes_sent", d.bytes_sent}, {"bytes_received", d.bytes_received},
                   {"findings_bytes", d.findings_bytes},
                   {"bytes_per_image", d.report.images ? double(exchanged) / double(d.report.images) : 0.0},
                   {"lost", lost}};
  k.rows.push_back({"ranks", fmt::format("{} (images checked by rank: {})", d.ranks, checked)});
  k.rows.push_back({"exchanged", fmt::format("{} bytes by rank 0 ({:.1f} per image; findings {} bytes)", exchanged,
                                                  d.report.images ? double(exchanged) / double(d.report.images) : 0.0,
                                                  d.findings_bytes)});
  for (const scale::lost_rank& l : d.lost) {
    std::string heirs;
    for (unsigned h : l.checked_again_by) heirs += fmt::format("{}{}", heirs.empty() ? "" : ", ", h);
    k.rows.push_back({"lost rank", fmt::format("rank {} in round {}: {}; its {} images were checked again by "
                                                    "rank {}", l.rank, l.round + 1, l.why, l.images_held, heirs)});
  }
}

kv_result report_rows(const std::string& what, const check::check_report& r) {
  kv_result k;
  k.add("checked", "checked", what, what);
  k.add("model", "model", r.model, r.model);
  k.add("strategy", "strategy", r.strategy, r.strategy);
  k.add("events", "events", r.events, fmt::format("{}", r.events));
  k.add("granule-stores", "granule_stores", r.granule_stores, fmt::format("{}", r.granule_stores));
  k.add("crash points", "crash_points", r.crash_points,
        fmt::format("{} of {}", r.crash_points, r.crash_points_total));
  k.add("images checked", "images", r.images,
        fmt::format("{} ({} duplicates skipped)", r.images, r.duplicate_images));
  k.add("failed images", "failed_images", r.failed_images, fmt::format("{}", r.failed_images));
  k.add("failure causes", "causes", r.failures.size(), fmt::format("{}", r.failures.size()));
  k.add("search complete", "complete", r.complete, check::describe_coverage(r));
  k.json["coverage"] = {{"single_drops", r.coverage.single_drops},
                        {"single_drops_total", r.coverage.single_drops_total},
                        {"pairs", r.coverage.pairs},
                        {"pairs_total", r.coverage.pairs_total},
                        {"multi_loss_images", r.coverage.multi_loss_images},
                        {"summary", check::describe_coverage(r)}};
  k.add("time", "seconds", r.seconds, fmt::format("{:.2f} s ({:.0f} images/s)", r.seconds,
                                                  r.seconds > 0 ? double(r.images) / r.seconds : 0.0));
  nlohmann::json failures = nlohmann::json::array();
  for (const check::check_failure& f : r.failures)
    failures.push_back({{"cause", f.cause}, {"scoped_persistency_bug", f.scoped_persistency_bug},
                        {"crash_point", f.position}, {"crash_at", f.crash_at}, {"verdict", f.verdict},
                        {"why", f.why}, {"lost", f.lost}, {"kept", f.kept}, {"trusted", f.trusted}, {"lost_count", f.lost_count},
                        {"kept_may_stores", f.kept_count}, {"images", f.images},
                        {"found_after_s", f.found_after_s}, {"found_after_images", f.found_after_images},
                        {"kept_at", f.kept_at}, {"reads", f.reads}, {"read_lost", f.read_lost}});
  k.json["failures"] = failures;
  return k;
}

// Each failure's smallest image, for people; `schedule` names the trace
// schedule when several were checked.
void print_failures(const check::check_report& r, const std::string& schedule = {}) {
  for (std::size_t i = 0; i < r.failures.size(); ++i) {
    const check::check_failure& f = r.failures[i];
    fmt::print("\nFailure {} of {}{}{} ({}; found after {:.2f} s, {})\n", i + 1, r.failures.size(),
               schedule.empty() ? "" : " in the schedule of " + schedule,
               f.scoped_persistency_bug ? ": a scoped persistency bug" : "", count_of(f.images, "failing image"),
               f.found_after_s, count_of(f.found_after_images, "image"));
    fmt::print("  cause:    {}\n", f.cause);
    fmt::print("  crash:    {}\n", f.crash_at);
    fmt::print("  image:    {} persisted, {} lost; smallest failing image with this cause\n",
               count_of(f.kept_count, "may-store"), count_of(f.lost_count, "granule-store"));
    if (!f.trusted.empty()) fmt::print("  trusted:  {} (kept)\n", f.trusted);
    for (const std::string& l : f.lost) fmt::print("  lost:     {}\n", l);
    for (const std::string& s : f.kept) fmt::print("  kept:     {}\n", s);
    if (f.kept_count > f.kept.size())
      fmt::print("  kept:     ... {} more\n", count_of(f.kept_count - f.kept.size(), "may-store"));
    if (f.lost_count > f.lost.size())
      fmt::print("  lost:     ... {} more\n", count_of(f.lost_count - f.lost.size(), "granule-store"));
    for (std::size_t w = 1; w < f.why.size(); ++w) fmt::print("  also:     {}\n", f.why[w]);
    for (const std::string& read : f.read_lost) fmt::print("  read:     {}\n", read);
    if (!f.reads.empty() && f.cause.find(f.reads) == std::string::npos) fmt::print("  reads:    {}\n", f.reads);
    fmt::print("  verdict:  {}\n", f.verdict);
    if (!f.kept_at.empty()) fmt::print("  files:    {} (the image's files, to run recovery on again)\n", f.kept_at);
  }
}

void print_report(const std::string& what, const check::check_report& r, bool json,
                  const scale::distributed_report* ranks = nullptr) {
  kv_result k = report_rows(what, r);
  if (ranks) add_rank_rows(k, *ranks);
  print_result(k, json);
  if (!json) print_failures(r);
}

struct schedule_check {
  std::uint64_t seed = 0;
  check::check_report report;
};

// Several trace schedules of one workload: a table of one row per schedule,
// then the failures of each failing one (JSON: every schedule's report).
void print_schedules(const std::string& what, const std::vector<schedule_check>& done, unsigned asked, bool json) {
  std::vector<std::uint64_t> failing;
  for (const schedule_check& c : done)
    if (!c.report.failures.empty()) failing.push_back(c.seed);
  kv_result k;
  k.add("checked", "checked", what, what);
  if (!done.empty()) k.add("model", "model", done.front().report.model, done.front().report.model);
  k.add("schedules", "schedules_checked", done.size(),
        fmt::format("{} of {} checked{}", done.size(), asked,
                    done.size() < asked ? " (--first: stopped at the first failing one)" : ""));
  k.json["schedules_asked"] = asked;
  k.add("failing seeds", "failing_seeds", failing, failing.empty() ? "none" : fmt::format("{}", fmt::join(failing, ", ")));
  k.json["schedules"] = nlohmann::json::array();
  for (const schedule_check& c : done) {
    nlohmann::json one = report_rows(what, c.report).json;
    one["seed"] = c.seed;
    k.json["schedules"].push_back(std::move(one));
  }
  print_result(k, json);
  if (json) return;
  fmt::print("\n{:>6} {:>8} {:>13} {:>8} {:>7} {:>7} {:>9}\n", "seed", "events", "crash points", "images", "failed",
             "causes", "seconds");
  for (const schedule_check& c : done)
    fmt::print("{:>6} {:>8} {:>13} {:>8} {:>7} {:>7} {:>9.2f}\n", c.seed, c.report.events, c.report.crash_points,
               c.report.images, c.report.failed_images, c.report.failures.size(), c.report.seconds);
  for (const schedule_check& c : done) print_failures(c.report, fmt::format("seed {}", c.seed));
}

check::check_options options_from(const check_args& a, check::persist_model model) {
  check::check_options o;
  o.model = model;
  o.strategy.strategy = check::parse_strategy(a.strategy);
  if (a.granularity == 0 || (a.granularity & (a.granularity - 1)) != 0 || a.granularity > 4096)
    throw config_error(fmt::format("granularity {} is not a power of two from 1 to 4096", a.granularity));
  if (a.images) o.strategy.cap = o.strategy.random_images = a.images;
  o.strategy.seed = a.seed;
  o.strategy.pair_images = a.pairs;
  o.strategy.multi_loss_images = a.multi_loss;
  o.granularity = a.granularity;
  o.every_n = a.every;
  o.at = a.at;
  o.max_crash_points = a.crash_points;
  o.max_images = a.max_images;
  o.max_granule_stores = a.max_granule_stores;
  o.stop_at_first = a.first;
  o.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  o.timeout_s = a.timeout;
  o.images_per_worker = a.images_per_worker;
  return o;
}

// --at beyond the trace is a bad argument, found once the trace is known.
// --at positions lie within the trace and after its first kernel launch:
// before it the program is still setting up and has nothing to recover, so
// every image there would be reported as a failure of correct code.
void check_positions(const check_args& a, const trace::trace& t) {
  std::uint64_t first_launch = t.events.size();
  for (std::uint64_t i = 0; i < t.events.size(); ++i)
    if (t.events[i].kind == trace::event_kind::kernel_begin) {
      first_launch = i;
      break;
    }
  for (std::uint64_t p : a.at) {
    if (p > t.events.size())
      throw config_error(fmt::format("--at {}: the trace has only {} events", p, t.events.size()));
    if (p < first_launch)
      throw config_error(fmt::format("--at {}: lies before the first kernel launch (event {}), in the set-up, "
                                     "which has nothing to recover yet", p, first_launch));
  }
}

// Checks with a progress bar, prints the report, exits 1 on a failure.
// With ranks (--mpi), every rank checks its share and rank 0 alone reports.
void check_and_report(const std::string& what, const trace::trace& t, const check::image_target& target,
                      check::check_options o, const check_args& a, scale::rank_transport* ranks) {
  check_positions(a, t);
  const bool lead = !ranks || ranks->rank() == 0;
  progress_bar bar("check " + what, !a.quiet && !a.json && lead);
  o.progress = [&bar](double f) { bar.update(f); };
  if (!ranks) {
    const check::check_report r = check::check_trace(t, target, o);
    print_report(what, r, a.json);
    if (!r.failures.empty()) throw exit_request{exit_check_failed};
    return;
  }
  const std::optional<scale::distributed_report> d =
      scale::check_across_ranks(*ranks, t, target, o, {.rank_timeout_s = a.rank_timeout});
  if (!d) return;
  print_report(what, d->report, a.json, &*d);
  if (!d->report.failures.empty()) throw exit_request{exit_check_failed};
}

void check_trace_file(const check_args& a, scale::rank_transport* ranks) {
  if (a.verify_cmd.empty()) throw config_error("check --trace FILE needs --verify CMD (recovers and checks GPMX_IMAGE_DIR)");
  const trace::trace t = trace::read_trace(a.trace_file);
  if (t.pools.empty()) throw config_error(fmt::format("trace '{}' maps no pool: nothing to check", a.trace_file));
  check::check_options o = options_from(a, check::parse_model(a.model.empty() ? "sbrp" : a.model));
  o.root = a.root.empty() ? fs::path(t.pools.front().path).parent_path() : fs::path(a.root);
  const fs::path base = rank_directory((fs::path(a.data) / "check-trace").string(), ranks ? ranks->rank() : 0);
  o.work_dir = base / "images";
  const auto lock = apps::lock_workload_directory(base, true);
  o.keep_failures = base;
  o.traced_target = command_traced_target(a.verify_cmd, o.granularity);
  check_and_report(a.trace_file, t, command_target(a.verify_cmd), o, a, ranks);
}

void check_workload(const check_args& a, scale::rank_transport* ranks) {
  apps::workload& w = apps::find_workload(a.workload);
  std::string style_text = a.style, model_text = a.model;
  if (!a.bug.empty()) {
    const apps::seeded_bug b = apps::find_seeded_bug(w, a.bug);
    if (style_text.empty()) style_text = std::string(apps::to_string(b.s));
    if (model_text.empty()) model_text = b.model;
  }
  if (style_text.empty()) style_text = "epoch";
  const apps::style s = apps::parse_style(style_text);
  if (model_text.empty()) model_text = s == apps::style::sbrp ? "sbrp" : "epoch";
  apps::params given = w.small_params();
  for (const std::string& text : a.param_texts) apps::parse_param(text, given);
  const apps::params p = apps::resolve_params(w, given);
  check::check_options o = options_from(a, check::parse_model(model_text));

  const fs::path base =
      rank_directory(fs::absolute(fs::path(a.data) / "check" / a.workload).string(), ranks ? ranks->rank() : 0);
  const auto lock = apps::lock_workload_directory(base, true);
  o.root = base / "traced";
  o.work_dir = base / "images";
  o.keep_failures = base;
  const std::string what = fmt::format("{} ({} style{})", a.workload, apps::to_string(s),
                                       a.bug.empty() ? std::string() : ", seeded bug " + a.bug);
  o.traced_target = apps::workload_traced_target(w, o.granularity);
  if (a.schedules <= 1) {
    const trace::trace t = apps::trace_workload(w, p, s, a.bug, a.seed, o.root);
    check_and_report(what, t, apps::workload_target(w), o, a, ranks);
    return;
  }
  // Bugs that need two threads interleaved a certain way show only in some
  // schedules: each seed traces its own interleaving and is checked alone,
  // its failing images kept under seed-S.
  std::vector<schedule_check> done;
  for (unsigned i = 0; i < a.schedules; ++i) {
    const std::uint64_t seed = a.seed + i;
    check::check_options os = o;
    os.strategy.seed = seed;
    os.keep_failures = base / fmt::format("seed-{}", seed);
    check::check_report r;
    {
      progress_bar bar(fmt::format("check {} seed {} ({} of {})", a.workload, seed, i + 1, a.schedules),
                       !a.quiet && !a.json);
      os.progress = [&bar](double f) { bar.update(f); };
      const trace::trace t = apps::trace_workload(w, p, s, a.bug, seed, os.root);
      r = check::check_trace(t, apps::workload_target(w), os);
    }
    done.push_back({seed, std::move(r)});
    if (a.first && !done.back().report.failures.empty()) break;
  }
  print_schedules(what, done, a.schedules, a.json);
  for (const schedule_check& c : done)
    if (!c.report.failures.empty()) throw exit_request{exit_check_failed};
}

void do_check(const check_args& a) {
  if (a.list_bugs) return list_bugs(a.json);
  if (!a.trace_file.empty() && !a.workload.empty()) throw config_error("give a workload or --trace FILE, not both");
  if (a.trace_file.empty() && a.workload.empty())
    throw config_error("check needs a workload (see gpmx list), --trace FILE or --list-bugs");
  std::unique_ptr<scale::rank_transport> ranks;
  if (a.mpi) {
    if (a.first)
      throw config_error("--first cannot be used with --mpi: each rank checks other images and would stop at its "
                         "own first failure");
    ranks = join_mpi_ranks("check");
  }
  if (!a.trace_file.empty()) return check_trace_file(a, ranks.get());
  check_workload(a, ranks.get());
}

}  // namespace

void register_check(CLI::App& app) {
  auto a = std::make_shared<check_args>();
  auto* sub = app.add_subcommand("check", "Check that a workload (or a traced program) recovers from every crash "
                                          "image a persistency model allows");
  sub->add_option("workload", a->workload, "workload name (see gpmx list)");
  sub->add_option("--model", a->model, "strict, epoch, sbrp or sbrp-promoted (default: the style's, or the bug's)");
  sub->add_option("--style", a->style, "epoch or sbrp (default epoch, or the bug's)");
  sub->add_option("--bug", a->bug, "run with a seeded bug (see --list-bugs)");
  sub->add_option("--strategy", a->strategy, "images per crash point: mixed (drop-one, then pairs of lost stores, then "
                                              "random multi-loss images), minimal, maximal, drop-one, random, "
                                              "exhaustive, or pmreorder (a baseline that knows no threads or scopes)")
      ->capture_default_str();
  sub->add_option("--images", a->images, "per crash point: images to draw (random, pmreorder), or the cap of "
                                         "drop-one and exhaustive (defaults 16 and 4096)");
  sub->add_option("--pairs", a->pairs, "mixed: images in all for pairs of lost stores")->capture_default_str();
  sub->add_option("--multi-loss", a->multi_loss, "mixed: random images in all that lose two or more stores")
      ->capture_default_str();
  sub->add_option("--seed", a->seed, "seed of the interleaving and of random images")->capture_default_str();
  sub->add_option("--schedules", a->schedules, "trace and check N schedules of the workload in turn, seeds S to "
                                              "S+N-1 (S: --seed); --first stops at the first that fails")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000000u));
  sub->add_option("--granularity", a->granularity, "bytes a store persists in at once: 4, 8 or 64")
      ->capture_default_str();
  sub->add_option("--every", a->every, "crash every N events instead of before each ordering operation");
  sub->add_option("--max-images", a->max_images, "images in all, shared evenly by the crash points (0: no limit)")
      ->capture_default_str();
  sub->add_option("--at", a->at, "crash exactly at this position (events before it happened), repeatable");
  sub->add_option("--max-granule-stores", a->max_granule_stores,
                  "refuse traces with more granule-stores (the order's memory grows with their square at worst)")
      ->capture_default_str();
  sub->add_option("--crash-points", a->crash_points, "check at most N crash points, evenly spread (0: all)");
  sub->add_option("-p,--param", a->param_texts, "NAME=VALUE, repeatable (applied over the test sizes)");
  sub->add_option("--jobs", a->jobs, "images checked at once (default: every core)");
  sub->add_option("--timeout", a->timeout, "seconds one image's recovery and check may take")
      ->capture_default_str()
      ->check(positive_seconds());
  sub->add_option("--images-per-worker", a->images_per_worker,
                  "images one worker process checks in turn; it also ends after a failed image "
                  "(1: a fresh process per image)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub->add_option("--data", a->data, "scratch directory (DATA/check/W)")->capture_default_str();
  sub->add_option("--trace", a->trace_file, "check this trace file (gpmx trace, or a program's own recording)");
  sub->add_option("--root", a->root, "with --trace: the directory the program kept its pools in");
  sub->add_option("--verify", a->verify_cmd, "with --trace: a command that recovers and checks the pools in "
                                             "$GPMX_IMAGE_DIR, exiting 0 when consistent");
  sub->add_flag("--first", a->first, "stop at the first failing image (the images checked until then stay "
                                     "in the count)");
  add_mpi_options(sub, a->mpi, a->rank_timeout,
                  "split the images among the ranks; rank 0 prints the report a single process would");
  sub->add_flag("--list-bugs", a->list_bugs, "list the seeded bugs: workload, bug, description");
  sub->add_flag("--json", a->json, "print the report as JSON");
  sub->add_flag("-q,--quiet", a->quiet, "no progress bar");
  // Options that would otherwise be silently ignored together.
  auto* trace_opt = sub->get_option("--trace");
  for (const char* o : {"workload", "--bug", "--style", "--param", "--list-bugs", "--schedules"})
    trace_opt->excludes(sub->get_option(o));
  // Event positions and ranks' shares belong to one trace.
  for (const char* o : {"--at", "--mpi"}) sub->get_option("--schedules")->excludes(sub->get_option(o));
  for (const char* o : {"--root", "--verify"}) sub->get_option(o)->needs(trace_opt);
  auto* at_opt = sub->get_option("--at");
  for (const char* o : {"--every", "--crash-points"}) at_opt->excludes(sub->get_option(o));
  auto* list_opt = sub->get_option("--list-bugs");
  for (const char* o : {"workload", "--bug", "--style", "--param", "--model", "--at", "--mpi"})
    list_opt->excludes(sub->get_option(o));
  sub->callback([a] { do_check(*a); });
}

}  // namespace gpmx::cli
