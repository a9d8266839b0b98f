#pragma once
// The text form of a trace, for people: one line per event.
#include <cstdint>
#include <ostream>
#include <string>

#include "gpmx/trace/event.hpp"

namespace gpmx::trace {

// e.g. "#12 L0 b3 w0 l5 po2 pm_write 0x7f0000001000 8B = 2a00000000000000 kvs.cpp:88"
std::string format_event(const trace& t, std::uint64_t index);
void dump(const trace& t, std::ostream& out);

}  // namespace gpmx::trace
