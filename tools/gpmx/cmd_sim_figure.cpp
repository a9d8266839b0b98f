// gpmx sim figure N: one of SBRP's figures (or gpmx's own additions) run as
// independent simulations in parallel, with gpmx's bars beside the paper's
// numbers, as a table, JSON, CSV and a PNG chart (docs/reproduction.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "child_status.hpp"
#include "commands.hpp"
#include "figure_plot.hpp"
#include "gpmx/scale/rank_jobs.hpp"
#include "gpmx/sim/config.hpp"
#include "gpmx/support/byte_wire.hpp"
#include "mpi_ranks.hpp"
#include "progress_bar.hpp"
#include "sim_figure_runner.hpp"
#include "sim_figures.hpp"

namespace gpmx::cli {
namespace {

namespace fs = std::filesystem;
using figures::config;
using figures::figure_def;
using figures::metric;

struct figure_args {
  std::string id, out = "gpmx-figures";
  unsigned jobs = 0;
  bool json = false, quiet = false, small = false, mpi = false;
  // The epoch and GPM bars as SBRP's simulator runs them: the SBRP program
  // on that hardware, every acquire try and block barrier a barrier too.
  bool artifact_baseline = false;
  double rank_timeout = 600;
  std::vector<std::string> sets;  // applied to every run
};

struct run_result {
  bool ok = false;  // the run ended and wrote its report
  bool verified = false;
  double kernel_ps = 0, pm_read_misses = 0, wall = 0;
  double recovery_ps = std::nan("");  // --time-recovery runs only
  std::string error;
};

// A run on epoch or GPM hardware as SBRP's simulator makes it: its epoch
// configurations run the SBRP program, each scoped operation a barrier.
config as_in_the_artifact(config c) {
  if (c.style != "epoch") return c;
  c.style = "sbrp";
  c.sets.push_back("persist.epoch_sync_barriers=true");
  return c;
}

std::string key_of(const std::string& w, const config& c) {
  return fmt::format("{}|{}|{}|{}", w, c.style, fmt::join(c.sets, ","), fmt::join(c.args, " "));
}

run_result read_result(const child_run& r, const fs::path& json) {
  run_result out;
  if (!r.exit.exited_with(0) && !r.exit.exited_with(exit_check_failed)) {
    out.error = fmt::format("{}: {}", describe_exit(r.exit), last_lines(r.log, 2));
    return out;
  }
  try {
    std::ifstream in(json);
    const nlohmann::json j = nlohmann::json::parse(in);
    out.kernel_ps = j.at("simulated").at("kernel_ps").get<double>();
    out.pm_read_misses = j.at("memory").at("l1").at("pm").at("load").at("misses").get<double>();
    out.verified = j.at("verified").get<bool>();
    out.wall = j.at("wall_seconds").get<double>();
    out.ok = true;
    if (!out.verified) out.error = "the workload's verify failed: " + j.value("verify_detail", std::string());
    if (j.contains("recovery")) {
      const nlohmann::json& rec = j.at("recovery");
      out.recovery_ps = rec.at("kernel_ps").get<double>();
      if (!rec.at("verified").get<bool>()) {
        out.verified = false;  // a run whose recovery left wrong data counts as a failed run
        out.error = "the workload did not verify after its recovery: " + rec.value("verify_detail", std::string());
      }
    }
  } catch (const std::exception& e) {
    out.error = fmt::format("unreadable report {}: {}", json.string(), e.what());
  }
  return out;
}

// One bar: NaN when a run it needs failed, or (scope share) when SBRP did
// not beat epoch at all.
double bar_value(const figures::series_def& s, const run_result& subject, const run_result& baseline,
                 const run_result* promoted) {
  const double nan = std::nan("");
  if (!subject.ok || !baseline.ok || (promoted && !promoted->ok)) return nan;
  switch (s.m) {
    case metric::speedup: return baseline.kernel_ps / subject.kernel_ps;
    case metric::pm_read_misses:
      return baseline.pm_read_misses > 0 ? subject.pm_read_misses / baseline.pm_read_misses : nan;
    case metric::recovery_time:
      return subject.recovery_ps > 0 && baseline.recovery_ps > 0 ? subject.recovery_ps / baseline.recovery_ps : nan;
    case metric::scope_share: {
      // Below 1% of the baseline's time there is no gain to split (the
      // share of a vanishing gain is noise).
      const double gain = baseline.kernel_ps - subject.kernel_ps;
      return gain > 0.01 * baseline.kernel_ps ? (promoted->kernel_ps - subject.kernel_ps) / gain : nan;
    }
  }
  return nan;
}

double mean_of(metric m, const std::vector<double>& v) {
  double sum = 0;
  std::size_t n = 0;
  for (double x : v) {
    if (std::isnan(x) || (m != metric::scope_share && x <= 0)) continue;
    sum += m == metric::scope_share ? x : std::log(x);
    ++n;
  }
  if (n == 0) return std::nan("");
  return m == metric::scope_share ? sum / double(n) : std::exp(sum / double(n));
}

std::string cell(double v, metric m) {
  if (std::isnan(v)) return "-";
  return m == metric::scope_share ? fmt::format("{:.0f}%", 100 * v) : fmt::format("{:.2f}", v);
}

// A missing file reads as empty: read_result then says the report is unreadable.
std::string file_text(const fs::path& p) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(p, ec);
  if (ec) return {};
  std::string out(size, '\0');
  std::ifstream in(p, std::ios::binary);
  in.read(out.data(), std::streamsize(size));
  out.resize(std::size_t(in.gcount()));
  return out;
}

// --mpi: the simulations spread over the ranks, one at a time on each
// (launch one rank per core); each run's exit, report and log go to rank
// 0, which writes them where a single process would have. Returns whether
// this is rank 0.
bool run_on_ranks(scale::rank_transport& ranks, std::vector<child_run>& runs, const fs::path& dir,
                  double rank_timeout) {
  const auto job = [&](std::size_t j, const std::function<void()>& alive) {
    std::vector<child_run> one = {runs[j]};
    run_children(one, 1, [](std::size_t, std::size_t) {}, alive);
    byte_writer w;
    w.u64(std::uint64_t(std::int64_t(one[0].exit.status)));
    w.u64(std::uint64_t(one[0].exit.signal));
    const fs::path report = one[0].args[std::size_t(std::find(one[0].args.begin(), one[0].args.end(), "--out") -
                                                    one[0].args.begin()) + 1];
    w.text(file_text(report));
    w.text(file_text(one[0].log));
    return w.take();
  };
  const std::optional<scale::job_results> done = scale::run_jobs_across_ranks(ranks, runs.size(), job, rank_timeout);
  if (!done) return false;
  for (const scale::lost_rank& l : done->lost)
    fmt::print(stderr, "gpmx: rank {} was lost ({}); rank 0 ran its {} simulations again\n", l.rank, l.why,
               l.images_held);
  for (std::size_t j = 0; j < runs.size(); ++j) {
    byte_reader r(done->results[j], fmt::format("simulation {} from rank {}", j, j % ranks.size()));
    runs[j].exit.status = int(std::int64_t(r.u64()));
    runs[j].exit.signal = int(r.u64());
    std::ofstream(dir / "runs" / fmt::format("{:03}.json", j)) << r.text();
    std::ofstream(dir / "runs" / fmt::format("{:03}.log", j)) << r.text();
    r.expect_end();
    runs[j].log = dir / "runs" / fmt::format("{:03}.log", j);
  }
  return true;
}

void do_figure(const figure_args& a) {
  const figure_def& fig = figures::find(a.id);
  if (a.artifact_baseline && !figures::has_epoch_runs(fig))
    throw sim::config_error(fmt::format("gpmx sim figure {}: --artifact-baseline changes SBRP's epoch and GPM bars, "
                                        "and this figure has none",
                                        fig.id));
  {  // a bad --set fails here, not in every child
    sim::sim_config check;
    for (const std::string& kv : a.sets) sim::apply_setting(check, kv);
  }
  std::unique_ptr<scale::rank_transport> ranks;
  if (a.mpi) ranks = join_mpi_ranks("sim figure");
  const fs::path dir = fs::path(a.out) / ("figure-" + fig.id);
  // Where this process's simulations write: rank 0 the figure's directory,
  // the others their own beside it (rank 0 gathers their reports).
  const fs::path work = rank_directory(dir.string(), ranks ? ranks->rank() : 0);
  fs::create_directories(work / "runs");
  const fs::path data = work / "data";

  // Every distinct run once: series share their baselines.
  std::map<std::string, std::size_t> index;
  std::vector<child_run> runs;
  // The run a bar's configuration stands for (--artifact-baseline changes
  // the epoch and GPM ones; the figure may add options by workload).
  const auto as_run = [&](const std::string& w, config c) {
    if (a.artifact_baseline) c = as_in_the_artifact(c);
    if (const auto it = fig.workload_args.find(w); it != fig.workload_args.end())
      c.args.insert(c.args.end(), it->second.begin(), it->second.end());
    return c;
  };
  const auto run_key = [&](const std::string& w, const config& c) { return key_of(w, as_run(w, c)); };
  auto need = [&](const std::string& w, const config& given) {
    const config c = as_run(w, given);
    const std::string k = key_of(w, c);
    if (const auto it = index.find(k); it != index.end()) return it->second;
    const std::size_t i = runs.size();
    index.emplace(k, i);
    child_run r;
    r.args = {"sim", w, "--json", "--quiet", "--out", (work / "runs" / fmt::format("{:03}.json", i)).string(),
              "--data", (data / fmt::format("{:03}", i)).string()};
    if (!c.style.empty()) r.args.insert(r.args.end(), {"--style", c.style});
    for (const std::string& s : c.sets) r.args.insert(r.args.end(), {"--set", s});
    r.args.insert(r.args.end(), c.args.begin(), c.args.end());
    for (const std::string& s : a.sets) r.args.insert(r.args.end(), {"--set", s});
    if (!a.small)
      for (const std::string& p : figures::figure_params(fig, w)) r.args.insert(r.args.end(), {"-p", p});
    r.log = work / "runs" / fmt::format("{:03}.log", i);
    runs.push_back(std::move(r));
    return i;
  };
  for (const auto& s : fig.series)
    for (const std::string& w : fig.workloads) {
      need(w, s.subject);
      need(w, s.baseline);
      if (s.m == metric::scope_share) need(w, s.promoted);
    }

  const unsigned jobs = ranks ? ranks->size() : a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  const auto t0 = std::chrono::steady_clock::now();
  if (ranks) {
    if (!run_on_ranks(*ranks, runs, dir, a.rank_timeout)) {
      std::error_code ec;
      fs::remove_all(work, ec);  // this rank's reports went to rank 0
      return;
    }
  } else {
    progress_bar bar(fmt::format("figure {}: {} simulations, {} at a time", fig.id, runs.size(), jobs),
                     !a.quiet && !a.json);
    run_children(runs, jobs, [&bar](std::size_t done, std::size_t total) { bar.update(double(done) / double(total)); });
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  fs::remove_all(data, ec);  // the workloads' pools: large, and of no use once verified

  std::vector<run_result> results;
  for (std::size_t i = 0; i < runs.size(); ++i)
    results.push_back(read_result(runs[i], dir / "runs" / fmt::format("{:03}.json", i)));

  nlohmann::json j;
  j["figure"] = fig.id;
  j["title"] = fig.title;
  j["value"] = fig.value_label;
  j["paper_says"] = fig.paper_says;
  j["workloads"] = fig.workloads;
  j["wall_seconds"] = wall;
  j["jobs"] = jobs;
  j["ranks"] = ranks ? ranks->size() : 1;
  j["sets"] = a.sets;
  j["artifact_baseline"] = a.artifact_baseline;
  j["sizes"] = a.small ? "the workloads' test sizes (--small)" : "the figure sizes (docs/reproduction.md)";
  // The parameters each workload ran with, so a figure's JSON says its sizes.
  nlohmann::json params = nlohmann::json::object();
  for (const std::string& w : fig.workloads)
    params[w] = a.small ? std::vector<std::string>{} : figures::figure_params(fig, w);
  j["params"] = params;
  nlohmann::json series = nlohmann::json::array();
  std::string csv = "figure,series,workload,gpmx,paper\n";
  std::vector<std::vector<double>> values(fig.series.size());
  for (std::size_t si = 0; si < fig.series.size(); ++si) {
    const auto& s = fig.series[si];
    nlohmann::json bars = nlohmann::json::array();
    for (const std::string& w : fig.workloads) {
      const run_result& sub = results[index.at(run_key(w, s.subject))];
      const run_result& base = results[index.at(run_key(w, s.baseline))];
      const run_result* prom = s.m == metric::scope_share ? &results[index.at(run_key(w, s.promoted))] : nullptr;
      const double v = bar_value(s, sub, base, prom);
      values[si].push_back(v);
      const auto p = fig.paper.find({w, s.name});
      nlohmann::json b = {{"workload", w}, {"gpmx", std::isnan(v) ? nlohmann::json() : nlohmann::json(v)},
                          {"subject_kernel_ps", sub.kernel_ps}, {"baseline_kernel_ps", base.kernel_ps}};
      if (p != fig.paper.end()) b["paper"] = p->second;
      if (s.m == metric::recovery_time) {
        b["subject_recovery_ps"] = std::isnan(sub.recovery_ps) ? nlohmann::json() : nlohmann::json(sub.recovery_ps);
        b["baseline_recovery_ps"] = std::isnan(base.recovery_ps) ? nlohmann::json() : nlohmann::json(base.recovery_ps);
      }
      bars.push_back(b);
      csv += fmt::format("{},{},{},{},{}\n", fig.id, s.name, w, std::isnan(v) ? "" : fmt::format("{:.4f}", v),
                         p != fig.paper.end() ? fmt::format("{:.4f}", p->second) : "");
    }
    const double mean = mean_of(s.m, values[si]);
    const auto p = fig.paper.find({"mean", s.name});
    nlohmann::json entry = {{"name", s.name},
                            {"bars", bars},
                            {"mean", std::isnan(mean) ? nlohmann::json() : nlohmann::json(mean)},
                            {"mean_kind", s.m == metric::scope_share ? "arithmetic" : "geometric"}};
    if (p != fig.paper.end()) entry["paper_mean"] = p->second;
    series.push_back(entry);
    csv += fmt::format("{},{},mean,{},{}\n", fig.id, s.name, std::isnan(mean) ? "" : fmt::format("{:.4f}", mean),
                       p != fig.paper.end() ? fmt::format("{:.4f}", p->second) : "");
  }
  j["series"] = series;
  nlohmann::json run_list = nlohmann::json::array();
  bool all_ok = true;
  for (const auto& [k, i] : index) {
    const run_result& r = results[i];
    all_ok = all_ok && r.ok && r.verified;
    run_list.push_back({{"run", k}, {"report", fmt::format("runs/{:03}.json", i)}, {"kernel_ps", r.kernel_ps},
                        {"verified", r.verified}, {"wall_seconds", r.wall}, {"error", r.error}});
  }
  j["runs"] = run_list;

  const fs::path json_path = dir / fmt::format("figure-{}.json", fig.id);
  std::ofstream(json_path) << j.dump(2) << "\n";
  std::ofstream(dir / fmt::format("figure-{}.csv", fig.id)) << csv;
  const std::string png = plot_figure(json_path, dir / fmt::format("figure-{}.png", fig.id));

  if (a.json) {
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("Figure {}: {}\n{}: gpmx (paper, where its text gives a number)\n\n", fig.id, fig.title,
               fig.value_label);
    fmt::print("{:<12}", "");
    for (const auto& s : fig.series) fmt::print(" {:>20}", s.name);
    fmt::print("\n");
    for (std::size_t wi = 0; wi <= fig.workloads.size(); ++wi) {
      const bool mean_row = wi == fig.workloads.size();
      const std::string w = mean_row ? "mean" : fig.workloads[wi];
      fmt::print("{:<12}", mean_row ? (fig.series.front().m == metric::scope_share ? "mean" : "geomean") : w);
      for (std::size_t si = 0; si < fig.series.size(); ++si) {
        const auto& s = fig.series[si];
        const double v = mean_row ? mean_of(s.m, values[si]) : values[si][wi];
        const auto p = fig.paper.find({w, s.name});
        fmt::print(" {:>20}", p == fig.paper.end() ? cell(v, s.m) : fmt::format("{} ({})", cell(v, s.m), cell(p->second, s.m)));
      }
      fmt::print("\n");
    }
    fmt::print("\nthe paper: {}\n", fig.paper_says);
    fmt::print("{} simulations in {:.0f} s ({} at a time); reports in {}\n", runs.size(), wall, jobs, dir.string());
    fmt::print("{}\n", png);
  }
  if (!all_ok) {
    for (const auto& [k, i] : index)
      if (!results[i].ok || !results[i].verified)
        fmt::print(stderr, "gpmx: figure {}: run {} failed: {}\n", fig.id, k, results[i].error);
    throw exit_request{exit_check_failed};
  }
}

}  // namespace

void register_sim_figure(CLI::App& sim) {
  auto a = std::make_shared<figure_args>();
  auto* sub = sim.add_subcommand("figure", "Reproduce one of SBRP's figures (6, 6-near, 7, 8, 9, 10a, 10b, 10c, 11), "
                                           "BaM's Figure 8 (bam-8, bam-8-large) or gpmx's additions (policies, "
                                           "pcie) in the timed mode");
  sub->add_option("figure", a->id, "figure id")->required();
  sub->add_option("--jobs", a->jobs, "simulations run at once (default: every core)");
  sub->add_option("--out", a->out, "directory for the figure's JSON, CSV, PNG and run reports")->capture_default_str();
  sub->add_flag("--json", a->json, "print JSON instead of a table");
  sub->add_flag("--quiet", a->quiet, "no progress bar");
  sub->add_option("--set", a->sets, "KEY=VALUE for every run (after the figure's own), repeatable");
  add_mpi_options(sub, a->mpi, a->rank_timeout,
                  "spread the simulations over the ranks, one at a time on each (one rank per core); rank 0 writes "
                  "the figure");
  sub->get_option("--jobs")->excludes(sub->get_option("--mpi"));
  sub->add_flag("--artifact-baseline", a->artifact_baseline,
                "run the epoch and GPM bars as SBRP's simulator does: the SBRP program on that hardware, with "
                "every persist acquire try and block barrier a barrier too (persist.epoch_sync_barriers)");
  sub->add_flag("--small", a->small, "run the workloads at their test sizes (seconds; the numbers mean little)");
  sub->callback([a] { do_figure(*a); });
}

}  // namespace gpmx::cli
