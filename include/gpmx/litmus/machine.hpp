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

struct MachineOutcome {
  std::vector<Value> mem;
  std::vector<std::vector<Value>> regs;
  bool operator<(const MachineOutcome& o) const { return mem != o.mem ? mem < o.mem : regs < o.regs; }
  bool operator==(const MachineOutcome& o) const { return mem == o.mem && regs == o.regs; }
};

struct MachineResult {
  std::vector<MachineOutcome> outcomes;  // distinct final states of finished runs
  std::uint64_t states = 0;              // distinct machine states visited
  std::uint64_t stuck = 0;               // runs that ended blocked or at a loop bound
};

struct MachineOptions {
  std::uint64_t max_states = 20'000'000;
};

MachineResult run_machine(const Program& p, const MachineOptions& opt = {});

}  // namespace gpmx::litmus
