#pragma once
// Expression evaluation with dependency tracking: every value carries the
// set of loads (bit i = event i) it was computed from, and whether it is
// known yet (the relaxed machine evaluates before all loads have executed).
#include <cstdint>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

struct TVal {
  Value v = 0;
  std::uint64_t taint = 0;
  bool known = true;
};

// Thread-local expression (registers only). Division by zero yields 0.
TVal eval(const Expr& e, const std::vector<TVal>& regs);

// Final-condition expression over memory and every thread's registers.
Value eval_final(const Expr& e, const Program& p, const std::vector<Value>& mem,
                 const std::vector<std::vector<Value>>& regs);

Value apply_binary(const std::string& op, Value a, Value b);

// The value a read-modify-write stores, given the value it loaded.
Value rmw_result(RmwOp op, Value old, const std::vector<Value>& operands);
// Whether a compare-exchange succeeds (always true for the other operations).
bool rmw_writes(RmwOp op, Value old, const std::vector<Value>& operands);

// Flat address of an access; throws std::runtime_error when out of bounds.
int resolve_address(const Program& p, const Instr& in, Value index, const std::string& thread);

}  // namespace gpmx::litmus
