#include "gpmx/litmus/races.hpp"

#include <stdexcept>

#include "gpmx/litmus/eval.hpp"

namespace gpmx::litmus {

const char* to_string(Model m) {
  switch (m) {
    case Model::DRF0: return "drf0";
    case Model::DRF1: return "drf1";
    case Model::DRFrlx: return "drfrlx";
    case Model::HRFDirect: return "hrf-direct";
    case Model::HRFIndirect: return "hrf-indirect";
  }
  return "?";
}

const char* to_string(RaceClass c) {
  switch (c) {
    case RaceClass::Data: return "data";
    case RaceClass::Commutative: return "commutative";
    case RaceClass::NonOrdering: return "non-ordering";
    case RaceClass::Speculative: return "speculative";
    case RaceClass::Quantum: return "quantum";
    case RaceClass::Heterogeneous: return "heterogeneous";
  }
  return "?";
}

Model parse_model(const std::string& s) {
  for (Model m : kAllModels)
    if (s == to_string(m)) return m;
  throw std::invalid_argument("unknown model '" + s + "' (drf0, drf1, drfrlx, hrf-direct, hrf-indirect)");
}

bool unordered(const Rel& hb, int i, int j) { return !hb.has(i, j) && !hb.has(j, i); }

namespace {

Value apply(const Event& e, Value v) {
  if (e.kind == AccessKind::Store) return e.wval;
  return rmw_result(e.rmw, v, e.operands);
}

bool used(const Event& e) { return e.reads && e.used; }

Rel restrict_edges(const Rel& edges, const Execution& x, bool (*keep)(const Event&, const Event&)) {
  Rel out(edges.n);
  for (int i = 0; i < edges.n; ++i)
    for (int j = 0; j < edges.n; ++j)
      if (edges.has(i, j) && keep(x.events[static_cast<std::size_t>(i)], x.events[static_cast<std::size_t>(j)]))
        out.set(i, j);
  return out;
}

// Ordering paths within a subgraph: E* ; (po & E) ; E*.
Rel ordering_paths(const Rel& sub, const Rel& po) {
  const Rel star = reflexive_transitive_closure(sub);
  return compose(compose(star, sub & po), star);
}

bool same_addr_atomics(const Event& a, const Event& b) {
  return a.addr == b.addr && is_atomic(a.label) && is_atomic(b.label);
}
bool paired_or_unpaired(const Event& a, const Event& b) {
  auto pu = [](const Event& e) { return e.label == Label::Paired || e.label == Label::Unpaired; };
  return pu(a) && pu(b);
}

}  // namespace

bool commute(const Event& a, const Event& b) {
  if (!a.writes || !b.writes) return true;  // a load leaves memory as it is
  const Value v0 = a.before;
  return apply(b, apply(a, v0)) == apply(a, apply(b, v0));
}

bool non_ordering_violation(const Execution& x, const Relations& r, int xi, int yi) {
  const Rel graph = r.po | r.co;
  const Rel star = reflexive_transitive_closure(graph);
  const Rel with_po = compose(compose(star, r.po), star);  // paths with a po edge
  // Valid paths. A path of hb1 edges exists exactly when A hb1 B (a single
  // so1 edge counts, as in the herd model where A and B must race), so the
  // first kind is hb1 itself; the other two kinds are searched as subgraphs.
  const Rel valid = r.hb1 |
                    ordering_paths(restrict_edges(graph, x, same_addr_atomics), r.po) |
                    ordering_paths(restrict_edges(graph, x, paired_or_unpaired), r.po);
  const int n = graph.n;
  for (int a = 0; a < n; ++a) {
    if (!star.has(a, xi)) continue;
    for (int b = 0; b < n; ++b) {
      if (!star.has(yi, b) || !r.conflict.has(a, b)) continue;
      // Endpoints that form a data race are reported as that data race (the
      // herd model subtracts data races from non-ordering races likewise).
      if (!is_atomic(x.events[static_cast<std::size_t>(a)].label) ||
          !is_atomic(x.events[static_cast<std::size_t>(b)].label))
        continue;
      if (!with_po.has(a, xi) && !with_po.has(yi, b)) continue;  // not an ordering path
      if (!valid.has(a, b)) return true;
    }
  }
  return false;
}

std::vector<Race> find_races(Model m, const Execution& x, const Relations& r) {
  std::vector<Race> out;
  const Rel& hb = m == Model::DRF0          ? r.hb0
                  : m == Model::HRFDirect   ? r.hb_hrf_direct
                  : m == Model::HRFIndirect ? r.hb_hrf_indirect
                                            : r.hb1;
  const int n = static_cast<int>(x.events.size());
  for (int i = 0; i < n; ++i) {
    // hb points forward in T and contains po, so the racing partners of i
    // that follow it are its conflict-order successors hb does not reach.
    std::uint64_t partners = r.co.row[static_cast<std::size_t>(i)] & ~hb.row[static_cast<std::size_t>(i)];
    while (partners != 0) {
      const int j = __builtin_ctzll(partners);
      partners &= partners - 1;
      const Event& a = x.events[static_cast<std::size_t>(i)];
      const Event& b = x.events[static_cast<std::size_t>(j)];
      if (a.thread == b.thread) continue;
      auto add = [&](RaceClass c) { out.push_back(Race{c, i, j}); };
      if (a.label == Label::Data || b.label == Label::Data) {
        add(RaceClass::Data);
        continue;
      }
      if (m == Model::DRF0 || m == Model::DRF1) continue;  // racing atomics are allowed
      if (m == Model::HRFDirect || m == Model::HRFIndirect) {
        if (!scopes_match(a, b)) add(RaceClass::Heterogeneous);
        continue;
      }
      const bool qa = a.label == Label::Quantum, qb = b.label == Label::Quantum;
      if (qa != qb) {
        add(RaceClass::Quantum);
        continue;
      }
      if (qa) continue;  // quantum racing quantum is allowed
      auto either = [&](Label l) { return a.label == l || b.label == l; };
      if (either(Label::Commutative) && (!commute(a, b) || used(a) || used(b))) add(RaceClass::Commutative);
      if (either(Label::Speculative) && ((a.writes && b.writes) || used(a) || used(b)))
        add(RaceClass::Speculative);
      if (either(Label::NonOrdering) && non_ordering_violation(x, r, i, j)) add(RaceClass::NonOrdering);
    }
  }
  return out;
}

}  // namespace gpmx::litmus
