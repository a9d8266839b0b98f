// The per-thread kernel store counters and their sum.
#include "gpmx/pm/pm_write_stats.hpp"

#include "gpmx/exec/gpu_session.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace gpmx::pm_write_stats::detail {
namespace {

struct counters {
  std::mutex mutex;
  std::vector<const thread_counter*> live;
  std::uint64_t retired = 0;  // what ended threads counted
};
counters& all() {
  static counters* c = new counters;  // outlives every thread_local that unregisters
  return *c;
}

}  // namespace

thread_counter::thread_counter() {
  counters& c = all();
  std::lock_guard lock(c.mutex);
  c.live.push_back(this);
  current = this;
}

thread_counter::~thread_counter() {
  counters& c = all();
  std::lock_guard lock(c.mutex);
  c.retired += bytes.load(std::memory_order_relaxed);
  std::erase(c.live, this);
  current = nullptr;
}

thread_counter& this_thread_counter() {
  thread_local thread_counter counter;
  return counter;
}

}  // namespace gpmx::pm_write_stats::detail

namespace gpmx::pm_write_stats {

std::uint64_t kernel_stores() {
  detail::counters& c = detail::all();
  std::lock_guard lock(c.mutex);
  std::uint64_t sum = c.retired;
  for (const detail::thread_counter* t : c.live) sum += t->bytes.load(std::memory_order_relaxed);
  return sum + gpu_session::kernel_pm_store_bytes();
}

}  // namespace gpmx::pm_write_stats
