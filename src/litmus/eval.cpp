#include "gpmx/litmus/eval.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace gpmx::litmus {

namespace {
// Wrapping arithmetic: litmus values are 64-bit two's complement.
value wrap(std::uint64_t u) { return static_cast<value>(u); }
std::uint64_t u(value v) { return static_cast<std::uint64_t>(v); }
}  // namespace

value apply_binary(const std::string& op, value a, value b) {
  switch (op[0]) {
    case '+': return wrap(u(a) + u(b));
    case '-': return wrap(u(a) - u(b));
    case '*': return wrap(u(a) * u(b));
    case '/': return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
    case '%': return b == 0 || b == -1 ? 0 : a % b;
    case '^': return a ^ b;
    case '&': return op.size() == 2 ? value{(a != 0) && (b != 0)} : (a & b);
    case '|': return op.size() == 2 ? value{(a != 0) || (b != 0)} : (a | b);
    case '=': return value{a == b};
    case '!': return value{a != b};
    case '<':
      if (op == "<<") return wrap(u(a) << (u(b) & 63U));
      return op.size() == 2 ? value{a <= b} : value{a < b};
    case '>':
      if (op == ">>") return a >> (u(b) & 63U);
      return op.size() == 2 ? value{a >= b} : value{a > b};
    default: break;
  }
  throw std::logic_error("unknown operator " + op);
}

tainted_value eval(const expr& e, const std::vector<tainted_value>& regs) {
  switch (e.kind) {
    case expr_kind::constant: return tainted_value{e.constant, 0, true};
    case expr_kind::reg: return regs[static_cast<std::size_t>(e.reg)];
    case expr_kind::unary: {
      tainted_value a = eval(e.kids[0], regs);
      a.v = e.op == "!" ? value{a.v == 0} : e.op == "-" ? wrap(0 - u(a.v)) : ~a.v;
      return a;
    }
    case expr_kind::binary: {
      const tainted_value a = eval(e.kids[0], regs);
      const tainted_value b = eval(e.kids[1], regs);
      return tainted_value{apply_binary(e.op, a.v, b.v), a.taint | b.taint, a.known && b.known};
    }
    case expr_kind::loc: break;
  }
  throw std::logic_error("location in a thread expression");
}

value eval_final(const expr& e, const program& p, const std::vector<value>& mem,
                 const std::vector<std::vector<value>>& regs) {
  switch (e.kind) {
    case expr_kind::constant: return e.constant;
    case expr_kind::reg:
      return regs[static_cast<std::size_t>(e.thread)][static_cast<std::size_t>(e.reg)];
    case expr_kind::loc: {
      const auto& l = p.locs[static_cast<std::size_t>(e.loc)];
      value idx = e.kids.empty() ? 0 : eval_final(e.kids[0], p, mem, regs);
      if (idx < 0 || idx >= l.size)
        throw std::runtime_error(fmt::format("{}:{}:{}: index {} out of bounds of '{}' in the final condition", p.file,
                                             e.pos.line, e.pos.col, idx, l.name));
      return mem[static_cast<std::size_t>(l.base + idx)];
    }
    case expr_kind::unary: {
      const value a = eval_final(e.kids[0], p, mem, regs);
      return e.op == "!" ? value{a == 0} : e.op == "-" ? wrap(0 - u(a)) : ~a;
    }
    case expr_kind::binary:
      return apply_binary(e.op, eval_final(e.kids[0], p, mem, regs), eval_final(e.kids[1], p, mem, regs));
  }
  return 0;
}

value rmw_result(rmw_op op, value old, const std::vector<value>& a) {
  switch (op) {
    case rmw_op::add: return wrap(u(old) + u(a[0]));
    case rmw_op::sub: return wrap(u(old) - u(a[0]));
    case rmw_op::inc: return wrap(u(old) + 1U);
    case rmw_op::dec: return wrap(u(old) - 1U);
    case rmw_op::bit_and: return old & a[0];
    case rmw_op::bit_or: return old | a[0];
    case rmw_op::min: return std::min(old, a[0]);
    case rmw_op::max: return std::max(old, a[0]);
    case rmw_op::exchange: return a[0];
    case rmw_op::compare_exchange: return old == a[0] ? a[1] : old;
  }
  return old;
}

bool rmw_writes(rmw_op op, value old, const std::vector<value>& a) {
  return op != rmw_op::compare_exchange || old == a[0];
}

int resolve_address(const program& p, const instr& in, value index, const std::string& thread) {
  const auto& l = p.locs[static_cast<std::size_t>(in.loc)];
  if (index < 0 || index >= l.size)
    throw std::runtime_error(fmt::format("{}:{}:{}: thread {} indexes '{}' with {}, outside [0, {})", p.file,
                                         in.pos.line, in.pos.col, thread, l.name, index, l.size));
  return l.base + static_cast<int>(index);
}

}  // namespace gpmx::litmus
