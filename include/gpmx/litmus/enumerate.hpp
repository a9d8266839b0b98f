#pragma once
// Enumerates SC executions: one interleaving per Mazurkiewicz trace, using
// sleep sets (accesses of different threads commute unless they conflict),
// so the relations the race checker reads are covered exactly once each.
#include <cstdint>
#include <functional>
#include <vector>

#include "gpmx/litmus/execution.hpp"

namespace gpmx::litmus {

struct EnumOptions {
  // Run the quantum-equivalent program: quantum loads return, and quantum
  // stores write, every value of `domain`.
  bool quantum_equivalent = false;
  std::vector<Value> domain;
  std::uint64_t max_executions = 50'000'000;  // guard against runaway tests
  // Partial-order reduction (sleep sets, safe steps). Off: every interleaving,
  // which the tests use to cross-check the reduction.
  bool reduce = true;
};

struct EnumStats {
  std::uint64_t executions = 0;   // maximal executions visited
  std::uint64_t complete = 0;     // of which every thread finished
  std::uint64_t sleep_blocked = 0;
  std::uint64_t steps = 0;
};

EnumStats enumerate_sc(const Program& p, const EnumOptions& opt, const std::function<void(const Execution&)>& visit);

// Every constant of the program (and 0, 1), sorted: the default quantum domain.
std::vector<Value> program_constants(const Program& p);

}  // namespace gpmx::litmus
