#include "gpmx/litmus/races.hpp"

#include "gpmx/litmus/eval.hpp"
#include "gpmx/support/error.hpp"

namespace gpmx::litmus {

const char* to_string(consistency_model m) {
  switch (m) {
    case consistency_model::drf0: return "drf0";
    case consistency_model::drf1: return "drf1";
    case consistency_model::drfrlx: return "drfrlx";
    case consistency_model::hrf_direct: return "hrf-direct";
    case consistency_model::hrf_indirect: return "hrf-indirect";
  }
  return "?";
}

const char* to_string(race_class c) {
  switch (c) {
    case race_class::data: return "data";
    case race_class::commutative: return "commutative";
    case race_class::non_ordering: return "non-ordering";
    case race_class::speculative: return "speculative";
    case race_class::quantum: return "quantum";
    case race_class::heterogeneous: return "heterogeneous";
  }
  return "?";
}

consistency_model parse_model(const std::string& s) {
  for (consistency_model m : all_models)
    if (s == to_string(m)) return m;
  throw error(error_code::config, "unknown model '" + s + "' (drf0, drf1, drfrlx, hrf-direct, hrf-indirect)");
}

bool unordered(const relation& hb, int i, int j) { return !hb.has(i, j) && !hb.has(j, i); }

namespace {

value apply(const event& e, value v) {
  if (e.kind == access_kind::store) return e.wval;
  return rmw_result(e.rmw, v, e.operands);
}

bool used(const event& e) { return e.reads && e.used; }

relation restrict_edges(const relation& edges, const execution& x, bool (*keep)(const event&, const event&)) {
  relation out(edges.n);
  for (int i = 0; i < edges.n; ++i)
    for (int j = 0; j < edges.n; ++j)
      if (edges.has(i, j) && keep(x.events[static_cast<std::size_t>(i)], x.events[static_cast<std::size_t>(j)]))
        out.set(i, j);
  return out;
}

// Ordering paths within a subgraph: E* ; (po & E) ; E*.
relation ordering_paths(const relation& sub, const relation& po) {
  const relation star = reflexive_transitive_closure(sub);
  return compose(compose(star, sub & po), star);
}

bool same_addr_atomics(const event& a, const event& b) {
  return a.addr == b.addr && is_atomic(a.label) && is_atomic(b.label);
}
bool paired_or_unpaired(const event& a, const event& b) {
  auto pu = [](const event& e) { return e.label == access_label::paired || e.label == access_label::unpaired; };
  return pu(a) && pu(b);
}

}  // namespace

bool commute(const event& a, const event& b) {
  if (!a.writes || !b.writes) return true;  // a load leaves memory as it is
  const value v0 = a.before;
  return apply(b, apply(a, v0)) == apply(a, apply(b, v0));
}

bool non_ordering_violation(const execution& x, const execution_relations& r, int xi, int yi) {
  const relation graph = r.po | r.co;
  const relation star = reflexive_transitive_closure(graph);
  const relation with_po = compose(compose(star, r.po), star);  // paths with a po edge
  // Valid paths. A path of hb1 edges exists exactly when A hb1 B (a single
  // so1 edge counts, as in the herd model where A and B must race), so the
  // first kind is hb1 itself; the other two kinds are searched as subgraphs.
  const relation valid = r.hb1 |
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

std::vector<race> find_races(consistency_model m, const execution& x, const execution_relations& r) {
  std::vector<race> out;
  const relation& hb = m == consistency_model::drf0          ? r.hb0
                  : m == consistency_model::hrf_direct   ? r.hb_hrf_direct
                  : m == consistency_model::hrf_indirect ? r.hb_hrf_indirect
                                            : r.hb1;
  const int n = static_cast<int>(x.events.size());
  for (int i = 0; i < n; ++i) {
    // hb points forward in T and contains po, so the racing partners of i
    // that follow it are its conflict-order successors hb does not reach.
    std::uint64_t partners = r.co.row[static_cast<std::size_t>(i)] & ~hb.row[static_cast<std::size_t>(i)];
    while (partners != 0) {
      const int j = __builtin_ctzll(partners);
      partners &= partners - 1;
      const event& a = x.events[static_cast<std::size_t>(i)];
      const event& b = x.events[static_cast<std::size_t>(j)];
      if (a.thread == b.thread) continue;
      auto add = [&](race_class c) { out.push_back(race{c, i, j}); };
      if (a.label == access_label::data || b.label == access_label::data) {
        add(race_class::data);
        continue;
      }
      if (m == consistency_model::drf0 || m == consistency_model::drf1) continue;  // racing atomics are allowed
      if (m == consistency_model::hrf_direct || m == consistency_model::hrf_indirect) {
        if (!scopes_match(a, b)) add(race_class::heterogeneous);
        continue;
      }
      const bool qa = a.label == access_label::quantum, qb = b.label == access_label::quantum;
      if (qa != qb) {
        add(race_class::quantum);
        continue;
      }
      if (qa) continue;  // quantum racing quantum is allowed
      auto either = [&](access_label l) { return a.label == l || b.label == l; };
      if (either(access_label::commutative) && (!commute(a, b) || used(a) || used(b))) add(race_class::commutative);
      if (either(access_label::speculative) && ((a.writes && b.writes) || used(a) || used(b)))
        add(race_class::speculative);
      if (either(access_label::non_ordering) && non_ordering_violation(x, r, i, j)) add(race_class::non_ordering);
    }
  }
  return out;
}

}  // namespace gpmx::litmus
