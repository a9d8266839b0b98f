#pragma once
// execution_relations over the events of one execution, as 64x64 bit matrices
// (row i, bit j set: i -> j). event indices are positions in T.
#include <array>
#include <cstdint>

#include "gpmx/litmus/execution.hpp"

namespace gpmx::litmus {

struct relation {
  int n = 0;
  std::array<std::uint64_t, 64> row{};

  explicit relation(int size = 0) : n(size) {}
  bool has(int i, int j) const { return ((row[static_cast<std::size_t>(i)] >> j) & 1U) != 0; }
  void set(int i, int j) { row[static_cast<std::size_t>(i)] |= std::uint64_t{1} << j; }
  bool empty() const;
  relation operator|(const relation& o) const;
  relation operator&(const relation& o) const;
  bool operator==(const relation& o) const;
};

relation transitive_closure(relation r);
relation reflexive_transitive_closure(relation r);
relation compose(const relation& a, const relation& b);  // a ; b

struct execution_relations {
  relation po, conflict, co, so0, so1, hb0, hb1;
  relation so_hrf;          // union of the scoped synchronization orders
  relation hb_hrf_direct;   // po U (U_S (po U so_S)+), one scope instance per chain
  relation hb_hrf_indirect; // (po U so_hrf)+
};

// A sync access is any access not labelled data.
execution_relations compute_relations(const execution& x);

// Whether the scope of two synchronizing accesses covers both threads.
bool scopes_match(const event& a, const event& b);

}  // namespace gpmx::litmus
