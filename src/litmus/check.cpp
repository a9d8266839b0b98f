#include "gpmx/litmus/check.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "gpmx/litmus/eval.hpp"
#include "gpmx/support/elapsed.hpp"

namespace gpmx::litmus {

std::string model_verdict::verdict() const {
  if (races.empty()) return "legal";
  std::vector<std::string> names;
  for (const auto& [c, w] : races) names.emplace_back(to_string(c));
  std::sort(names.begin(), names.end());
  std::string s;
  for (std::size_t k = 0; k < names.size(); ++k) s += (k ? "," : "") + names[k];
  return s;
}

bool check_result::expectations_ok() const {
  return std::all_of(expectations.begin(), expectations.end(), [](const expectation_result& e) { return e.ok(); });
}

namespace {

// Every class a model can report: once all are found, later executions cannot change its verdict.
std::size_t possible_classes(consistency_model m) {
  switch (m) {
    case consistency_model::drf0:
    case consistency_model::drf1: return 1;
    case consistency_model::hrf_direct:
    case consistency_model::hrf_indirect: return 2;
    case consistency_model::drfrlx: return 5;
  }
  return 0;
}

bool settled(const model_verdict& v) { return v.races.size() >= possible_classes(v.model); }

void record(const program& p, const execution& x, const std::vector<race>& races, model_verdict& v) {
  for (const race& r : races) {
    if (v.races.count(r.cls) != 0) continue;
    witness w;
    w.pair = fmt::format("{} race between #{} {} and #{} {}", to_string(r.cls), r.first,
                         describe_event(p, x.events[static_cast<std::size_t>(r.first)]), r.second,
                         describe_event(p, x.events[static_cast<std::size_t>(r.second)]));
    w.execution = describe_execution(p, x);
    v.races.emplace(r.cls, std::move(w));
  }
}

}  // namespace

check_result check_program(const program& p, const check_options& opt) {
  const auto start = std::chrono::steady_clock::now();
  check_result res;
  res.name = p.name;
  res.file = p.file;
  std::vector<consistency_model> models = opt.models;
  if (models.empty()) models.assign(std::begin(all_models), std::end(all_models));
  for (consistency_model m : models) res.models.push_back(model_verdict{m, {}});
  const bool quantum = p.has_label(access_label::quantum);
  res.cond_kind = p.cond_kind;

  // SC executions of P: DRF0, DRF1, HRF (and DRFrlx when P = Pq), the final condition.
  std::set<value> seen_values(p.domain.begin(), p.domain.end());
  std::set<std::vector<value>> sc_memories;
  bool any_complete = false, all_sat = true, any_sat = false;
  enumerate_options eo;
  eo.reduce = opt.reduce;
  res.sc = enumerate_sc(p, eo, [&](const execution& x) {
    bool need = false;
    for (const auto& v : res.models) need = need || (!settled(v) && !(v.model == consistency_model::drfrlx && quantum));
    if (need) {
      const execution_relations r = compute_relations(x);
      for (auto& v : res.models) {
        if ((v.model == consistency_model::drfrlx && quantum) || settled(v)) continue;
        record(p, x, find_races(v.model, x, r), v);
      }
    }
    if (quantum && p.domain.empty())
      for (const event& e : x.events) {
        if (e.reads) seen_values.insert(e.rval);
        if (e.writes) seen_values.insert(e.wval);
      }
    if (!x.complete) return;
    any_complete = true;
    if (!quantum) sc_memories.insert(x.final_mem);
    if (p.cond_kind != condition_kind::none) {
      const bool sat = eval_final(p.cond, p, x.final_mem, x.regs) != 0;
      res.cond_satisfied += sat ? 1 : 0;
      any_sat = any_sat || sat;
      all_sat = all_sat && sat;
    }
  });
  res.cond = p.cond_kind == condition_kind::exists ? any_sat : (all_sat && any_complete);

  // Pq: quantum accesses load and store arbitrary values of a bounded domain.
  if (quantum) {
    // The domain always holds every program constant; an explicit `domain`
    // adds values, otherwise the values SC executions of P produce are added.
    std::set<value> dom(p.domain.begin(), p.domain.end());
    for (value v : program_constants(p)) dom.insert(v);
    if (p.domain.empty()) dom.insert(seen_values.begin(), seen_values.end());
    res.domain.assign(dom.begin(), dom.end());
    enumerate_options q;
    q.quantum_equivalent = true;
    q.reduce = opt.reduce;
    q.domain = res.domain;
    auto* rlx = static_cast<model_verdict*>(nullptr);
    for (auto& v : res.models)
      if (v.model == consistency_model::drfrlx) rlx = &v;
    res.pq = enumerate_sc(p, q, [&](const execution& x) {
      if (rlx != nullptr && !settled(*rlx)) record(p, x, find_races(consistency_model::drfrlx, x, compute_relations(x)), *rlx);
      if (x.complete) sc_memories.insert(x.final_mem);
    });
  }

  if (opt.system) {
    const auto machine_start = std::chrono::steady_clock::now();
    const machine_result m = run_machine(p);
    system_verdict sv;
    sv.states = m.states;
    sv.stuck = m.stuck;
    sv.outcomes = m.outcomes.size();
    std::set<std::vector<value>> reported;
    bool any = false, all = true;
    for (const auto& o : m.outcomes) {
      if (sc_memories.count(o.mem) == 0 && reported.insert(o.mem).second) sv.non_sc.push_back(o.mem);
      if (p.cond_kind != condition_kind::none) {
        const bool sat = eval_final(p.cond, p, o.mem, o.regs) != 0;
        any = any || sat;
        all = all && sat;
      }
    }
    sv.cond = p.cond_kind == condition_kind::exists ? any : (all && !m.outcomes.empty());
    sv.seconds = seconds_since(machine_start);
    res.system = sv;
  }

  for (const auto& e : p.expects) {
    expectation_result er{e, ""};
    if (e.key == "sc") {
      er.actual = res.cond ? "true" : "false";
    } else if (e.key == "system") {
      if (res.system) er.actual = res.system->cond ? "true" : "false";
    } else if (e.key == "theorem") {
      if (res.system) er.actual = res.system->theorem_holds() ? "holds" : "broken";
    } else {
      for (const auto& v : res.models)
        if (e.key == to_string(v.model)) er.actual = v.verdict();
    }
    res.expectations.push_back(er);
  }
  res.seconds = seconds_since(start);
  return res;
}

}  // namespace gpmx::litmus
