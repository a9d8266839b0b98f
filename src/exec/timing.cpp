// Names of the timed schedule's operations and stall reasons.
#include "gpmx/exec/timing.hpp"

namespace gpmx {

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
