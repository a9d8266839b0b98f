#pragma once
// One SC execution: its events in the total order T, and its final state.
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

struct event {
  int thread = 0;
  int po = 0;  // index among its thread's events
  access_kind kind = access_kind::load;
  rmw_op rmw = rmw_op::add;
  access_label label = access_label::data;
  gpmx::scope scope = gpmx::scope::device;
  int cu = 0;
  int addr = 0;
  bool reads = false;
  bool writes = false;  // false for a failed compare-exchange
  value rval = 0;       // value loaded (loads and read-modify-writes)
  value wval = 0;       // value stored
  value before = 0;     // memory value just before the event
  std::vector<value> operands;
  bool used = false;    // the loaded value feeds an address, a stored value or a branch
  src_pos pos;
};

struct execution {
  std::vector<event> events;  // in T order
  bool complete = true;       // every thread ran to its end
  std::string stop_reason;    // why not complete (deadlock, loop bound)
  std::vector<value> final_mem;
  std::vector<std::vector<value>> regs;  // per thread
};

std::string describe_event(const program& p, const event& e);
std::string describe_execution(const program& p, const execution& x);

}  // namespace gpmx::litmus
