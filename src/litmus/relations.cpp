#include "gpmx/litmus/relations.hpp"

#include <set>

namespace gpmx::litmus {

bool Rel::empty() const {
  for (int i = 0; i < n; ++i)
    if (row[static_cast<std::size_t>(i)] != 0) return false;
  return true;
}

Rel Rel::operator|(const Rel& o) const {
  Rel r(n);
  for (int i = 0; i < n; ++i) r.row[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] | o.row[static_cast<std::size_t>(i)];
  return r;
}

Rel Rel::operator&(const Rel& o) const {
  Rel r(n);
  for (int i = 0; i < n; ++i) r.row[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] & o.row[static_cast<std::size_t>(i)];
  return r;
}

bool Rel::operator==(const Rel& o) const {
  if (n != o.n) return false;
  for (int i = 0; i < n; ++i)
    if (row[static_cast<std::size_t>(i)] != o.row[static_cast<std::size_t>(i)]) return false;
  return true;
}

// Warshall on bit rows.
Rel transitive_closure(Rel r) {
  for (int k = 0; k < r.n; ++k) {
    const std::uint64_t rk = r.row[static_cast<std::size_t>(k)];
    for (int i = 0; i < r.n; ++i)
      if (r.has(i, k)) r.row[static_cast<std::size_t>(i)] |= rk;
  }
  return r;
}

Rel reflexive_transitive_closure(Rel r) {
  r = transitive_closure(r);
  for (int i = 0; i < r.n; ++i) r.set(i, i);
  return r;
}

Rel compose(const Rel& a, const Rel& b) {
  Rel r(a.n);
  for (int i = 0; i < a.n; ++i) {
    std::uint64_t bits = a.row[static_cast<std::size_t>(i)];
    std::uint64_t out = 0;
    while (bits != 0) {
      const int k = __builtin_ctzll(bits);
      bits &= bits - 1;
      out |= b.row[static_cast<std::size_t>(k)];
    }
    r.row[static_cast<std::size_t>(i)] = out;
  }
  return r;
}

bool scopes_match(const Event& a, const Event& b) {
  return a.scope == b.scope && (a.scope == Scope::Global || a.cu == b.cu);
}

Relations compute_relations(const Execution& x) {
  const int n = static_cast<int>(x.events.size());
  Relations r{Rel(n), Rel(n), Rel(n), Rel(n), Rel(n), Rel(n), Rel(n), Rel(n), Rel(n), Rel(n)};
  std::set<int> local_cus;
  for (int i = 0; i < n; ++i) {
    const Event& a = x.events[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < n; ++j) {
      const Event& b = x.events[static_cast<std::size_t>(j)];
      if (a.thread == b.thread) r.po.set(i, j);
      if (a.addr != b.addr || !(a.writes || b.writes)) continue;
      r.conflict.set(i, j);
      r.conflict.set(j, i);
      r.co.set(i, j);
      // Synchronization: a write before a conflicting read, in T.
      if (!a.writes || !b.reads) continue;
      if (is_atomic(a.label) && is_atomic(b.label)) {
        r.so0.set(i, j);
        if (scopes_match(a, b)) {
          r.so_hrf.set(i, j);
          if (a.scope == Scope::Local) local_cus.insert(a.cu);
        }
      }
      if (a.label == Label::Paired && b.label == Label::Paired) r.so1.set(i, j);
    }
  }
  r.hb0 = transitive_closure(r.po | r.so0);
  r.hb1 = transitive_closure(r.po | r.so1);
  r.hb_hrf_indirect = transitive_closure(r.po | r.so_hrf);
  // HRF-direct: a chain uses the synchronization of one scope instance only.
  r.hb_hrf_direct = r.po;
  auto instance = [&](bool global, int cu) {
    Rel s(n);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        if (!r.so_hrf.has(i, j)) continue;
        const Event& a = x.events[static_cast<std::size_t>(i)];
        if (global ? a.scope == Scope::Global : (a.scope == Scope::Local && a.cu == cu)) s.set(i, j);
      }
    r.hb_hrf_direct = r.hb_hrf_direct | transitive_closure(r.po | s);
  };
  instance(true, 0);
  for (int cu : local_cus) instance(false, cu);
  return r;
}

}  // namespace gpmx::litmus
