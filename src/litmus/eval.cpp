#include "gpmx/litmus/eval.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace gpmx::litmus {

namespace {
// Wrapping arithmetic: litmus values are 64-bit two's complement.
Value wrap(std::uint64_t u) { return static_cast<Value>(u); }
std::uint64_t u(Value v) { return static_cast<std::uint64_t>(v); }
}  // namespace

Value apply_binary(const std::string& op, Value a, Value b) {
  switch (op[0]) {
    case '+': return wrap(u(a) + u(b));
    case '-': return wrap(u(a) - u(b));
    case '*': return wrap(u(a) * u(b));
    case '/': return b == 0 || (b == -1 && a == INT64_MIN) ? 0 : a / b;
    case '%': return b == 0 || b == -1 ? 0 : a % b;
    case '^': return a ^ b;
    case '&': return op.size() == 2 ? Value{(a != 0) && (b != 0)} : (a & b);
    case '|': return op.size() == 2 ? Value{(a != 0) || (b != 0)} : (a | b);
    case '=': return Value{a == b};
    case '!': return Value{a != b};
    case '<':
      if (op == "<<") return wrap(u(a) << (u(b) & 63U));
      return op.size() == 2 ? Value{a <= b} : Value{a < b};
    case '>':
      if (op == ">>") return a >> (u(b) & 63U);
      return op.size() == 2 ? Value{a >= b} : Value{a > b};
    default: break;
  }
  throw std::logic_error("unknown operator " + op);
}

TVal eval(const Expr& e, const std::vector<TVal>& regs) {
  switch (e.kind) {
    case Expr::Kind::Const: return TVal{e.value, 0, true};
    case Expr::Kind::Reg: return regs[static_cast<std::size_t>(e.reg)];
    case Expr::Kind::Unary: {
      TVal a = eval(e.kids[0], regs);
      a.v = e.op == "!" ? Value{a.v == 0} : e.op == "-" ? wrap(0 - u(a.v)) : ~a.v;
      return a;
    }
    case Expr::Kind::Binary: {
      const TVal a = eval(e.kids[0], regs);
      const TVal b = eval(e.kids[1], regs);
      return TVal{apply_binary(e.op, a.v, b.v), a.taint | b.taint, a.known && b.known};
    }
    case Expr::Kind::Loc: break;
  }
  throw std::logic_error("location in a thread expression");
}

Value eval_final(const Expr& e, const Program& p, const std::vector<Value>& mem,
                 const std::vector<std::vector<Value>>& regs) {
  switch (e.kind) {
    case Expr::Kind::Const: return e.value;
    case Expr::Kind::Reg:
      return regs[static_cast<std::size_t>(e.thread)][static_cast<std::size_t>(e.reg)];
    case Expr::Kind::Loc: {
      const auto& l = p.locs[static_cast<std::size_t>(e.loc)];
      Value idx = e.kids.empty() ? 0 : eval_final(e.kids[0], p, mem, regs);
      if (idx < 0 || idx >= l.size)
        throw std::runtime_error(fmt::format("{}:{}:{}: index {} out of bounds of '{}' in the final condition", p.file,
                                             e.pos.line, e.pos.col, idx, l.name));
      return mem[static_cast<std::size_t>(l.base + idx)];
    }
    case Expr::Kind::Unary: {
      const Value a = eval_final(e.kids[0], p, mem, regs);
      return e.op == "!" ? Value{a == 0} : e.op == "-" ? wrap(0 - u(a)) : ~a;
    }
    case Expr::Kind::Binary:
      return apply_binary(e.op, eval_final(e.kids[0], p, mem, regs), eval_final(e.kids[1], p, mem, regs));
  }
  return 0;
}

Value rmw_result(RmwOp op, Value old, const std::vector<Value>& a) {
  switch (op) {
    case RmwOp::Add: return wrap(u(old) + u(a[0]));
    case RmwOp::Sub: return wrap(u(old) - u(a[0]));
    case RmwOp::Inc: return wrap(u(old) + 1U);
    case RmwOp::Dec: return wrap(u(old) - 1U);
    case RmwOp::And: return old & a[0];
    case RmwOp::Or: return old | a[0];
    case RmwOp::Min: return std::min(old, a[0]);
    case RmwOp::Max: return std::max(old, a[0]);
    case RmwOp::Exchange: return a[0];
    case RmwOp::CompareExchange: return old == a[0] ? a[1] : old;
  }
  return old;
}

bool rmw_writes(RmwOp op, Value old, const std::vector<Value>& a) {
  return op != RmwOp::CompareExchange || old == a[0];
}

int resolve_address(const Program& p, const Instr& in, Value index, const std::string& thread) {
  const auto& l = p.locs[static_cast<std::size_t>(in.loc)];
  if (index < 0 || index >= l.size)
    throw std::runtime_error(fmt::format("{}:{}:{}: thread {} indexes '{}' with {}, outside [0, {})", p.file,
                                         in.pos.line, in.pos.col, thread, l.name, index, l.size));
  return l.base + static_cast<int>(index);
}

}  // namespace gpmx::litmus
