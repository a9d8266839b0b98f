#include "gpmx/litmus/relations.hpp"

#include <set>
#include <vector>

namespace gpmx::litmus {

bool relation::empty() const {
  for (int i = 0; i < n; ++i)
    if (row[static_cast<std::size_t>(i)] != 0) return false;
  return true;
}

relation relation::operator|(const relation& o) const {
  relation r(n);
  for (int i = 0; i < n; ++i) r.row[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] | o.row[static_cast<std::size_t>(i)];
  return r;
}

relation relation::operator&(const relation& o) const {
  relation r(n);
  for (int i = 0; i < n; ++i) r.row[static_cast<std::size_t>(i)] = row[static_cast<std::size_t>(i)] & o.row[static_cast<std::size_t>(i)];
  return r;
}

bool relation::operator==(const relation& o) const {
  if (n != o.n) return false;
  for (int i = 0; i < n; ++i)
    if (row[static_cast<std::size_t>(i)] != o.row[static_cast<std::size_t>(i)]) return false;
  return true;
}

// execution_relations of an execution point forward in T (i -> j only for i < j), so
// one backward pass suffices; anything else falls back to Warshall.
relation transitive_closure(relation r) {
  bool forward = true;
  for (int i = 0; i < r.n && forward; ++i)
    forward = (r.row[static_cast<std::size_t>(i)] & ((std::uint64_t{2} << i) - 1)) == 0;
  if (forward) {
    for (int i = r.n - 1; i >= 0; --i) {
      std::uint64_t bits = r.row[static_cast<std::size_t>(i)];
      std::uint64_t out = bits;
      while (bits != 0) {
        const int k = __builtin_ctzll(bits);
        bits &= bits - 1;
        out |= r.row[static_cast<std::size_t>(k)];
      }
      r.row[static_cast<std::size_t>(i)] = out;
    }
    return r;
  }
  for (int k = 0; k < r.n; ++k) {
    const std::uint64_t rk = r.row[static_cast<std::size_t>(k)];
    for (int i = 0; i < r.n; ++i)
      if (r.has(i, k)) r.row[static_cast<std::size_t>(i)] |= rk;
  }
  return r;
}

relation reflexive_transitive_closure(relation r) {
  r = transitive_closure(r);
  for (int i = 0; i < r.n; ++i) r.set(i, i);
  return r;
}

relation compose(const relation& a, const relation& b) {
  relation r(a.n);
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

bool scopes_match(const event& a, const event& b) {
  return a.scope == b.scope && (a.scope != gpmx::scope::block || a.cu == b.cu);
}

execution_relations compute_relations(const execution& x) {
  const int n = static_cast<int>(x.events.size());
  execution_relations r{relation(n), relation(n), relation(n), relation(n), relation(n), relation(n), relation(n), relation(n), relation(n), relation(n)};
  // event classes as bit masks, so each row is a few bitwise operations.
  std::uint64_t reads = 0, writes = 0, atomics = 0, paired = 0, global = 0;
  std::vector<std::uint64_t> by_addr, by_thread, local_by_cu;
  auto at = [](std::vector<std::uint64_t>& v, int k) -> std::uint64_t& {
    if (static_cast<int>(v.size()) <= k) v.resize(static_cast<std::size_t>(k) + 1, 0);
    return v[static_cast<std::size_t>(k)];
  };
  for (int i = 0; i < n; ++i) {
    const event& e = x.events[static_cast<std::size_t>(i)];
    const std::uint64_t b = std::uint64_t{1} << i;
    if (e.reads) reads |= b;
    if (e.writes) writes |= b;
    if (is_atomic(e.label)) {
      atomics |= b;
      if (e.scope != gpmx::scope::block) global |= b; else at(local_by_cu, e.cu) |= b;
    }
    if (e.label == access_label::paired) paired |= b;
    at(by_addr, e.addr) |= b;
    at(by_thread, e.thread) |= b;
  }
  std::set<int> local_cus;
  for (int i = 0; i < n; ++i) {
    const event& a = x.events[static_cast<std::size_t>(i)];
    const std::uint64_t later = ~((std::uint64_t{2} << i) - 1);  // events after i
    const std::uint64_t self = std::uint64_t{1} << i;
    const auto ui = static_cast<std::size_t>(i);
    r.po.row[ui] = by_thread[static_cast<std::size_t>(a.thread)] & later;
    const std::uint64_t conflict = by_addr[static_cast<std::size_t>(a.addr)] & (a.writes ? ~std::uint64_t{0} : writes) & ~self;
    r.conflict.row[ui] = conflict;
    r.co.row[ui] = conflict & later;
    // Synchronization: a write before a conflicting read, in T.
    if (!a.writes || !is_atomic(a.label)) continue;
    const std::uint64_t sync_reads = r.co.row[ui] & reads & atomics;
    r.so0.row[ui] = sync_reads;
    if (a.label == access_label::paired) r.so1.row[ui] = sync_reads & paired;
    const std::uint64_t same_scope = a.scope != gpmx::scope::block ? global : at(local_by_cu, a.cu);
    r.so_hrf.row[ui] = sync_reads & same_scope;
    if (a.scope == gpmx::scope::block && r.so_hrf.row[ui] != 0) local_cus.insert(a.cu);
  }
  r.hb0 = transitive_closure(r.po | r.so0);
  r.hb1 = transitive_closure(r.po | r.so1);
  r.hb_hrf_indirect = transitive_closure(r.po | r.so_hrf);
  // HRF-direct: a chain uses the synchronization of one scope instance only.
  r.hb_hrf_direct = r.po;
  auto instance = [&](std::uint64_t members) {
    relation s(n);
    for (int i = 0; i < n; ++i)
      if (((members >> i) & 1U) != 0) s.row[static_cast<std::size_t>(i)] = r.so_hrf.row[static_cast<std::size_t>(i)];
    r.hb_hrf_direct = r.hb_hrf_direct | transitive_closure(r.po | s);
  };
  instance(global);
  for (int cu : local_cus) instance(at(local_by_cu, cu));
  return r;
}

}  // namespace gpmx::litmus
