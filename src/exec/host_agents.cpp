#include "gpmx/exec/host_agents.hpp"

#include <utility>

#include "agent_loop.hpp"

namespace gpmx {

host_agent_threads::host_agent_threads(const std::vector<agent*>& agents) {
  threads_.reserve(agents.size());
  for (agent* a : agents) threads_.emplace_back([this, a] { run(*a); });
}

host_agent_threads::~host_agent_threads() { join(); }

void host_agent_threads::join() {
  stop_.store(true, std::memory_order_relaxed);
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void host_agent_threads::stop() {
  join();
  std::lock_guard lock(mutex_);
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void host_agent_threads::run(agent& a) {
  try {
    cpu::detail::step_until(a, [this] { return stop_.load(std::memory_order_relaxed); }, [](agent::step_result) {});
  } catch (...) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::current_exception();
    failed_.store(true, std::memory_order_release);
  }
}

}  // namespace gpmx
