#include "gpmx/litmus/report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpmx::litmus {

namespace {

std::string memory_string(const program& p, const std::vector<value>& mem) {
  std::string s;
  for (std::size_t a = 0; a < mem.size(); ++a)
    s += fmt::format("{}{}={}", a ? " " : "", p.addr_name(static_cast<int>(a)), mem[a]);
  return s;
}

std::string expected_for(const check_result& r, const std::string& key) {
  for (const auto& e : r.expectations)
    if (e.expect.key == key) return e.ok() ? "" : fmt::format(" (expected {})", e.expect.expected);
  return "";
}

}  // namespace

std::string format_table(const std::vector<check_result>& results) {
  std::vector<std::string> header{"test"};
  if (!results.empty())
    for (const auto& v : results.front().models) header.emplace_back(to_string(v.model));
  header.emplace_back("sc-cond");
  header.emplace_back("system");
  header.emplace_back("execs");
  header.emplace_back("ms");
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : results) {
    std::vector<std::string> row{r.name};
    for (const auto& v : r.models) row.push_back(v.verdict() + expected_for(r, to_string(v.model)));
    row.push_back(r.cond_kind == condition_kind::none
                      ? "-"
                      : fmt::format("{}{}", r.cond ? "true" : "false", expected_for(r, "sc")));
    if (r.system) {
      row.push_back(fmt::format("{}{}{}", r.system->theorem_holds() ? "holds" : "BROKEN",
                                r.cond_kind == condition_kind::none ? "" : (r.system->cond ? "/true" : "/false"),
                                expected_for(r, "theorem") + expected_for(r, "system")));
    } else {
      row.emplace_back("-");
    }
    row.push_back(fmt::format("{}", r.sc.executions + (r.pq ? r.pq->executions : 0)));
    row.push_back(fmt::format("{:.1f}", r.seconds * 1000.0));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size(), 0);
  auto widen = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  };
  widen(header);
  for (const auto& row : rows) widen(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string s;
    for (std::size_t c = 0; c < row.size(); ++c) s += fmt::format("{:<{}}{}", row[c], width[c], c + 1 < row.size() ? "  " : "\n");
    return s;
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string format_details(const program& p, const check_result& r) {
  std::string out;
  for (const auto& v : r.models)
    for (const auto& [cls, w] : v.races)
      out += fmt::format("{} under {}: {}\n{}", r.name, to_string(v.model), w.pair, w.execution);
  if (r.system)
    for (const auto& m : r.system->non_sc)
      out += fmt::format("{}: the relaxed machine reaches {}, which no SC execution{} reaches\n", r.name,
                         memory_string(p, m), r.pq ? " of the quantum-equivalent program" : "");
  for (const auto& e : r.expectations)
    if (!e.ok())
      out += fmt::format("{}:{}: expected {} = {}, got {}\n", r.file, e.expect.pos.line, e.expect.key, e.expect.expected,
                         e.actual);
  return out;
}

nlohmann::json to_json(const program& p, const check_result& r) {
  nlohmann::json j;
  j["name"] = r.name;
  j["file"] = r.file;
  j["seconds"] = r.seconds;
  j["sc_executions"] = r.sc.executions;
  j["sc_complete"] = r.sc.complete;
  j["sc_steps"] = r.sc.steps;
  j["sc_sleep_blocked"] = r.sc.sleep_blocked;
  if (r.pq) {
    j["pq_executions"] = r.pq->executions;
    j["quantum_domain"] = r.domain;
  }
  for (const auto& v : r.models) {
    nlohmann::json m;
    m["verdict"] = v.verdict();
    m["legal"] = v.legal();
    for (const auto& [cls, w] : v.races) m["races"].push_back({{"class", to_string(cls)}, {"pair", w.pair}, {"execution", w.execution}});
    j["models"][to_string(v.model)] = m;
  }
  if (r.cond_kind != condition_kind::none) {
    j["condition"] = {{"kind", r.cond_kind == condition_kind::exists ? "exists" : "forall"},
                      {"sc", r.cond},
                      {"satisfying_executions", r.cond_satisfied}};
  }
  if (r.system) {
    nlohmann::json s;
    s["states"] = r.system->states;
    s["seconds"] = r.system->seconds;
    s["outcomes"] = r.system->outcomes;
    s["theorem_holds"] = r.system->theorem_holds();
    for (const auto& m : r.system->non_sc) s["non_sc_outcomes"].push_back(memory_string(p, m));
    if (r.cond_kind != condition_kind::none) s["condition"] = r.system->cond;
    j["system"] = s;
  }
  for (const auto& e : r.expectations)
    j["expectations"].push_back({{"key", e.expect.key},
                                 {"expected", e.expect.expected},
                                 {"checked", !e.actual.empty()},  // e.g. system keys without --system
                                 {"actual", e.actual},
                                 {"ok", e.ok()}});
  return j;
}

}  // namespace gpmx::litmus
