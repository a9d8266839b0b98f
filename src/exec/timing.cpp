// Names of the timed schedule's operations and stall reasons.
#include "gpmx/exec/timing.hpp"

#include <cstring>

namespace gpmx {

#if defined(__cpp_lib_source_location)
static_assert(sizeof(timed_op) == 32, "timed_op: two to a cache line");
#endif

bool same_place(const source_loc& a, const source_loc& b) {
  if (a.line() != b.line()) return false;
  const char* fa = a.file_name();
  const char* fb = b.file_name();
  // One file's name is usually one string; an inline function's copies in
  // several translation units may each have their own.
  return fa == fb || std::strcmp(fa, fb) == 0;
}

const char* to_string(timed_kind k) {
  switch (k) {
    case timed_kind::load: return "load";
    case timed_kind::store: return "store";
    case timed_kind::atomic: return "atomic";
    case timed_kind::ordering: return "ordering";
    case timed_kind::fence: return "fence";
    case timed_kind::flag_release: return "prel";
    case timed_kind::flag_acquire: return "pacq";
    case timed_kind::persist_range: return "persist_range";
    case timed_kind::barrier: return "barrier";
    case timed_kind::warp_collective: return "warp_collective";
    case timed_kind::spin: return "spin";
    case timed_kind::activemask: return "activemask";
  }
  return "?";
}

const char* to_string(stall_reason r) {
  switch (r) {
    case stall_reason::none: return "none";
    case stall_reason::memory: return "memory";
    case stall_reason::barrier: return "barrier";
    case stall_reason::ordering: return "ordering";
    case stall_reason::compute: return "compute";
    case stall_reason::idle: return "idle";
  }
  return "?";
}

}  // namespace gpmx
