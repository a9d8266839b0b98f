#include "tx_calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "gpmx/exec/errors.hpp"
#include "gpmx/support/scratch_dir.hpp"
#include "tx/write_test.hpp"
#include "tx_runs.hpp"

namespace gpmx::bench {

std::optional<std::size_t> crossover_of(std::span<const calibration_point> points) {
  if (points.empty() || points.back().on_over_off() <= 1.0) return std::nullopt;
  std::size_t first = points.size() - 1;
  while (first > 0 && points[first - 1].on_over_off() > 1.0) --first;
  return first;
}

std::optional<double> threshold_from(std::span<const calibration_point> points) {
  const std::optional<std::size_t> first = crossover_of(points);
  if (!first) return std::nullopt;
  if (*first == 0) return 1.0;  // helpers won at the lightest pressure measured
  const double below = points[*first - 1].off_persist_mbps, at = points[*first].off_persist_mbps;
  return std::max(1.0, std::sqrt(std::max(below, 0.0) * std::max(at, 0.0)));
}

std::vector<calibration_grid> calibration_grids(std::uint32_t blocks, std::uint32_t threads) {
  std::vector<calibration_grid> v;
  for (std::uint32_t b = 1; b < blocks; b *= 2) v.push_back({b, 32});
  v.push_back({blocks, 32});
  for (std::uint32_t t = 64; t < threads; t *= 2) v.push_back({blocks, t});
  if (threads > 32) v.push_back({blocks, threads});
  return v;
}

std::uint64_t threshold_param_mbps(std::optional<double> threshold) {
  if (!threshold) return std::numeric_limits<std::uint32_t>::max();
  return std::max<std::uint64_t>(1, std::uint64_t(std::llround(*threshold)));
}

namespace {

struct measured {
  std::vector<double> ns;
  std::vector<double> persist_mbps;  // off only
  std::uint64_t operations = 0;
  std::uint64_t slice_us = 0;
};

// The off runs: adaptive below any threshold. A run too short for three
// slices per launch is run again with slices a twelfth of a launch.
measured run_off(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir, apps::params p,
                 std::uint64_t bw, unsigned repeat) {
  p["helpers"] = 2;
  p["threshold_mbps"] = threshold_param_mbps(std::nullopt);
  measured m;
  for (unsigned k = 0; k < repeat; ++k) {
    tx_run r = run_tx_once(o, w, dir, p, bw);
    double mbps = tx_figure(r.report, "steady_persist_mbps");
    if (mbps < 0) {
      const double launch_us = r.ns / 1e3 / double(p.at("batches"));
      p["slice_us"] = std::clamp<std::uint64_t>(std::uint64_t(launch_us / 12), 1, 10'000'000);
      r = run_tx_once(o, w, dir, p, bw);
      mbps = tx_figure(r.report, "steady_persist_mbps");
      if (mbps < 0)
        throw std::runtime_error(fmt::format("bench tx --calibrate: a write test of {} ns made fewer than three "
                                             "monitor slices of {} us; raise per_thread (-p per_thread=N)",
                                             r.ns, p.at("slice_us")));
    }
    m.ns.push_back(r.ns);
    m.persist_mbps.push_back(mbps);
    m.operations = r.report.operations;
  }
  m.slice_us = p.at("slice_us");
  return m;
}

measured run_on(const tx_bench_options& o, apps::workload& w, const std::filesystem::path& dir, apps::params p,
                std::uint64_t bw, unsigned repeat) {
  p["helpers"] = 1;
  measured m;
  for (unsigned k = 0; k < repeat; ++k) {
    const tx_run r = run_tx_once(o, w, dir, p, bw);
    m.ns.push_back(r.ns);
    m.operations = r.report.operations;
  }
  return m;
}

}  // namespace

std::optional<double> calibrate_threshold(const tx_bench_options& o, std::uint64_t bw, std::vector<result>& rows) {
  const auto w = apps::tx::make_tx_write_test();
  apps::params given = o.small ? w->small_params() : apps::params{};
  // The sweep's -p values that the write test has (a grid, per_thread,
  // ring, seed...); a configuration's own (accounts, faces) are not its.
  const auto specs = w->parameters();
  for (const auto& [k, v] : o.overrides)
    if (std::any_of(specs.begin(), specs.end(), [&](const apps::param_spec& s) { return s.name == k; })) given[k] = v;
  given["nvram_mbps"] = o.timed ? 0 : bw;  // timed: the NVM model is the bandwidth
  const apps::params base = apps::resolve_params(*w, given);
  const unsigned repeat = o.timed ? 1 : o.repeat;  // the timed schedule is deterministic
  scratch_dir scratch(o.directory, "bench-tx-calibrate");
  const std::string label = tx_bandwidth_label(bw);
  std::vector<calibration_point> points;
  for (const calibration_grid& g : calibration_grids(std::uint32_t(base.at("blocks")), std::uint32_t(base.at("threads")))) {
    apps::params p = base;
    p["blocks"] = g.blocks;
    p["threads"] = g.threads;
    const std::uint64_t threads = std::uint64_t(g.blocks) * g.threads;
    if (o.progress) o.progress(fmt::format("calibration at {}: the write test with {} threads", label, threads));
    const measured off = run_off(o, *w, scratch / "write-test", p, bw, repeat);
    const measured on = run_on(o, *w, scratch / "write-test", p, bw, repeat);
    calibration_point c{threads, median(off.persist_mbps), median(off.ns), median(on.ns)};
    points.push_back(c);
    result r = make_result(fmt::format("calibrate_{}_{}t", label, threads), off.ns,
                           fmt::format("write test, {} blocks x {} threads, {} words a transaction, helpers off "
                                       "(its time) and on, NVRAM {}",
                                       g.blocks, g.threads, p.at("writes"), label));
    r.metrics["threads"] = double(threads);
    r.metrics["off_persist_mbps"] = c.off_persist_mbps;
    r.metrics["on_over_off"] = c.on_over_off();
    r.metrics["off_tx_per_s"] = c.off_ns > 0 ? double(off.operations) / (c.off_ns * 1e-9) : 0;
    r.metrics["on_tx_per_s"] = c.on_ns > 0 ? double(on.operations) / (c.on_ns * 1e-9) : 0;
    r.metrics["slice_us"] = double(off.slice_us);
    rows.push_back(std::move(r));
  }
  const std::optional<double> t = threshold_from(points);
  result r;
  r.name = fmt::format("calibrate_{}_threshold", label);
  r.metrics["threshold_mbps"] = t ? *t : -1;
  r.metrics["nvram_mbps"] = double(bw);
  const std::optional<std::size_t> first = crossover_of(points);
  const std::uint64_t crossover = first ? points[*first].threads : 0;
  r.metrics["crossover_threads"] = double(crossover);
  r.note = t ? fmt::format("helpers on win from {} threads: adaptive switches on above {:.0f} MB/s", crossover, *t)
             : "helpers on never win over off at this bandwidth: adaptive keeps them off";
  rows.push_back(std::move(r));
  return t;
}

std::map<std::uint64_t, std::optional<double>> read_calibration(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw config_error(fmt::format("bench tx: cannot read the calibration {}", file.string()));
  nlohmann::json rows;
  try {
    rows = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw config_error(fmt::format("bench tx: the calibration {} is not JSON ({})", file.string(), e.what()));
  }
  std::map<std::uint64_t, std::optional<double>> out;
  if (rows.is_array())
    for (const nlohmann::json& r : rows) {
      const std::string name = r.value("name", "");
      if (!name.starts_with("calibrate_") || !name.ends_with("_threshold")) continue;
      if (!r.contains("nvram_mbps") || !r.contains("threshold_mbps") || !r["nvram_mbps"].is_number() ||
          !r["threshold_mbps"].is_number())
        throw config_error(fmt::format("bench tx: the calibration {}: row {} lacks nvram_mbps or threshold_mbps",
                                       file.string(), name));
      const double t = r["threshold_mbps"].get<double>();
      out[std::uint64_t(std::llround(r["nvram_mbps"].get<double>()))] = t < 0 ? std::nullopt : std::optional(t);
    }
  if (out.empty())
    throw config_error(fmt::format("bench tx: {} holds no calibrate_<bandwidth>_threshold row (write one with "
                                   "`gpmx bench tx --calibrate-only --json --out FILE`)",
                                   file.string()));
  return out;
}

}  // namespace gpmx::bench
