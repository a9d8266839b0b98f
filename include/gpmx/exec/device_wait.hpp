#pragma once
// Waiting for an emulated device without holding the worker. A domain that
// emulates a slow device (pm::write_throttle) knows when a persist would
// finish on it. A GPU overlaps that wait with other warps' work; a cpu
// worker that blocked in the persist would run none of its other threads.
// So, while the cpu executor runs a kernel thread's persist inside a
// device_wait_scope, the domain hands the finishing time over with
// defer_device_wait and returns at once; the thread then parks until that
// time and the worker runs others (block_scheduler::wait_device).
#include <chrono>
#include <optional>

namespace gpmx {

using device_clock = std::chrono::steady_clock;

// Called by a domain inside a persist. Returns true when the caller is a
// kernel thread that will wait for `done` itself (the latest time handed
// over wins); false when it cannot wait that way (a host thread, the group
// commit flusher, a persist inside a spin condition): the domain blocks.
bool defer_device_wait(device_clock::time_point done);

// The executor's side: while one lives on this OS thread, defer_device_wait
// records deadlines instead of refusing them. Not nested.
class device_wait_scope {
 public:
  device_wait_scope();
  ~device_wait_scope();
  device_wait_scope(const device_wait_scope&) = delete;
  device_wait_scope& operator=(const device_wait_scope&) = delete;
  // The latest deadline handed over, if any (read it before the scope ends
  // and before anything else may run on this OS thread).
  std::optional<device_clock::time_point> deadline() const;
};

}  // namespace gpmx
