#include "gpmx/litmus/ast.hpp"

#include <fmt/format.h>

namespace gpmx::litmus {

const char* to_string(access_label l) {
  switch (l) {
    case access_label::data: return "data";
    case access_label::paired: return "paired";
    case access_label::unpaired: return "unpaired";
    case access_label::commutative: return "commutative";
    case access_label::non_ordering: return "non-ordering";
    case access_label::speculative: return "speculative";
    case access_label::quantum: return "quantum";
  }
  return "?";
}

const char* to_string(access_kind k) {
  switch (k) {
    case access_kind::load: return "load";
    case access_kind::store: return "store";
    case access_kind::rmw: return "rmw";
  }
  return "?";
}

const char* to_string(rmw_op op) {
  switch (op) {
    case rmw_op::add: return "add";
    case rmw_op::sub: return "sub";
    case rmw_op::inc: return "inc";
    case rmw_op::dec: return "dec";
    case rmw_op::bit_and: return "and";
    case rmw_op::bit_or: return "or";
    case rmw_op::min: return "min";
    case rmw_op::max: return "max";
    case rmw_op::exchange: return "xchg";
    case rmw_op::compare_exchange: return "cas";
  }
  return "?";
}

bool is_atomic(access_label l) { return l != access_label::data; }

bool program::has_label(access_label l) const {
  for (const auto& t : threads)
    for (const auto& in : t.code)
      if (in.op == instr_op::access && in.label == l) return true;
  return false;
}

std::string program::addr_name(int addr) const {
  for (const auto& l : locs) {
    if (addr >= l.base && addr < l.base + l.size)
      return l.size == 1 ? l.name : fmt::format("{}[{}]", l.name, addr - l.base);
  }
  return fmt::format("@{}", addr);
}

std::vector<value> program::initial_memory() const {
  std::vector<value> mem(static_cast<std::size_t>(mem_size), 0);
  for (const auto& l : locs)
    for (int k = 0; k < l.size; ++k) mem[static_cast<std::size_t>(l.base + k)] = l.init[static_cast<std::size_t>(k)];
  return mem;
}

}  // namespace gpmx::litmus
