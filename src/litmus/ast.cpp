#include "gpmx/litmus/ast.hpp"

#include <fmt/format.h>

namespace gpmx::litmus {

const char* to_string(Label l) {
  switch (l) {
    case Label::Data: return "data";
    case Label::Paired: return "paired";
    case Label::Unpaired: return "unpaired";
    case Label::Commutative: return "commutative";
    case Label::NonOrdering: return "non-ordering";
    case Label::Speculative: return "speculative";
    case Label::Quantum: return "quantum";
  }
  return "?";
}

const char* to_string(Scope s) { return s == Scope::Local ? "local" : "global"; }

const char* to_string(AccessKind k) {
  switch (k) {
    case AccessKind::Load: return "load";
    case AccessKind::Store: return "store";
    case AccessKind::Rmw: return "rmw";
  }
  return "?";
}

const char* to_string(RmwOp op) {
  switch (op) {
    case RmwOp::Add: return "add";
    case RmwOp::Sub: return "sub";
    case RmwOp::Inc: return "inc";
    case RmwOp::Dec: return "dec";
    case RmwOp::And: return "and";
    case RmwOp::Or: return "or";
    case RmwOp::Min: return "min";
    case RmwOp::Max: return "max";
    case RmwOp::Exchange: return "xchg";
    case RmwOp::CompareExchange: return "cas";
  }
  return "?";
}

bool is_atomic(Label l) { return l != Label::Data; }

bool Program::has_label(Label l) const {
  for (const auto& t : threads)
    for (const auto& in : t.code)
      if (in.op == Instr::Op::Access && in.label == l) return true;
  return false;
}

std::string Program::addr_name(int addr) const {
  for (const auto& l : locs) {
    if (addr >= l.base && addr < l.base + l.size)
      return l.size == 1 ? l.name : fmt::format("{}[{}]", l.name, addr - l.base);
  }
  return fmt::format("@{}", addr);
}

std::vector<Value> Program::initial_memory() const {
  std::vector<Value> mem(static_cast<std::size_t>(mem_size), 0);
  for (const auto& l : locs)
    for (int k = 0; k < l.size; ++k) mem[static_cast<std::size_t>(l.base + k)] = l.init[static_cast<std::size_t>(k)];
  return mem;
}

}  // namespace gpmx::litmus
