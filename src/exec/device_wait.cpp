#include "gpmx/exec/device_wait.hpp"

namespace gpmx {
namespace {

// Per OS thread: a fiber's persist runs start to end on its worker's thread
// with no switch between arming and reading.
struct device_wait_slot {
  bool armed = false;
  bool deferred = false;
  device_clock::time_point latest{};
};
thread_local device_wait_slot slot;

}  // namespace

bool defer_device_wait(device_clock::time_point done) {
  if (!slot.armed) return false;
  if (!slot.deferred || done > slot.latest) slot.latest = done;
  slot.deferred = true;
  return true;
}

device_wait_scope::device_wait_scope() {
  slot.armed = true;
  slot.deferred = false;
}

device_wait_scope::~device_wait_scope() {
  slot.armed = false;
  slot.deferred = false;
}

std::optional<device_clock::time_point> device_wait_scope::deadline() const {
  if (!slot.deferred) return std::nullopt;
  return slot.latest;
}

}  // namespace gpmx
