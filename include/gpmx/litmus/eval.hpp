#pragma once
// Expression evaluation with dependency tracking: every value carries the
// set of loads (bit i = event i) it was computed from, and whether it is
// known yet (the relaxed machine evaluates before all loads have executed).
#include <cstdint>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

struct tainted_value {
  value v = 0;
  std::uint64_t taint = 0;
  bool known = true;
};

// thread-local expression (registers only). Division by zero yields 0.
tainted_value eval(const expr& e, const std::vector<tainted_value>& regs);

// Final-condition expression over memory and every thread's registers.
value eval_final(const expr& e, const program& p, const std::vector<value>& mem,
                 const std::vector<std::vector<value>>& regs);

value apply_binary(const std::string& op, value a, value b);

// The value a read-modify-write stores, given the value it loaded.
value rmw_result(rmw_op op, value old, const std::vector<value>& operands);
// Whether a compare-exchange succeeds (always true for the other operations).
bool rmw_writes(rmw_op op, value old, const std::vector<value>& operands);

// Flat address of an access; throws std::runtime_error when out of bounds.
int resolve_address(const program& p, const instr& in, value index, const std::string& thread);

}  // namespace gpmx::litmus
