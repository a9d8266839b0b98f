#pragma once
// Crash points, counted process-wide so that a run can be stopped at an exact
// one (`gpmx run W --crash-after N`). A crash point is every PM store a
// kernel makes on the cpu executor (each element a PM view stores, each word
// a log writes), each GPU kernel's launch and end (its stores durable), and every
// host step a workload marks with point() (its commit steps). Counting costs one relaxed load per store until armed.
#include <atomic>
#include <cstdint>

namespace gpmx::crash_trigger {

namespace detail {
inline std::atomic<bool> armed{false};
void on_point();
}  // namespace detail

// Called from the thread that reaches the limit, and from every thread that
// reaches a crash point after it; the count it passes is that point's.
// A watchdog's handler blocks forever and lets the watchdog SIGKILL it.
using limit_handler = void (*)(std::uint64_t point);

// One crash point. Does nothing unless armed.
inline void point() {
  if (detail::armed.load(std::memory_order_relaxed)) detail::on_point();
}

// Counts crash points from zero; calls at_limit at the limit-th and after it.
// limit 0 only counts.
void arm(std::uint64_t limit, limit_handler at_limit);
void disarm();
// Crash points counted since arm().
std::uint64_t count();

}  // namespace gpmx::crash_trigger
