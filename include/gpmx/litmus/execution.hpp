#pragma once
// One SC execution: its events in the total order T, and its final state.
#include <cstdint>
#include <string>
#include <vector>

#include "gpmx/litmus/ast.hpp"

namespace gpmx::litmus {

struct Event {
  int thread = 0;
  int po = 0;  // index among its thread's events
  AccessKind kind = AccessKind::Load;
  RmwOp rmw = RmwOp::Add;
  Label label = Label::Data;
  Scope scope = Scope::Global;
  int cu = 0;
  int addr = 0;
  bool reads = false;
  bool writes = false;  // false for a failed compare-exchange
  Value rval = 0;       // value loaded (loads and read-modify-writes)
  Value wval = 0;       // value stored
  Value before = 0;     // memory value just before the event
  std::vector<Value> operands;
  bool used = false;    // the loaded value feeds an address, a stored value or a branch
  SrcPos pos;
};

struct Execution {
  std::vector<Event> events;  // in T order
  bool complete = true;       // every thread ran to its end
  std::string stop_reason;    // why not complete (deadlock, loop bound)
  std::vector<Value> final_mem;
  std::vector<std::vector<Value>> regs;  // per thread
};

std::string describe_event(const Program& p, const Event& e);
std::string describe_execution(const Program& p, const Execution& x);

}  // namespace gpmx::litmus
