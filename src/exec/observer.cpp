// Names of the observed operations, and the process's host observer.
#include "gpmx/exec/observer.hpp"

#include <atomic>

namespace gpmx {
namespace {
std::atomic<observer*> installed{nullptr};
}  // namespace

observer* host_observer() { return installed.load(std::memory_order_acquire); }
void set_host_observer(observer* o) { installed.store(o, std::memory_order_release); }

const char* to_string(mem_space s) {
  switch (s) {
    case mem_space::global: return "global";
    case mem_space::shared: return "shared";
    case mem_space::pm: return "pm";
  }
  return "?";
}

const char* to_string(warp_op op) {
  switch (op) {
    case warp_op::syncwarp: return "syncwarp";
    case warp_op::ballot: return "ballot_sync";
    case warp_op::any: return "any_sync";
    case warp_op::all: return "all_sync";
    case warp_op::match_any: return "match_any_sync";
    case warp_op::shfl: return "shfl_sync";
    case warp_op::shfl_up: return "shfl_up_sync";
    case warp_op::shfl_down: return "shfl_down_sync";
    case warp_op::shfl_xor: return "shfl_xor_sync";
  }
  return "?";
}

}  // namespace gpmx
