#include "gpmx/bench/report.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace gpmx::bench {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

result make_result(std::string name, std::vector<double> runs, std::string note) {
  result r;
  r.name = std::move(name);
  r.median_ns = median(runs);
  r.runs_ns = std::move(runs);
  r.note = std::move(note);
  return r;
}

nlohmann::json to_json(const std::vector<result>& results) {
  nlohmann::json out = nlohmann::json::array();
  for (const result& r : results) {
    nlohmann::json j = {{"name", r.name}, {"median_ns", r.median_ns}, {"runs_ns", r.runs_ns}};
    for (const auto& [k, v] : r.metrics) j[k] = v;
    if (!r.note.empty()) j["note"] = r.note;
    out.push_back(std::move(j));
  }
  return out;
}

std::string to_table(const std::vector<result>& results) {
  std::string out = fmt::format("{:<28} {:>14} {:>6}  {}\n", "benchmark", "median (ms)", "runs", "figures");
  for (const result& r : results) {
    std::string figures;
    for (const auto& [k, v] : r.metrics) figures += fmt::format("{}={:.3g}  ", k, v);
    out += fmt::format("{:<28} {:>14.3f} {:>6}  {}\n", r.name, r.median_ns / 1e6, r.runs_ns.size(), figures);
  }
  return out;
}

}  // namespace gpmx::bench
