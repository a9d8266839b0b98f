#pragma once
// Enumerates SC executions: one interleaving per Mazurkiewicz trace, using
// sleep sets (accesses of different threads commute unless they conflict),
// so the relations the race checker reads are covered exactly once each.
#include <cstdint>
#include <functional>
#include <vector>

#include "gpmx/litmus/execution.hpp"

namespace gpmx::litmus {

struct enumerate_options {
  // Run the quantum-equivalent program: quantum loads return, and quantum
  // stores write, every value of `domain`.
  bool quantum_equivalent = false;
  std::vector<value> domain;
  std::uint64_t max_executions = 50'000'000;  // guard against runaway tests
  // Partial-order reduction (sleep sets, safe steps). Off: every interleaving,
  // which the tests use to cross-check the reduction.
  bool reduce = true;
};

struct enumerate_stats {
  std::uint64_t executions = 0;   // maximal executions visited
  std::uint64_t complete = 0;     // of which every thread finished
  std::uint64_t sleep_blocked = 0;
  std::uint64_t steps = 0;
};

enumerate_stats enumerate_sc(const program& p, const enumerate_options& opt, const std::function<void(const execution&)>& visit);

// Every constant of the program (and 0, 1), sorted: the default quantum domain.
std::vector<value> program_constants(const program& p);

}  // namespace gpmx::litmus
