#pragma once
// Relations over the events of one execution, as 64x64 bit matrices
// (row i, bit j set: i -> j). Event indices are positions in T.
#include <array>
#include <cstdint>

#include "gpmx/litmus/execution.hpp"

namespace gpmx::litmus {

struct Rel {
  int n = 0;
  std::array<std::uint64_t, 64> row{};

  explicit Rel(int size = 0) : n(size) {}
  bool has(int i, int j) const { return ((row[static_cast<std::size_t>(i)] >> j) & 1U) != 0; }
  void set(int i, int j) { row[static_cast<std::size_t>(i)] |= std::uint64_t{1} << j; }
  bool empty() const;
  Rel operator|(const Rel& o) const;
  Rel operator&(const Rel& o) const;
  bool operator==(const Rel& o) const;
};

Rel transitive_closure(Rel r);
Rel reflexive_transitive_closure(Rel r);
Rel compose(const Rel& a, const Rel& b);  // a ; b

struct Relations {
  Rel po, conflict, co, so0, so1, hb0, hb1;
  Rel so_hrf;          // union of the scoped synchronization orders
  Rel hb_hrf_direct;   // po U (U_S (po U so_S)+), one scope instance per chain
  Rel hb_hrf_indirect; // (po U so_hrf)+
};

// A sync access is any access not labelled data.
Relations compute_relations(const Execution& x);

// Whether the scope of two synchronizing accesses covers both threads.
bool scopes_match(const Event& a, const Event& b);

}  // namespace gpmx::litmus
