#pragma once
// The example relaxed DRFrlx machine of the thesis's Listing 3.9, run
// operationally: each thread issues its accesses out of program order into
// one atomic memory, keeping program order only where the machine must
// (same location; both paired/unpaired; before a paired write; after a
// paired read), and never issuing an access before the loads its address,
// value or control flow depends on (no speculative stores). Every order of
// issue is an acyclic (kept-po | rf | co | fr | dependencies), so these are
// exactly the candidate executions that satisfy the listing's axioms (with
// co added to the acyclicity check, see docs/litmus.md).
#include <cstdint>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

struct machine_outcome {
  std::vector<value> mem;
  std::vector<std::vector<value>> regs;
  bool operator<(const machine_outcome& o) const { return mem != o.mem ? mem < o.mem : regs < o.regs; }
  bool operator==(const machine_outcome& o) const { return mem == o.mem && regs == o.regs; }
};

struct machine_result {
  std::vector<machine_outcome> outcomes;  // distinct final states of finished runs
  std::uint64_t states = 0;              // distinct machine states visited
  std::uint64_t stuck = 0;               // runs that ended blocked or at a loop bound
};

struct machine_options {
  std::uint64_t max_states = 20'000'000;
};

machine_result run_machine(const program& p, const machine_options& opt = {});

}  // namespace gpmx::litmus
